"""Cankar's parameter study (dissertation, 3.4, Fig. 3.2): M_init, L1 and L2 of his collective
co-allocation (docs/coallocation.md, "His parameter study").

- **M_init** (Fig. 3.2a), one discovery pass (M_max = M_init, as he measured), requests for 15 nodes
  ("Za določanje parametra M_init smo uporabili množico 15 vozlišč"): the requests solved, and the
  time of a request without a solution, for M_init in {2, 3, 4, 6}. His reading: M_init = 3 finds
  50 % more solutions than 2 and 7 % fewer than 4, and 4 takes 60 % more time where nothing is found.
- **L1** (Figs. 3.2b, c): the cases whose start differs between runs of the algorithm (his "število
  primerov, ki jim variirata začetni čas rešitve"), and the time per request, for L1 from 2 to 70.
- **L2** (Fig. 3.2d): the mean and the largest standard deviation of a case's efficiency between
  runs, for L2 from 2 to 70.

For L1 and L2 each case is run ``--runs`` times with different algorithm seeds on the same
discovered nodes (phase I fixed, so only phases IV and V vary); the other parameter at his value
(L1 = 7, L2 = 10, M_init = M_max = 3). Cases: his 540 (90 per N in {2, 5, 10, 15, 30, 60}) on a
PlanetLab-like pool of 606 nodes at mean utilisation ``--load`` (0.5), collective requests, per
pool seed.

Run: ``.venv/bin/python experiments/cankar_parameters.py [--seeds 5] [--runs 5]`` (a few minutes).
Writes ``experiments/results/cankar_parameters/tables.md``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from cankar_collective import mean_sd

from evogrid.nodes import CankarLimits, co_allocate, discovered, planetlab_like
from evogrid.nodes.request import NODE_COUNTS, cankar_cases

OUT = Path(__file__).parent / "results" / "cankar_parameters"
CASES = 90
M_VALUES = (2, 3, 4, 6)
L_VALUES = (2, 3, 5, 7, 10, 15, 20, 30, 50, 70)
HIS = CankarLimits()  # M_init = M_max = 3, L1 = 7, L2 = 10


def timed(pool, request, limits, seed, nodes=None):
    """The placement and its time (ms)."""
    t0 = time.perf_counter()
    placement = co_allocate(pool, request, limits, seed, nodes=nodes)
    return placement, (time.perf_counter() - t0) * 1000


def m_init_study(pool, seed: int) -> dict[int, dict]:
    """Per M_init: requests solved (of 90 for 15 nodes) and the mean time with and without a solution."""
    cases = [pair[1] for pair in cankar_cases(pool, 15, CASES, seed=1000 * seed + 15)]
    out = {}
    for m in M_VALUES:
        limits = HIS.model_copy(update={"m_init": m, "m_max": m})
        runs = [timed(pool, request, limits, 100_000 * seed + case) for case, request in enumerate(cases)]
        solved = [ms for placement, ms in runs if placement.placed]
        unsolved = [ms for placement, ms in runs if not placement.placed]
        out[m] = {"solved": len(solved), "ms_solved": statistics.fmean(solved) if solved else float("nan"),
                  "ms_unsolved": statistics.fmean(unsolved) if unsolved else float("nan")}
    return out


def l_study(pool, seed: int, runs: int) -> dict[str, dict[int, dict]]:
    """Per L1 (L2 at 10) and per L2 (L1 at 7): cases whose start varies between ``runs`` runs, the
    mean time per request, and the mean and largest standard deviation of a case's efficiency."""
    cases = [(n, case, pair[1]) for n in NODE_COUNTS
             for case, pair in enumerate(cankar_cases(pool, n, CASES, seed=1000 * seed + n))]
    found = [discovered(pool, request, HIS, 100_000 * seed + 1000 * n + case) for n, case, request in cases]
    out: dict[str, dict[int, dict]] = {"l1": {}, "l2": {}}
    for which in out:
        for value in L_VALUES:
            limits = HIS.model_copy(update={which: value})
            varied, ms, spreads = 0, [], []
            for (n, case, request), nodes in zip(cases, found, strict=True):
                base = 100_000 * seed + 1000 * n + case
                placed = [timed(pool, request, limits, 10_000_000 * r + base, nodes) for r in range(runs)]
                ms += [t for _, t in placed]
                starts = {p.start_s for p, _ in placed}
                varied += len(starts) > 1
                if all(p.placed for p, _ in placed):
                    spreads.append(statistics.pstdev(p.efficiency for p, _ in placed))
            out[which][value] = {"varied": varied, "ms": statistics.fmean(ms),
                                 "sd_mean": statistics.fmean(spreads), "sd_max": max(spreads)}
    return out


