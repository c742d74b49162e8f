"""Reading per-job files (docs/jobs_file.md) in tests."""

import csv


def awrt_from_jobs_file(path, sites: list[str]) -> list[float]:
    """Per-site AWRT (s) over the jobs submitted at each site, from a per-job file alone."""
    num = dict.fromkeys(sites, 0.0)
    den = dict.fromkeys(sites, 0.0)
    with open(path) as fh:
        for r in csv.DictReader(fh):
            sa = int(r["execution_time"]) * int(r["requested_number_of_resources"])
            num[r["origin_site"]] += sa * int(r["turnaround_time"])
            den[r["origin_site"]] += sa
    return [num[s] / den[s] for s in sites]
