"""The shipped policies in trained_rulebases/: valid, documented, and reproducing their training AWRT."""

from collections import defaultdict
from pathlib import Path

import pytest

from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import FuzzyPolicy, simulate
from evogrid.sim.scenario import Scenario

SHIPPED = Path(__file__).resolve().parents[1] / "trained_rulebases"
FILES = sorted(SHIPPED.glob("*.json"))
PROVENANCE = {"site", "m", "partner", "trained_on", "lrms", "optimizer", "generations", "seed",
              "fitness_awrt", "evogrid", "created", "run"}


def test_policies_are_shipped():
    assert len(FILES) >= 6, "trained_rulebases/ should hold the pairwise and co-evolved policies"


def _groups() -> dict[tuple[str, str], list[Rulebase]]:
    """Rulebases that were trained together: by (training scenario, kind)."""
    groups = defaultdict(list)
    for f in FILES:
        rb = Rulebase.load(f)
        groups[rb.provenance["trained_on"], rb.provenance["kind"]].append(rb)
    return groups


@pytest.mark.parametrize("key", sorted(_groups()), ids=lambda k: f"{k[1]}-{k[0]}")
def test_shipped_rulebases_reproduce_their_training_awrt(key):
    """Applied where they were trained (partner AWF for EFS; together for co-evolution),
    each rulebase gives exactly the AWRT recorded as its fitness."""
    rulebases = _groups()[key]
    for rb in rulebases:
        assert set(rb.provenance) >= PROVENANCE, PROVENANCE - set(rb.provenance)
    trained_on, _ = key
    lrms = rulebases[0].provenance["lrms"]
    sc = Scenario.from_spec(trained_on, lrms=lrms)
    names = [w.name for w in sc.workloads]
    for group in ([rulebases] if key[1] == "coevolution" else [[rb] for rb in rulebases]):
        policy = FuzzyPolicy({names.index(rb.provenance["site"]): rb for rb in group},
                             location="awrt" if len(names) > 2 else "fixed")
        rows = simulate(sc, policy).metrics()
        for rb in group:
            awrt = rows[names.index(rb.provenance["site"])]["awrt"]
            assert awrt == pytest.approx(rb.provenance["fitness_awrt"], abs=0.01)
