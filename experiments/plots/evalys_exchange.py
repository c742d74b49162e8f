"""evalys draws an evogrid exchange run (docs/jobs_file.md, "evalys plots of an exchange run").

Run: ``.venv/bin/python experiments/plots/evalys_exchange.py`` (needs ``evogrid[evalys]``; about 10 s)

Simulates days 60-63 of KTH (100 processors) and SDSC-SP2 (128) exchanging jobs under AWF with
EASY, writes the per-job file, loads it with evalys unchanged and saves evalys's Gantt chart (jobs
coloured by their origin site, the prefix of the job id) and its utilisation and queue plot to
docs/img/.
"""

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from evalys.jobset import JobSet  # noqa: E402

import evogrid as eg  # noqa: E402
from evogrid.jobs_file import write_jobs  # noqa: E402

SCENARIO = "KTH@d60-63+SDSC00@d60-63"
#: Gantt colours by origin site: moved jobs show up in the other site's processor rows.
COLOURS = {"KTH@d60-63": "tab:blue", "SDSC00@d60-63": "tab:orange"}
IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def main() -> None:
    result = eg.simulate(eg.Scenario.from_spec(SCENARIO, lrms="easy"), eg.AcceptWhenFit())
    with tempfile.TemporaryDirectory() as tmp:
        jobs = JobSet.from_csv(str(write_jobs(Path(tmp) / "jobs.csv", result.schedule)))
    moved = int((result.schedule.moves > 0).sum())
    jobs.gantt(title=f"{SCENARIO}, AWF, EASY: processors 0-99 KTH, 100-227 SDSC-SP2; blue from KTH, "
                     f"orange from SDSC-SP2 ({moved} of {len(jobs.df)} jobs moved)",
               labeler=lambda job: "", colorer=lambda job, palette: COLOURS[str(job["jobID"]).split("!")[0]])
    plt.gcf().set_size_inches(12, 6)
    plt.savefig(IMG / "evalys_awf_gantt.png", dpi=90, bbox_inches="tight")
    plt.close("all")
    jobs.plot(title=f"{SCENARIO}, AWF, EASY: the grid's busy and queued processors (evalys)")
    plt.savefig(IMG / "evalys_awf_load.png", dpi=90, bbox_inches="tight")
    plt.close("all")
    print(f"wrote {IMG / 'evalys_awf_gantt.png'} and {IMG / 'evalys_awf_load.png'} ({len(jobs.df)} jobs)")


if __name__ == "__main__":
    main()
