"""The Lublin-Feitelson and Tsafrir models against the moments their published parameters imply,
over seeds (docs/workload_models.md): python experiments/workload_models/moments.py [--seeds 5]."""

import argparse
import math

import numpy as np
from scipy import stats

from evogrid.workload.lublin import (
    BATCH,
    BATCH_CODE,
    INTERACTIVE,
    INTERACTIVE_CODE,
    MAX_LOG_RUN_TIME,
    bucket_weights,
    lublin99,
)
from evogrid.workload.tsafrir import HEAD, HEAD_SHARE, distinct_values, tsafrir05


def truncated_mean(shape: float, scale: float) -> float:
    """E[g | g <= 12] for g ~ Gamma(shape, scale): the model draws again above 12."""
    return float(stats.gamma(shape, scale=scale).expect(lambda x: x, ub=MAX_LOG_RUN_TIME, conditional=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=100_000)
    args = parser.parse_args()
    rows: dict[str, list[float]] = {}
    implied: dict[str, float] = {}
    for seed in range(args.seeds):
        jobs = lublin99(args.jobs, 128, seed=seed)
        for code, c, name in ((INTERACTIVE_CODE, INTERACTIVE, "interactive"), (BATCH_CODE, BATCH, "batch")):
            mine = jobs.job_class == code
            p = min(max(c.pa + c.pb, 0.0), 1.0)
            implied[f"{name}: serial share"] = c.serial
            implied[f"{name}: mean ln(run time) of serial jobs"] = (p * truncated_mean(c.a1, c.b1)
                                                                   + (1 - p) * truncated_mean(c.a2, c.b2))
            implied[f"{name}: share of the busiest half-hour"] = float(bucket_weights(c).max() / 48)
            serial = mine & (jobs.procs == 1)
            share = np.bincount((jobs.submit[mine] % 86_400) // 1800, minlength=48) / mine.sum()
            for key, value in ((f"{name}: serial share", float(serial.sum() / mine.sum())),
                               (f"{name}: mean ln(run time) of serial jobs",
                                float(np.log(jobs.run_time[serial] + 0.5).mean())),
                               (f"{name}: share of the busiest half-hour",
                                float(share[np.argmax(bucket_weights(c))]))):
                rows.setdefault(key, []).append(value)
        est = tsafrir05(jobs.run_time, 48 * 3600, seed=seed)
        top = sorted(est.histogram.values(), reverse=True)[:HEAD]
        implied["estimates: share of the 20 most popular values (%)"] = HEAD_SHARE
        implied["estimates: distinct values"] = distinct_values(args.jobs)
        rows.setdefault("estimates: share of the 20 most popular values (%)", []).append(
            100 * sum(top) / args.jobs)
        rows.setdefault("estimates: distinct values", []).append(len(est.histogram))
    print(f"| quantity | implied by the published parameters | measured, mean +- sd over {args.seeds} seeds "
          f"({args.jobs} jobs, 128 processors) | difference |")
    print("|---|---:|---:|---:|")
    for key, values in rows.items():
        mean, sd = float(np.mean(values)), float(np.std(values, ddof=1)) if len(values) > 1 else math.nan
        print(f"| {key} | {implied[key]:.4f} | {mean:.4f} +- {sd:.4f} | {mean - implied[key]:+.4f} |")


if __name__ == "__main__":
    main()