def report(m_rows: list[dict], l_rows: list[dict], runs: int, load: float) -> str:
    seeds = len(m_rows)
    text = [f"# Cankar's Fig. 3.2: M_init, L1, L2 (pool load {load}, mean ± sd over {seeds} pool seeds)", "",
            "## M_init (Fig. 3.2a): 90 requests for 15 nodes, one pass (M_max = M_init)", "",
            "| M_init | solved (of 90) | ms per request, solved | ms per request, not solved |",
            "|---|---|---|---|"]
    for m in M_VALUES:
        text.append(f"| {m} | {mean_sd([r[m]['solved'] for r in m_rows], 1)} | "
                    f"{mean_sd([r[m]['ms_solved'] for r in m_rows], 3)} | "
                    f"{mean_sd([r[m]['ms_unsolved'] for r in m_rows], 3)} |")
    solved = {m: statistics.fmean(r[m]["solved"] for r in m_rows) for m in M_VALUES}
    unsolved_ms = {m: statistics.fmean(r[m]["ms_unsolved"] for r in m_rows) for m in M_VALUES}
    text += ["", "| his reading | ours | his |", "|---|---|---|",
             f"| solutions, M_init 3 against 2 | {100 * (solved[3] / solved[2] - 1):+.0f} % | +50 % |",
             f"| solutions, M_init 3 against 4 | {100 * (solved[3] / solved[4] - 1):+.0f} % | -7 % |",
             f"| time without a solution, M_init 4 against 3 | "
             f"{100 * (unsolved_ms[4] / unsolved_ms[3] - 1):+.0f} % | +60 % |", ""]
    for which, other in (("l1", "L2 = 10"), ("l2", "L1 = 7")):
        text += [f"## {which.upper()} (Figs. 3.2b-d), {other}: 540 cases, {runs} runs each on the same "
                 "discovered nodes", "",
                 f"| {which.upper()} | cases whose start varies | ms per request | efficiency sd, mean "
                 "| efficiency sd, largest |", "|---|---|---|---|---|"]
        for value in L_VALUES:
            rows = [r[which][value] for r in l_rows]
            text.append(f"| {value} | {mean_sd([r['varied'] for r in rows], 1)} | "
                        f"{mean_sd([r['ms'] for r in rows], 3)} | "
                        f"{mean_sd([r['sd_mean'] for r in rows], 4)} | "
                        f"{mean_sd([r['sd_max'] for r in rows], 4)} |")
        text.append("")
    return "\n".join(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="pool seeds")
    parser.add_argument("--runs", type=int, default=5, help="algorithm seeds per case (L1, L2)")
    parser.add_argument("--load", type=float, default=0.5, help="the nodes' mean utilisation")
    args = parser.parse_args()
    small = planetlab_like(60, seed=0)
    co_allocate(small, cankar_cases(small, 2, 1, 0)[0][1])  # compile before the timing
    m_rows, l_rows = [], []
    for seed in range(1, args.seeds + 1):
        pool = planetlab_like(seed=seed, load=args.load)
        m_rows.append(m_init_study(pool, seed))
        l_rows.append(l_study(pool, seed, args.runs))
        print(f"pool seed {seed} done", flush=True)
    text = report(m_rows, l_rows, args.runs, args.load)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "tables.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
