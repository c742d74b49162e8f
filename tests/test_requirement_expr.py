"""Requirements with comparators and AND/OR/NOT in Beichter's job description language
(evogrid.sim.requirement_expr): parsing against a direct evaluation, and the grid keeping them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_schedule

from evogrid.errors import ScenarioError
from evogrid.policy.strategies import Broker, simulate
from evogrid.sim.requirement_expr import describe, holds, parse
from evogrid.sim.scenario import Scenario

NAMES = ("os", "version", "arch")
VALUES = ("AIX", "Suse", "5", "5.1", "6", "x86")


def conditions():
    return st.tuples(st.just("REQ"), st.sampled_from(NAMES), st.sampled_from(("eq", "ne", "gr", "lo")),
                     st.sampled_from(VALUES))


trees = st.recursive(conditions(), lambda inner: st.one_of(
    st.tuples(st.sampled_from(("AND", "OR")), st.lists(inner, min_size=1, max_size=3)),
    st.tuples(st.just("NOT"), st.lists(inner, min_size=1, max_size=1))), max_leaves=8)


def xml(tree) -> str:
    if tree[0] == "REQ":
        return f'<REQUIREMENT NAME="{tree[1]}" VALUE="{tree[3]}" COMP="{tree[2]}"/>'
    return f"<{tree[0]}>" + "".join(xml(t) for t in tree[1]) + f"</{tree[0]}>"


def twin(tree, attrs) -> bool:
    """His 10.1.1 read directly: gr/lo on numbers only, eq/ne on numbers where both are numbers."""
    if tree[0] == "AND":
        return all(twin(t, attrs) for t in tree[1])
    if tree[0] == "OR":
        return any(twin(t, attrs) for t in tree[1])
    if tree[0] == "NOT":
        return not twin(tree[1][0], attrs)
    _, name, comp, value = tree
    if name not in attrs:
        return False
    try:
        have, want = float(attrs[name]), float(value)
        numeric = True
    except ValueError:
        have, want, numeric = attrs[name], value, False
    if comp in ("gr", "lo"):
        return numeric and (have > want if comp == "gr" else have < want)
    return (have == want) == (comp == "eq")


@settings(max_examples=1000, deadline=None)
@given(trees, st.dictionaries(st.sampled_from(NAMES), st.sampled_from(VALUES)))
def test_parsed_expressions_judge_as_the_text_says(tree, attrs):
    expr = parse(xml(tree))
    assert holds(expr, attrs) == twin(tree, attrs)
    assert describe(parse(xml(tree))) == describe(expr)


def test_beichters_examples():
    example = ('<OR><AND><REQUIREMENT NAME="os" VALUE="Suse"/><REQUIREMENT NAME="os-version" VALUE="5.1"/>'
               '</AND><REQUIREMENT NAME="os" VALUE="AIX" /></OR>')
    expr = parse(example)
    assert describe(expr) == "(os eq Suse AND os-version eq 5.1) OR os eq AIX"
    assert holds(expr, {"os": "AIX"}) and holds(expr, {"os": "Suse", "os-version": "5.10"})
    assert not holds(expr, {"os": "Suse", "os-version": "5.2"})
    newer = parse('<REQUIREMENT NAME="os-version" VALUE="5.1" COMP="gr"/>')
    assert holds(newer, {"os-version": "6"}) and not holds(newer, {"os-version": "5"})
    listing = parse('<REQUIREMENT NAME="os">AIX</REQUIREMENT><REQUIREMENT NAME="arch">PowerPC</REQUIREMENT>')
    assert describe(listing) == "os eq AIX AND arch eq PowerPC"  # several at the top: all of them


SITES = """
lrms = "easy"
[[sites]]
window = "KTH@0-1"
attributes = { arch = "x86", mem_gb = "64" }
[[sites]]
window = "SDSC03@0-1"
attributes = { arch = "x86", mem_gb = "8" }
[[sites]]
window = "HPC2N@0-1"
attributes = { arch = "arm", mem_gb = "32" }
"""
EXPRESSION = """
[[requirements]]
expression = '''
<OR>
  <REQUIREMENT NAME="mem_gb" VALUE="16" COMP="gr"/>
  <NOT><REQUIREMENT NAME="arch" VALUE="x86"/></NOT>
</OR>'''
share = 0.6
"""


def test_the_grid_keeps_expression_requirements(tmp_path):
    path = tmp_path / "g.toml"
    path.write_text(SITES + EXPRESSION)
    scenario = Scenario.from_spec(str(path))
    jobs = scenario.grid_jobs()
    _, tags, hard, _ = jobs.site_arrays
    bit = 1 << 5  # after arch=x86, mem_gb=64, mem_gb=8, arch=arm, mem_gb=32
    assert [bool(t & bit) for t in tags] == [True, False, True]
    assert not (hard[jobs.origin == 1] & bit).any()  # SDSC03 does not meet it: its jobs are not drawn
    assert 0.5 < (hard[jobs.origin != 1] & bit > 0).mean() < 0.7
    schedule = simulate(scenario, Broker("mct")).schedule
    check_schedule(schedule)
    needs = hard & bit > 0
    assert (schedule.site[needs] != 1).all() and (schedule.moves[needs] > 0).any()


@pytest.mark.parametrize(("expression", "message"), [
    ('<REQUIREMENT NAME="os" VALUE="AIX" COMP="ge"/>', "COMP 'ge', expected one of"),
    ('<XOR><REQUIREMENT NAME="os" VALUE="AIX"/></XOR>', "unknown element <XOR>"),
    ('<NOT><REQUIREMENT NAME="a" VALUE="1"/><REQUIREMENT NAME="b" VALUE="1"/></NOT>', "exactly one operand"),
    ('<REQUIREMENT NAME="os" VALUE="AIX"', "not well-formed XML"),
    ('<REQUIREMENT NAME="os" REQUIRED="true">AIX</REQUIREMENT>', "REQUIRED is not NAME, VALUE or COMP"),
    ('<REQUIREMENT NAME="os" VALUE="BeOS"/>', "no site has it"),
])
def test_bad_expressions_are_one_line_errors_naming_the_file(tmp_path, expression, message):
    path = tmp_path / "bad.toml"
    path.write_text(SITES + f"[[requirements]]\nexpression = '{expression}'\nshare = 0.5\n")
    with pytest.raises(ScenarioError, match=message) as err:
        Scenario.from_spec(str(path))
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_requirements_read_from_the_swf_queue_field(tmp_path):
    """A requirement given to the jobs of listed SWF queues: exactly those jobs (with a home site
    that holds it) carry it, the grid keeps it, and a log without queues gives it to no job."""
    path = tmp_path / "q.toml"
    path.write_text(SITES.replace('window = "SDSC03@0-1"', 'window = "SDSC03@0-1"\nspeed = 1.0') + """
