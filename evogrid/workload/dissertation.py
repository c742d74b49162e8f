"""The dissertation's logs as it cut them (docs/reproduction.md, "How the dissertation cut its logs").

Lepping's dissertation cuts every log of a scenario to the shortest one and
names the cut by a length label (``KTH-11``, ``SDSC03-13``, ``LANL96-24``).
Table 7.1 gives each cut's number of jobs and total area; measured against the
bundled logs, a cut is the log's first ``n`` jobs in submission order, where
CTC and LANL96 lack the jobs without a requested time. Table 7.3 splits the
"-11" cuts into the training months, "-5" (its first ``n`` jobs, about 150
days), and the test months, "-6" (the rest, rebased to day 150 or to its first job if earlier).
:func:`dissertation_cut` builds these workloads; :data:`TABLE_7_2` and
:data:`TABLE_7_3` hold the published single-site results the cuts are
checked against (tests/test_dissertation_windows.py,
experiments/dissertation_windows.py). In a scenario the window ``NAME-M`` (written out
``lepping:NAME-M``) is a cut (evogrid.workload.traces.load_window), ``lepping-cmax:NAME-M`` the cut
that gives Table 7.2's makespans where one exists (:data:`MAKESPAN_CUTS`); M x 30 days are
``NAME@0-M``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from evogrid.errors import ScenarioError
from evogrid.workload.model import Workload
from evogrid.workload.preprocess import Preprocessing
from evogrid.workload.traces import load_window

#: Table 7.1: jobs and SA (processor-seconds) per log and length label.
TABLE_7_1 = {
    ("KTH", 11): (28_479, 2_017_737_644), ("CTC", 11): (77_199, 8_279_369_703),
    ("LANL96", 11): (57_715, 16_701_881_984), ("LANL96", 13): (67_043, 19_467_626_464),
    ("LANL96", 24): (110_769, 35_426_509_344), ("SDSC00", 11): (29_810, 2_780_016_139),
    ("SDSC00", 24): (54_006, 6_656_350_775), ("SDSC03", 11): (65_584, 23_337_438_904),
    ("SDSC03", 13): (78_951, 27_410_557_560), ("SDSC03", 24): (176_268, 54_233_113_112),
    ("SDSC05", 11): (74_903, 29_392_365_928), ("SDSC05", 13): (84_876, 34_347_849_760),
}
#: Table 7.2: (AWRT s, U %, C_max s) under FCFS, EASY, LIST per log and length label.
TABLE_7_2 = {
    ("KTH", 11): ((418_171.98, 68.67, 29_381_344), (75_157.63, 68.72, 29_363_626),
                  (80_459.27, 68.72, 29_363_626)),
    ("CTC", 11): ((58_592.52, 65.70, 29_306_682), (52_937.96, 65.70, 29_306_682),
                  (53_282.02, 65.70, 29_306_682)),
    ("LANL96", 11): ((13_886.61, 55.65, 29_306_900), (12_442.02, 55.65, 29_306_355),
                     (13_082.10, 55.65, 29_307_464)),
    ("LANL96", 13): ((14_064.40, 56.24, 33_801_984), (12_467.61, 56.24, 33_802_986),
                     (13_178.91, 56.24, 33_802_986)),
    ("LANL96", 24): ((12_265.92, 55.54, 62_292_428), (11_105.15, 55.54, 62_292_428),
                     (11_652.44, 55.54, 62_292_428)),
    ("SDSC00", 11): ((266_618.82, 71.53, 30_361_813), (73_605.86, 73.94, 29_374_554),
                     (74_527.98, 73.96, 29_364_791)),
    # the table prints LIST's AWRT as "11.6260,72": 116,260.72 s (the EASY value is 112,040 s)
    ("SDSC00", 24): ((2_224_462.43, 75.39, 68_978_708), (112_040.42, 81.78, 63_591_452),
                     (116_260.72, 82.26, 63_618_662)),
    ("SDSC03", 11): ((72_417.87, 68.58, 29_537_543), (50_772.48, 68.74, 29_471_588),
                     (48_015.99, 68.87, 29_413_625)),
    ("SDSC03", 13): ((82_149.66, 69.92, 34_030_926), (54_546.90, 70.12, 33_932_665),
                     (52_012.84, 70.14, 33_921_090)),
    ("SDSC03", 24): ((166_189.54, 73.22, 64_299_555), (70_774.86, 73.91, 63_696_120),
                     (72_220.28, 73.91, 63_695_942)),
    ("SDSC05", 11): ((70_579.08, 60.12, 29_380_453), (54_953.84, 60.17, 29_357_277),
                     (53_403.51, 60.20, 29_339_408)),
    ("SDSC05", 13): ((72_690.44, 61.08, 33_793_591), (56_990.23, 61.08, 33_793_591),
                     (55_250.72, 61.08, 33_793_591)),
}
#: Table 7.3: jobs, and FCFS's (AWRT s, U %, C_max s), of the training ("-5") and test ("-6")
#: parts of the "-11" cuts.
TABLE_7_3 = {
    ("KTH", 5): (11_780, (488_387.49, 64.84, 13_765_377)),
    ("KTH", 6): (16_699, (99_236.27, 68.52, 16_420_782)),
    ("CTC", 5): (35_360, (57_897.77, 63.74, 13_009_718)),
    ("CTC", 6): (41_839, (59_118.15, 67.05, 16_346_403)),
    ("SDSC00", 5): (13_494, (67_717.23, 71.28, 12_965_572)),
    ("SDSC00", 6): (16_316, (413_957.04, 73.38, 17_002_360)),
    ("SDSC03", 5): (32_606, (83_718.68, 71.38, 13_021_659)),
    ("SDSC03", 6): (32_978, (62_825.76, 66.14, 16_577_054)),
    ("SDSC05", 5): (28_184, (56_925.10, 45.94, 13_078_215)),
    ("SDSC05", 6): (46_719, (77_463.52, 70.97, 16_419_455)),
}
#: The test months ("-6") begin on this day of the log.
TEST_START_DAY = 150
#: Logs whose Table 7.1 counts are those without the jobs that give no requested time.
WITHOUT_UNKNOWN_ESTIMATES = ("CTC", "LANL96")
#: Table 7.2 rows whose makespans the count cut misses but a cut a few jobs later gives exactly under
#: FCFS, EASY and LIST alike: its job count, the first such cut at or after Table 7.1's
#: (``experiments/dissertation_windows.py --makespans``; docs/reproduction.md, "Where the data allow
#: exact makespans"). Every other row's count cut gives them, but SDSC-BLUE's, where no cut does.
MAKESPAN_CUTS = {("KTH", 11): 28_481, ("SDSC05", 11): 74_916, ("SDSC05", 13): 84_889, ("SDSC00", 24): 54_017}
#: Logs no cut of which gives Table 7.2's makespans.
NO_MAKESPAN_CUT = ("SDSC03",)
#: ``dissertation_cut``'s ``by``: Table 7.1's job count (the default), or the makespans of Table 7.2.
CUT_BY = ("jobs", "makespans")


def dissertation_log(name: str) -> Workload:
    """The whole bundled log ``name`` as the dissertation's cuts read it (CTC and LANL96 without the
    jobs that give no requested time)."""
    return load_window(name, Preprocessing(drop_unknown_estimate=name in WITHOUT_UNKNOWN_ESTIMATES))


def jobs_in_order(log: Workload, first: int, last: int, name: str) -> Workload:
    """The jobs ``[first, last)`` of ``log`` in submission order (ties in log order), named ``name``."""
    keep = np.zeros(log.n_jobs, dtype=bool)
    keep[np.argsort(log.submit, kind="stable")[first:last]] = True
    return log.select(keep, name=name)


def dissertation_cut(name: str, months: int, by: str = "jobs") -> Workload:
    """The jobs of the row ``name-months`` of Table 7.1 (the log's first n jobs) or of Table 7.3
    ("-5": the first n jobs of the "-11" cut; "-6": the rest of it, rebased to day 150, or to its first
    job where that comes earlier). Jobs left
    out are counted in ``dropped`` (``after_cut``, ``before_test``). ``by="makespans"``: a Table 7.2
    row cut where its three makespans are exact (:data:`MAKESPAN_CUTS`; the window
    ``lepping-cmax:NAME-M``).

    Raises:
        ScenarioError: no such row, or no makespan cut for it.
    """
    if (name, months) not in TABLE_7_1 and (name, months) not in TABLE_7_3:
        rows = ", ".join(f"{n}-{m}" for n, m in [*TABLE_7_1, *TABLE_7_3])
        raise ScenarioError(f"{name}-{months} is not a row of the dissertation's Tables 7.1 and 7.3 ({rows})")
    if by not in CUT_BY:
        raise ValueError(f"dissertation_cut: by is one of {CUT_BY}, got {by!r}")
    if by == "makespans" and ((name, months) not in TABLE_7_2 or name in NO_MAKESPAN_CUT):
        why = ("no cut of the bundled log gives Table 7.2's makespans" if name in NO_MAKESPAN_CUT else
               "Table 7.3's training and test months are split by job count")
        raise ScenarioError(f"lepping-cmax:{name}-{months}: {why}; use lepping:{name}-{months}")
    w = dissertation_log(name)
    n = TABLE_7_1[name, 11 if months in (5, 6) else months][0]
    if by == "makespans":
        n = MAKESPAN_CUTS.get((name, months), n)
    n5 = TABLE_7_3[name, 5][0] if months in (5, 6) else 0
    first, last = {5: (0, n5), 6: (n5, n)}.get(months, (0, n))
    prefix = "lepping-cmax" if by == "makespans" else "lepping"
    cut = jobs_in_order(w, first, last, f"{prefix}:{name}-{months}")
    dropped = {**w.dropped, "after_cut": w.n_jobs - last, **({"before_test": first} if first else {})}
    # the test months start at day 150, or at their first job where the training cut falls just before
    shift = min(TEST_START_DAY * 86_400, int(cut.submit.min())) if months == 6 else 0
    return replace(cut, submit=cut.submit - shift, dropped=dropped)
