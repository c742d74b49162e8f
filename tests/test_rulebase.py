"""The TSK rulebase: evaluators agree, membership matches scikit-fuzzy, JSON round trip and validation."""

import json

import numpy as np
import pytest
import skfuzzy
from hypothesis import given, settings
from hypothesis import strategies as st

from evogrid.errors import ScenarioError
from evogrid.policy.rulebase import SCHEMA_PATH, Rulebase, RulebaseError, json_schema
from evogrid.policy.strategies import pool_for_sites
from evogrid.sim.tsk import TSKStack, tsk_output


def _compiled(rb: Rulebase, x: np.ndarray) -> np.ndarray:
    stack = TSKStack.stack([rb.arrays()])
    return np.array([tsk_output(stack.params, stack.meta, 0, p) for p in x])


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_compiled_and_numpy_evaluators_agree(n_rules, seed):
    rb = Rulebase.random(n_rules, ("NWP", "NJP", "UTIL"), seed=seed)
    x = np.random.default_rng(seed).uniform(-5, 15, size=(64, 3))
    y_numpy, y_compiled = rb.output(x), _compiled(rb, x)
    np.testing.assert_allclose(y_compiled, y_numpy, rtol=1e-12, atol=1e-12)
    clear = np.abs(y_numpy) > 1e-9  # decisions can only differ within rounding of 0
    assert ((y_compiled > 0) == (y_numpy > 0))[clear].all()


def test_membership_is_skfuzzy_gaussmf_with_sigma_w_over_sqrt2():
    """g(x) = exp(-(x - c)^2 / w^2); scikit-fuzzy's gaussmf uses exp(-(x - c)^2 / (2 sigma^2))."""
    rng = np.random.default_rng(0)
    x = np.linspace(0, 10, 101)
    for _ in range(20):
        c, w = rng.uniform(0, 10), rng.uniform(0.1, 4)
        rb = Rulebase.from_arrays([[c]], [[w]], [1.0], ("NWP",))
        # One rule: y is its consequent; the firing strength itself is phi = exp(e).
        d = x - rb.centers[0, 0]
        ours = np.exp(-d * d / (rb.widths[0, 0] ** 2))
        np.testing.assert_allclose(ours, skfuzzy.gaussmf(x, c, w / np.sqrt(2)), rtol=1e-12)
        # Two rules with opposite consequents: y = (g1 - g2) / (g1 + g2) with skfuzzy's g.
        rb2 = Rulebase.from_arrays([[c], [c + 1]], [[w], [w * 2]], [1.0, -1.0], ("NWP",))
        g1 = skfuzzy.gaussmf(x, c, w / np.sqrt(2))
        g2 = skfuzzy.gaussmf(x, c + 1, 2 * w / np.sqrt(2))
        # (Where both underflow, the naive quotient is 0/0 and ours is the nearest rule's.)
        ok = g1 + g2 > 1e-200
        naive = np.divide(g1 - g2, g1 + g2, out=np.full_like(g1, np.nan), where=ok)
        np.testing.assert_allclose(rb2.output(x[ok, None]), naive[ok], atol=1e-9)


def test_silent_rules_never_divide_by_zero_and_the_nearest_rule_decides():
    rb = Rulebase.from_arrays([[0.0, 0.0], [1.0, 1.0]], [[1e-3, 1e-3], [1e-3, 1e-3]], [1.0, -1.0])
    far = np.array([[1e6, 1e6], [-1e6, -1e6], [0.9, 0.9]])
    # Every phi underflows to 0 in plain arithmetic; the shifted form picks the nearest rule.
    assert np.exp(-((far[0] - 1.0) ** 2).sum() / 1e-6) == 0.0
    for y in (rb.output(far), _compiled(rb, far)):
        assert np.isfinite(y).all()
        assert y.tolist() == [-1.0, 1.0, -1.0]


def test_json_round_trip(tmp_path):
    rb = Rulebase.random(10, seed=7).with_provenance(site="KTH", partner_m=1152)
    path = rb.save(tmp_path / "rb.json")
    back = Rulebase.load(path)
    assert back.features == rb.features
    for name in ("centers", "widths", "consequents", "ranges"):
        np.testing.assert_array_equal(getattr(back, name), getattr(rb, name))
    assert back.provenance["site"] == "KTH" and "created" in back.provenance
    x = np.random.default_rng(1).uniform(0, 10, (100, 2))
    assert (back.output(x) == rb.output(x)).all()


def test_a_failed_save_leaves_the_old_file_and_no_temporary(tmp_path):
    path = Rulebase.random(3, seed=1).save(tmp_path / "rb.json")
    before = path.read_bytes()
    with pytest.raises(TypeError):
        Rulebase.random(3, seed=2).with_provenance(bad=object()).save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["rb.json"]


def test_shipped_schema_matches_the_model():
    assert json.loads(SCHEMA_PATH.read_text()) == json_schema()


BAD = [
    ({"format": "other"}, "format"),
    ({"features": [{"name": "NOPE", "range": [0, 1]}, {"name": "NJP", "range": [0, 1]}]}, "unknown feature"),
    ({"rules": [{"centers": [1.0], "widths": [1.0, 1.0], "consequent": 1}]}, "needs 2 centers"),
    ({"rules": [{"centers": [1.0, 0.1], "widths": [0.0, 1.0], "consequent": 1}]}, "widths"),
    ({"rules": [{"centers": [1.0, 0.1], "widths": [1.0, 1.0], "consequent": 0}]}, "consequent"),
    ({"extra_key": 1}, "unknown key"),
    ({"features": [{"name": "NWP", "range": [5, 1]}, {"name": "NJP", "range": [0, 1]}]}, "low < high"),
]


@pytest.mark.parametrize(("patch", "message"), BAD)
def test_bad_files_are_rejected_with_the_field(tmp_path, patch, message):
    data = Rulebase.random(3, seed=1).to_dict() | patch
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RulebaseError, match=message) as info:
        Rulebase.load(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                 max_size=4)))
def test_fuzzed_json_never_crashes_the_loader(data):
    try:
        Rulebase.from_dict(data, source="fuzz")
    except RulebaseError as exc:
        assert str(exc).startswith("fuzz")


def test_pool_for_sites_unknown_sites():
    """A site of an untrained size runs the others' policy, or takes the nearest trained size's rulebases."""
    pool = [Rulebase.random(3, seed=s).with_provenance(m=m, partner_m=p)
            for s, (m, p) in enumerate([(100, 430), (100, 1664), (430, 100), (1664, 100)])]
    assert sorted(pool_for_sites(pool, [100, 128, 1664])) == [0, 2]
    nearest = pool_for_sites(pool, [100, 128, 1000, 1664], unknown_sites="nearest")
    assert nearest[1] == pool[:2] and nearest[2] == [pool[2]] and nearest[3] == [pool[3]]
    with pytest.raises(ScenarioError, match="unknown_sites"):
        pool_for_sites(pool, [100], unknown_sites="all")