[[requirements]]
attribute = "arch"
value = "x86"
swf_field = "queue"
swf_values = [0, 3]
""")
    scenario = Scenario.from_spec(str(path))
    jobs = scenario.grid_jobs()
    _, _, hard, _ = jobs.site_arrays
    queue = np.array([jobs.workloads[o].queue[i] for o, i in zip(jobs.origin, jobs.index, strict=True)])
    sdsc = jobs.origin == 1
    assert np.isin(queue[sdsc], [0, 3]).any() and not np.isin(queue[sdsc], [0, 3]).all()
    assert ((hard[sdsc] & 1) > 0).tolist() == np.isin(queue[sdsc], [0, 3]).tolist()
    assert (queue[jobs.origin == 0] == -1).all() and not (hard[jobs.origin == 0] & 1).any()  # KTH: no queues
    schedule = simulate(scenario, Broker("mct")).schedule
    assert (schedule.site[hard & 1 > 0] != 2).all()


@pytest.mark.parametrize(("entry", "message"), [
    ('attribute = "arch"\nvalue = "x86"\n', "give either share"),
    ('attribute = "arch"\nvalue = "x86"\nshare = 0.5\nswf_field = "queue"\nswf_values = [1]\n',
     "give either share"),
    ('attribute = "arch"\nvalue = "x86"\nswf_field = "queue"\n', "swf_values: list"),
    ('attribute = "arch"\nvalue = "x86"\nswf_field = "group"\nswf_values = [1]\n', "swf_field"),
    ('attribute = "arch"\nshare = 0.5\n', "give both attribute and value"),
    ('attribute = "arch"\nvalue = "x86"\nexpression = \'<REQUIREMENT NAME="a" VALUE="1"/>\'\nshare = 0.5\n',
     "give either attribute and value, or expression"),
])
def test_bad_swf_requirements_are_one_line_errors(tmp_path, entry, message):
    path = tmp_path / "bad.toml"
    path.write_text(SITES + "[[requirements]]\n" + entry)
    with pytest.raises(ScenarioError, match=message) as err:
        Scenario.from_spec(str(path))
    assert str(path) in str(err.value) and "\n" not in str(err.value)


MEMORY_SITES = """
lrms = "easy"
[[sites]]
window = "LANL96@0-1"
attributes = { mem_kb = "LANL_KB" }
[[sites]]
window = "KTH@0-1"
attributes = { mem_kb = "8192" }
[[sites]]
window = "SDSC03@0-1"
attributes = { mem_kb = "1024" }
[[requirements]]
swf_field = "req_memory"
attribute = "mem_kb"
"""


def test_a_memory_demand_read_from_the_log_sends_jobs_only_where_it_fits(tmp_path):
    """SWF field 10 (requested memory per processor, KB) as a demand: a job may run only at a site
    whose mem_kb is at least it; jobs without it (KTH's, SDSC-BLUE's) are free. Under a broker
    some of LANL96's jobs move, and none lands where its memory does not fit."""
    path = tmp_path / "mem.toml"
    path.write_text(MEMORY_SITES.replace("LANL_KB", "32768"))
    scenario = Scenario.from_spec(str(path))
    jobs = scenario.grid_jobs()
    _, _, hard, _ = jobs.site_arrays
    demand = np.array([jobs.workloads[o].req_memory[i] for o, i in zip(jobs.origin, jobs.index, strict=True)])
    assert ((hard != 0) == (demand > 0)).all() and (demand[jobs.origin != 0] <= 0).all()
    schedule = simulate(scenario, Broker("mct")).schedule
    check_schedule(schedule)
    capacity = np.array([32768, 8192, 1024])
    ran = ~schedule.refused
    assert (demand[ran] <= capacity[schedule.site[ran]]).all()
    moved = ran & (jobs.origin == 0) & (schedule.site != 0)
    assert moved.any() and (demand[moved] > 0).any()
    assert ((demand > 8192) & ran).any() and (schedule.site[(demand > 8192) & ran] == 0).all()


@pytest.mark.parametrize(("old", "new", "message"), [
    ("LANL_KB", "16384", "jobs of site 0 ask for more req_memory per processor than its mem_kb, though "
     "the log ran them there; give site 0 mem_kb >= 32768"),
    ('mem_kb"\n', 'mem_kb"\nvalue = "1"\n', "a demand read from the log takes attribute"),
    ('mem_kb"\n', 'mem_kb"\nshare = 0.5\n', "a demand read from the log takes attribute"),
    ('attribute = "mem_kb"', 'attribute = "disk_kb"', "no site has attribute disk_kb"),
    ('"8192"', '"lots"', "site attribute mem_kb = 'lots' is not a number"),
])
def test_bad_memory_demands_are_one_line_errors(tmp_path, old, new, message):
    path = tmp_path / "bad_mem.toml"
    path.write_text(MEMORY_SITES.replace(old, new).replace("LANL_KB", "32768"))
    with pytest.raises(ScenarioError, match=message) as err:
        Scenario.from_spec(str(path)).grid_jobs().site_arrays  # noqa: B018
    assert str(path) in str(err.value) and "\n" not in str(err.value)
