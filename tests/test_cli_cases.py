"""The CLI over a table of mistakes a user makes: every case exits 0 or 2, never with a traceback,
and a mistake is one line on stderr naming the option, file or field (docs/cli.md).

The table covers every command, numeric options at and beyond their ranges, nonsense
combinations, unwritable paths and damaged run directories. A case runs ``evogrid.cli.main`` in
this process, so an exception that escapes it (a bug) fails the test with its traceback.
"""

import shutil

import pytest

from evogrid.cli import main

TINY_TRAIN = ["KTH@0-1+SDSC03@0-1", "--generations", "1", "--mu", "1", "--lambda", "2", "--workers", "1",
              "--backend", "serial"]
TINY_PARETO = ["KTH@0-1+SDSC03@0-1", "--pop-size", "4", "--generations", "1", "--n-changes", "10",
               "--workers", "1", "--backend", "serial"]


def run(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Finished tiny runs, damaged copies of them, and input files the cases name."""
    root = tmp_path_factory.mktemp("cli-cases")
    argv_train = ["train", *TINY_TRAIN, "--out", str(root / "train")]
    argv_pareto = ["pareto", *TINY_PARETO, "--out", str(root / "pareto")]
    for argv in (argv_train, argv_pareto):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0, argv
    checkpoint = next(p.name for p in (root / "train").iterdir() if p.name.startswith("checkpoint."))
    damaged = {
        "truncated": lambda data: data[: len(data) // 2],
        "empty": lambda data: b"",
        "random": lambda data: bytes(range(256)) * 8,
    }
    for name, damage in damaged.items():
        shutil.copytree(root / "train", root / name)
        target = root / name / checkpoint
        target.write_bytes(damage(target.read_bytes()))
    shutil.copytree(root / "train", root / "badtoml")
    (root / "badtoml" / "config.toml").write_text("scenario = [unclosed\n")
    shutil.copytree(root / "train", root / "typotoml")
    config = (root / "typotoml" / "config.toml").read_text()
    (root / "typotoml" / "config.toml").write_text(config.replace("generations", "generatoins"))
    (root / "afile").write_text("not a directory\n")
    (root / "reserving.toml").write_text('[[sites]]\nwindow = "KTH@0-1"\n[[sites]]\nwindow = "SDSC03@0-1"\n'
                                         '[reservations]\nworkload = "rw1"\n')
    (root / "badrules.toml").write_text('[[sites]]\nwindow = "KTH@0-1"\n[reservations]\nwindows = 0\n')
    (root / "reserving_awf.toml").write_text((root / "reserving.toml").read_text()
                                             + '[strategy]\nname = "awf"\n')
    (root / "limited.toml").write_text('[[sites]]\nwindow = "KTH@0-1"\n[[sites]]\nwindow = "SDSC03@0-1"\n'
                                       '[strategy]\nname = "broker"\ngrid_maxjobs = { 0 = 2 }\n')
    (root / "broken.toml").write_text("[[sites]\n")
    (root / "stale.toml").write_text('[[sites]]\nwindow = "KTH@0-1"\n[[sites]]\nwindow = "SDSC03@0-1"\n'
                                     '[strategy]\nname = "broker"\nrefresh_s = 2.5\n')
    (root / "batch.toml").write_text('[[sites]]\nwindow = "KTH@0-1"\n[[sites]]\nwindow = "SDSC03@0-1"\n'
                                     '[strategy]\nname = "broker"\nlocation = "olb"\nhandover = "batch"\n')
    (root / "capped.toml").write_text('[[sites]]\nwindow = "KTH@0-1"\n[[sites]]\nwindow = "SDSC03@0-1"\n'
                                      '[strategy]\nname = "broker"\nlocation = "olb"\n'
                                      'grid_cap = { 0 = true }\n')
    (root / "held.toml").write_text('[[sites]]\nwindow = "KTH@0-1"\n[[sites]]\nwindow = "SDSC03@0-1"\n'
                                    '[strategy]\nname = "broker"\nhandover = "hold"\n')
    (root / "guarded.toml").write_text('[[sites]]\nwindow = "KTH@0-1"\n[[sites]]\nwindow = "SDSC03@0-1"\n'
                                       '[strategy]\nname = "awf"\noutside_range = "awf"\n')
    (root / "big.swf").write_text("; MaxProcs: 16\n1 0 0 1e23 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    (root / "export").mkdir()
    return root


# (argv, expected exit code, fragments of the one error line)
CASES = [
    # ranges of the optimisation commands: 0 is never "the default"
    (["train", *TINY_TRAIN, "--generations", "0"], 2, ["--generations", "greater than or equal to 1"]),
    (["train", *TINY_TRAIN, "--mu", "0"], 2, ["--mu"]),
    (["train", *TINY_TRAIN, "--lambda", "0"], 2, ["--lambda"]),
    (["train", *TINY_TRAIN, "--rules", "0"], 2, ["--rules"]),
    (["train", *TINY_TRAIN, "--seed", "-1"], 2, ["--seed"]),
    (["train", *TINY_TRAIN, "--workers", "0"], 2, ["--workers", "0 workers"]),
    (["train", *TINY_TRAIN, "--site", "-1"], 2, ["--site"]),
    (["train", *TINY_TRAIN, "--site", "2"], 2, ["--site 2", "2 sites"]),
    (["train", *TINY_TRAIN, "--policy", "nope"], 2, ["--policy nope"]),
    (["train", *TINY_TRAIN, "--optimizer", "nope"], 2, ["--optimizer nope"]),
    (["train", *TINY_TRAIN, "--step-draw", "nope"], 2, ["--step-draw nope"]),
    (["coevolve", *TINY_TRAIN, "--step-draw", "nope"], 2, ["--step-draw nope"]),
    (["train", *TINY_TRAIN, "--feature", "NOPE"], 2, ["NOPE"]),
    (["train", *TINY_TRAIN, "--backend", "nope"], 2, ["backend"]),
    (["train", "--generations", "0", "KTH@0-1+SDSC03@0-1"], 2, ["--generations"]),
    (["coevolve", "KTH@0-1+SDSC03@0-1", "--generations", "0"], 2, ["--generations"]),
    (["coevolve", "KTH@0-1+SDSC03@0-1", "--mu", "0"], 2, ["--mu"]),
    (["coevolve", "KTH@0-1+SDSC03@0-1", "--lambda", "0"], 2, ["--lambda"]),
    (["coevolve", "KTH@0-1+SDSC03@0-1", "--seed", "-5"], 2, ["--seed"]),
    (["coevolve", "KTH@0-1+SDSC03@0-1", "--workers", "0"], 2, ["--workers"]),
    (["coevolve", "KTH@0-1+SDSC03@0-1", "--pick", "nope"], 2, ["--pick nope"]),
    (["pareto", *TINY_PARETO, "--pop-size", "0"], 2, ["--pop-size"]),
    (["pareto", *TINY_PARETO, "--pop-size", "1"], 2, ["--pop-size"]),
    (["pareto", *TINY_PARETO, "--generations", "0"], 2, ["--generations"]),
    (["pareto", *TINY_PARETO, "--seed", "-1"], 2, ["--seed"]),
    (["pareto", *TINY_PARETO, "--workers", "0"], 2, ["--workers"]),
    (["pareto", *TINY_PARETO, "--n-rules", "0"], 2, ["--n-rules"]),
    (["pareto", *TINY_PARETO, "--n-changes", "-1"], 2, ["--n-changes"]),
    (["pareto", *TINY_PARETO, "--mode", "nope"], 2, ["--mode nope"]),
    (["demo", "--generations", "0"], 2, ["--generations"]),
    (["demo", "--workers", "0"], 2, ["--workers"]),
    # nonsense combinations
    (["train", "KTH@0-1", "--generations", "1"], 2, ["KTH@0-1", "two sites"]),
    (["train", *TINY_TRAIN, "--test", "KTH@1-2"], 2, ["--test", "has 2 sites"]),
    (["coevolve", "KTH@0-1", "--generations", "1"], 2, ["two sites"]),
    (["pareto", "KTH@0-1", "--generations", "1"], 2, ["two sites"]),
    (["train", "{root}/reserving.toml", "--generations", "1"], 2, ["reserving.toml", "[reservations]"]),
    (["pareto", "{root}/reserving.toml", "--generations", "1"], 2, ["[reservations]"]),
    (["simulate", "{root}/reserving.toml", "--strategy", "awf"], 0, []),  # exchange with reservations
    # commands that run the sites without exchange refuse a [strategy] table they would ignore
    (["reserve", "{root}/reserving_awf.toml"], 2, ["reserving_awf.toml", "evogrid reserve", "[strategy]"]),
    (["train", "{root}/reserving_awf.toml", "--policy", "admission", "--generations", "1"], 2,
     ["train --policy admission", "[strategy]"]),
    (["pareto", "{root}/reserving_awf.toml", "--mode", "reservation", "--generations", "1"], 2,
     ["pareto --mode reservation", "[strategy]"]),
    (["pareto", "{root}/limited.toml", "--generations", "1"], 2, ["strategy.grid_maxjobs", "exact grid"]),
    (["simulate", "{root}/reserving.toml", "--strategy", "pool"], 2,
     ["reserving.toml", "not with the pool scheme"]),
    (["simulate", "{root}/badrules.toml"], 2,  # the rules' own types check the table
     ["badrules.toml", "reservations.windows", "greater than or equal to 1"]),
    (["train"], 2, ["SCENARIO", "--resume"]),
    (["pareto"], 2, ["SCENARIO", "--resume"]),
    # scenarios and windows
    (["simulate", "KTH+"], 2, ["'KTH+'", "site is missing"]),
    (["simulate", "+KTH@0-1"], 2, ["site is missing"]),
    (["simulate", "KTH@0-999"], 2, ["KTH@0-999", "past the end of the log", "at most 12"]),
    (["simulate", "KTH@5-3"], 2, ["A < B"]),
    (["simulate", "KTH-0"], 2, ["KTH-0: KTH-0 is not a row"]),
    (["simulate", "KTH@0-0"], 2, ["A < B"]),
    (["simulate", "NOPE-1"], 2, ["unknown trace 'NOPE'"]),
    (["simulate", "KTH@0-1", "--procs", "0"], 2, ["--procs"]),
    (["simulate", "KTH@0-1", "--seed", "-1"], 2, ["--seed"]),
    (["simulate", "KTH@0-1", "--lrms", "ljf"], 2, ["ljf"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "nope"], 2, ["nope"]),
    (["simulate", "{root}/missing.toml"], 2, ["missing.toml", "no such scenario file"]),
    (["simulate", "{root}/broken.toml"], 2, ["broken.toml", "invalid TOML"]),
    (["simulate", "{root}/big.swf"], 2, ["big.swf:2", "field 4 is out of range"]),
    (["simulate", "KTH@0-1", "--out", "{root}/afile/result.json"], 2, ["afile"]),
    (["simulate", "KTH@0-1", "--out", "/proc/evogrid/result.json"], 2, ["/proc/evogrid"]),
    (["simulate", "KTH@0-1", "--json"], 0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb", "--refresh-s", "30"],
     0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--refresh-s", "-1"], 2, ["--refresh-s"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "pool", "--refresh-s", "30"], 2,
     ["refresh_s", "not 'pool'"]),
    (["simulate", "{root}/stale.toml"], 2, ["stale.toml", "strategy.refresh_s"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "beichter-new",
      "--handover", "when-room", "--refresh-s", "30"], 0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--handover", "later"], 2,
     ["--handover later", "interactive", "when-room"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "awf", "--handover", "when-room"], 2,
     ["no site routes jobs"]),
    (["simulate", "{root}/held.toml"], 2, ["held.toml", "strategy.handover"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--grid-cap", "SDSC03@0-1=64", "--grid-cap", "0=10"], 0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--grid-cap", "1=x"], 2, ["--grid-cap"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--grid-cap", "NOPE=5"], 2,
     ["grid_cap: no site 'NOPE'"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--grid-cap", "1=-5"], 2,
     ["--grid-cap", "1 = '-5': expected whole processors >= 0"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb", "--grid-cap", "1=5",
      "--grid-cap", "SDSC03@0-1=6"], 2, ["site SDSC03@0-1 given twice"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--grid-cap", "1=5"], 2, ["every site keeps its jobs"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "beichter-old",
      "--grid-slots", "SDSC03@0-1=50"], 0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "beichter-old",
      "--grid-slots", "1=0"], 2, ["--grid-slots", "1 = 0: expected whole slots >= 1"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--grid-slots", "1=50", "--slot-rule", "read"], 2, ["slot_rule 'read' are read by", "not olb"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--grid-slots", "1=50"], 0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "beichter-new",
      "--grid-maxjobs", "SDSC03@0-1=5"], 0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "beichter-new",
      "--grid-maxjobs", "1=0"], 2, ["--grid-maxjobs", "1 = 0: expected whole jobs >= 1"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "beichter-old",
      "--grid-maxjobs", "1=5", "--slot-rule", "read"], 2,
     ["grid_maxjobs with slot_rule 'read' are read by the location policies beichter-new only"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--slot-rule", "read"], 2, ["slot_rule 'read' applies to grid_slots and grid_maxjobs, and none"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--grid-slots", "1=50", "--slot-rule", "strict"], 2, ["--slot-rule strict", "enforced", "read"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb", "--lrms", "conservative",
      "--grid-slots", "1=50"], 0, []),  # conservative backfilling passes over the jobs they hide
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "beichter-new",
      "--refusals", "keep"], 0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "beichter-new",
      "--refusals", "drop"], 2, ["--refusals drop", "refuse", "keep"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--refusals", "keep"], 2, ["refusals 'keep' applies to brokers", "beichter-old, beichter-new"]),
    (["simulate", "{root}/capped.toml"], 2,
     ["capped.toml", "strategy.grid_cap", "expected whole processors"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--grid-cap", "1"], 2,
     ["--grid-cap 1: expected SITE=PROCESSORS"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "min-min",
      "--handover", "batch", "--batch-s", "300"], 0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--handover", "batch"], 2, ["--batch-s 0", "handover 'batch' needs its interval"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--batch-s", "60"], 2, ["--batch-s 60", "applies to handover 'batch' only"]),
    (["simulate", "{root}/batch.toml"], 2, ["batch.toml", "strategy.batch_s", "needs its interval"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--batch-s", "0"], 2, ["--batch-s"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "min-min",
      "--handover", "batch", "--batch-jobs", "20"], 0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--handover", "batch", "--batch-jobs", "20", "--batch-s", "60"], 2, ["--batch-s 60", "one of them"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--batch-jobs", "20"], 2,
     ["--batch-jobs 20", "applies to handover 'batch' only"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--job-locations", "mct=0.3"], 0, []),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--job-locations", "mct"], 2,
     ["--job-locations mct", "NAME=SHARE"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--job-locations", "nope=0.3"], 2,
     ["--job-locations", "nope"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "broker", "--location", "olb",
      "--job-locations", "mct=0.7",
      "--job-locations", "least-load=0.6"], 2, ["job_locations", "sum to"]),
    (["simulate", "{root}/guarded.toml"], 2,
     ["guarded.toml", "strategy.outside_range", "rulebase strategy only"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--strategy", "awf", "--outside-range", "awf"], 2,
     ["--outside-range awf", "rulebase strategy only"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--rulebase", "trained_rulebases/pairwise/kth_vs_sdsc03.json",
      "--outside-range", "nope"], 2, ["--outside-range nope"]),
    (["simulate", "KTH@0-1+SDSC03@0-1", "--rulebase", "trained_rulebases/pairwise/kth_vs_sdsc03.json",
      "--outside-range", "awf"], 0, []),
    # reserve
    (["reserve", "KTH@d0-7+SDSC03@d0-7", "--hours", "200:100"], 2, ["--hours 200:100", "FROM < TO"]),
    (["reserve", "KTH@d0-7+SDSC03@d0-7", "--hours", "abc"], 2, ["--hours 'abc'"]),
    (["reserve", "KTH@d0-7+SDSC03@d0-7", "--hours", "-5:10"], 2, ["--hours -5:10"]),
    (["reserve", "KTH@d0-7+SDSC03@d0-7", "--gantt", "0"], 2, ["--gantt", "--out"]),
    (["reserve", "KTH@d0-7+SDSC03@d0-7", "--source", "-1"], 2, ["--source"]),
    (["reserve", "KTH@d0-7+SDSC03@d0-7", "--cost-weight", "-1"], 2, ["--cost-weight"]),
    (["reserve", "KTH@d0-7+SDSC03@d0-7", "--seed", "-1"], 2, ["--seed"]),
    (["reserve", "KTH@d0-7+SDSC03@d0-7", "--algorithm", "nope"], 2, ["nope"]),
    # other commands
    (["traces", "info", "KTH", "--procs", "0"], 2, ["--procs"]),
    (["traces", "info", "NOPE"], 2, ["unknown trace"]),
    (["traces", "generate", "{root}/m.swf", "--jobs", "0"], 2, ["--jobs"]),
    (["traces", "generate", "{root}/m.swf", "--procs", "0"], 2, ["--procs"]),
    (["traces", "generate", "{root}/m.swf", "--seed", "-1"], 2, ["--seed"]),
    (["traces", "generate", "{root}/m.swf", "--max-estimate", "600"], 2, ["--max-estimate", "3600"]),
    (["traces", "generate", "{root}/m.swf", "--no-estimates", "--max-estimate", "7200"], 2,
     ["--max-estimate", "--no-estimates"]),
    (["traces", "generate", "{root}/afile"], 2, ["afile exists", "--force"]),
    (["traces", "generate", "/proc/evogrid/m.swf", "--jobs", "10"], 2, ["/proc/evogrid"]),
    (["show", "{root}/missing.json"], 2, ["missing.json"]),
    (["plot", "{root}/missing"], 2, ["missing"]),
    (["nope"], 2, ["No such command"]),
    (["train", "--nope"], 2, ["--nope", "evogrid train --help"]),
    (["--version"], 0, []),
    # export: no silent overwrite, no escape from --to
    (["export", "{root}/missing"], 2, ["missing", "rulebases"]),
    (["export", "{root}/train", "--prefix", "../../x_"], 2, ["--prefix"]),
    (["export", "{root}/train", "--to", "{root}/afile"], 2, ["afile", "not a directory"]),
    (["export", "{root}/train", "--to", "/proc/evogrid"], 2, ["/proc/evogrid"]),
    # resuming: the run directory holds the settings; damaged directories are one-line errors
    (["train", "--resume", "{root}/missing"], 2, ["missing"]),
    (["train", "--resume", "{root}/export"], 2, ["export"]),
    (["train", "KTH@0-1+SDSC03@0-1", "--resume", "{root}/train"], 2, ["SCENARIO does not go with --resume"]),
    (["train", "--resume", "{root}/train", "--generations", "5"], 2, ["--generations does not go with"]),
    (["coevolve", "--resume", "{root}/train", "--seed", "2"], 2, ["--seed does not go with"]),
    (["pareto", "--resume", "{root}/pareto", "--pop-size", "8"], 2, ["--pop-size does not go with"]),
    (["pareto", "--resume", "{root}/train"], 2, ["train"]),
    (["train", "--resume", "{root}/pareto"], 2, ["pareto"]),
    (["train", "--resume", "{root}/truncated"], 2, ["truncated", "checkpoint"]),
    (["train", "--resume", "{root}/empty"], 2, ["empty", "checkpoint"]),
    (["train", "--resume", "{root}/random"], 2, ["random", "checkpoint"]),
    (["train", "--resume", "{root}/badtoml"], 2, ["badtoml", "config.toml"]),
    (["train", "--resume", "{root}/typotoml"], 2, ["typotoml", "config.toml"]),
    (["train", *TINY_TRAIN, "--out", "{root}/train"], 2, ["train", "--resume"]),
    (["train", *TINY_TRAIN, "--out", "{root}/afile"], 2, ["afile"]),
    (["train", *TINY_TRAIN, "--out", "/proc/evogrid"], 2, ["/proc/evogrid"]),
]


def test_the_table_is_long_enough():
    assert len(CASES) >= 60


@pytest.mark.parametrize(("argv", "expected", "fragments"), CASES,
                         ids=[" ".join(c[0])[:60] for c in CASES])
def test_case_exits_0_or_2_with_one_line(capsys, files, argv, expected, fragments):
    argv = [a.replace("{root}", str(files)) for a in argv]
    code, out, err = run(capsys, argv)
    assert "Traceback" not in err
    assert code == expected, (code, err)
    if expected == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("evogrid: error: "), err
        for fragment in fragments:
            assert fragment.replace("{root}", str(files)) in lines[0], (fragment, lines[0])


def test_export_copies_refuses_to_overwrite_and_overwrites_with_force(capsys, files, tmp_path):
    target = tmp_path / "copied"
    code, out, err = run(capsys, ["export", str(files / "train"), "--to", str(target), "--prefix", "a_"])
    assert code == 0, err
    copied = sorted(p.name for p in target.iterdir())
    assert copied and all(name.startswith("a_") for name in copied)
    before = (target / copied[0]).read_bytes()
    (target / copied[0]).write_text("precious\n")
    code, _, err = run(capsys, ["export", str(files / "train"), "--to", str(target), "--prefix", "a_"])
    assert code == 2 and "--force" in err
    assert (target / copied[0]).read_text() == "precious\n"
    code, _, err = run(capsys, ["export", str(files / "train"), "--to", str(target), "--prefix", "a_",
                                "--force"])
    assert code == 0, err
    assert (target / copied[0]).read_bytes() != b"precious\n" and len(before) > 100


def test_version_alone_and_debug_shows_the_traceback(capsys, monkeypatch):
    code, out, _ = run(capsys, ["--version"])
    assert code == 0 and out.startswith("evogrid ")
    monkeypatch.setenv("EVOGRID_DEBUG", "1")
    from evogrid.errors import ScenarioError

    with pytest.raises(ScenarioError, match="site is missing"):
        main(["simulate", "KTH+"])


def test_traces_info_prints_values_not_python_reprs(capsys):
    code, out, _ = run(capsys, ["traces", "info", "KTH"])
    assert code == 0
    assert "run_time_nonpositive 8" in out and "{" not in out and "None" not in out
