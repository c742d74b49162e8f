"""Batsim JSON workloads in: the same workload as its SWF, through simulate and train; one-line errors."""

import json

import pytest

import evogrid as eg
from evogrid.cli import main
from evogrid.errors import SWFFormatError
from evogrid.workload.batsim import parse_batsim
from evogrid.workload.preprocess import load_swf


def as_batsim(w, *, extra_profile: bool = False) -> dict:
    """A workload as Batsim JSON: one delay profile per job (ids "w0!<SWF number>")."""
    jobs, profiles = [], {}
    for n, (s, r, p, e) in enumerate(zip(w.submit, w.run_time, w.procs, w.estimate, strict=True)):
        profiles[f"p{n}"] = {"type": "delay", "delay": int(r)}
        jobs.append({"id": f"w0!{int(w.job_id[n])}", "subtime": int(s), "res": int(p), "walltime": int(e),
                     "profile": f"p{n}"})
    if extra_profile:  # a profile without a run time evogrid can use
        profiles["mpi"] = {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}
        jobs.append({"id": 999_999, "subtime": int(w.submit[-1]), "res": 1, "profile": "mpi"})
    return {"nb_res": int(w.machine_procs), "jobs": jobs, "profiles": profiles}


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_a_log_as_batsim_json_simulates_and_trains_as_the_log_does(tmp_path, capsys):
    kth, blue = eg.load_window("KTH@0-1"), eg.load_window("SDSC03@0-1")
    for name, w in (("kth", kth), ("blue", blue)):
        (tmp_path / f"{name}.json").write_text(json.dumps(as_batsim(w, extra_profile=name == "kth")))
    back = load_swf(tmp_path / "kth.json")
    assert back.dropped == {"run_time_nonpositive": 1}  # the parallel_homogeneous job, counted
    for field in ("submit", "run_time", "procs", "estimate", "job_id"):
        assert getattr(back, field).tolist() == getattr(kth, field).tolist(), field
    assert back.machine_procs == kth.machine_procs
    spec = f"{tmp_path / 'kth.json'}+{tmp_path / 'blue.json'}"
    code, out, err = run(capsys, "simulate", spec, "--lrms", "easy", "--strategy", "awf", "--json")
    assert code == 0, err
    from_json = [s["awrt"] for s in json.loads(out)["sites"]]
    code, out, err = run(capsys, "simulate", "KTH@0-1+SDSC03@0-1", "--lrms", "easy", "--strategy", "awf",
                         "--json")
    assert code == 0, err
    assert from_json == [s["awrt"] for s in json.loads(out)["sites"]]
    code, _, err = run(capsys, "train", spec, "--generations", "1", "--mu", "1", "--lambda", "2",
                       "--workers", "1", "--backend", "serial", "--out", str(tmp_path / "run"))
    assert code == 0, err
    assert list((tmp_path / "run" / "rulebases").glob("*.json"))


def _one_job(job: dict | None = None, delay: object = 5) -> str:
    """A one-job workload with ``job``'s fields changed and its delay profile's ``delay``."""
    fields = {"id": 1, "subtime": 0, "res": 1, "profile": "p", **(job or {})}
    return json.dumps({"nb_res": 4, "jobs": [fields], "profiles": {"p": {"type": "delay", "delay": delay}}})


BAD = {
    "truncated": ('{"nb_res": 4, "jobs": [', "bad.json:1: not valid JSON"),
    "no nb_res": ('{"jobs": [], "profiles": {}}', "bad.json: nb_res: Field required"),
    "zero resources": (_one_job({"res": 0}), "bad.json: jobs.0.res"),
    "negative submit": (_one_job({"subtime": -3}), "bad.json: jobs.0.subtime"),
    "unknown profile": (_one_job({"profile": "q"}), "jobs.0.profile: unknown profile 'q'"),
    "negative delay": (_one_job(delay=-5), "profiles.p.delay"),
    "text delay": (_one_job(delay="long"), "profiles.p.delay"),
    "huge walltime": (_one_job({"walltime": 1e23}), "jobs.0.walltime"),
    "not an object": ("[1, 2, 3]", "bad.json: (top level)"),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_a_bad_batsim_workload_is_one_line_naming_file_and_field(tmp_path, capsys, case):
    text, fragment = BAD[case]
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(SWFFormatError, match="bad.json"):
        parse_batsim(path)
    code, _, err = run(capsys, "simulate", str(path))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("evogrid: error: "), err
    assert fragment in lines[0], lines[0]
