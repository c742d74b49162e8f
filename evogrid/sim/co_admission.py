"""Meltzer's co-reservation algorithms (compiled): when and on which sites a request's parts go.

A request has parts ``p_0 >= p_1 >= ...`` (processors), one per distinct
site, a common start and a duration ``d``. Its *candidate starts* are
``f, f + inc, ... <= deadline - d`` with ``inc = max(minsize, (deadline - d
- f) / windows)`` (f: the earliest start; Meltzer's exact division, each
start rounded down to a second, or ``// windows`` by ``C_STEP``:
:func:`candidate_starts`). A *variant* is a candidate start
and a site for each part. Part i *fits* site k at start s when k's
availability profile (running jobs to their estimated end, accepted
reservations) has ``p_i`` processors free over ``[s, s + d)`` and the
algorithm's admission rule lets the start in (its registry entry's flags,
evogrid.sim.admission, packed into ``config``: ``C_START_RULE``, ``C_RULED``,
``C_ASKS_PYTHON``):

- 1 ``trivial``, 2 ``cpu-count``: any start;
- 3 ``backlog``: ``s >= now + backlog_k(s)`` (evogrid.sim.reserving: by
  Meltzer's rule, ``BEFORE_START``, other reservations count only if they
  start before s; ``EVERY_HELD`` counts every held one);
- 4 ``backfill``, 5 ``weighted``: as 3, or the variant ends before the
  site's next scheduling event (Meltzer's t_sched: ``NEXT_EVENT``, the
  earliest estimated end of a running job or start or end of a held
  reservation; ``NEXT_END``, his 6.7.5's "nächsten Job- oder
  Reservierungs-Ende", ends only) or by its next planned start
  (``HEAD_FIT``: its queue head's earliest fit or its next reservation's
  start);
- 6 ``rulebase``: the site's TSK admission rulebase accepts part i at start s
  (``allow[i, k, c]``, computed by evogrid.sim.reserving from the
  site's state: a learned replacement for the fixed backlog rule);
- 9 ``python``: a Python admission policy's answer for part i at site k and
  start s (``allow[i, k, c]``, asked before the request is placed:
  evogrid.sim.python_policy.AdmissionPolicy).

Algorithms 1-4, 6 and 9 take the first variant in the order of the variant
tree, depth first. Level i of the tree places part i on a site not yet on
the path, at the start of the level above. The order of the tree's
branches (``C_ORDER``):

- ``TREE`` (Meltzer's, the default): the part variants (candidate start,
  site, part) are shuffled once per request (his ``randomize tr``, a seeded
  LCG, :func:`variant_tree`), and each level takes its variants in that
  order: the first part's (site, start) pairs in random order for
  Algorithms 1-3, 5 and 6, sorted by start (stable, so sites in random
  order within a start: his ``startsort (randomize tr)``) for Algorithm 4.
- ``TREE_SORTED``: the shuffled tree sorted by start for every algorithm (the
  start-optimising variants of Algorithms 2 and 3 his 6.8 compares).
- ``TREE_UNSORTED``: the shuffled tree unsorted for every algorithm; with
  ``backfill`` it is his 4.5 "Algorithmus 3: Optimierung durch
  Backfill-Reservierungen" (Algorithm 3 with backfill reservations, the
  backfill algorithm his 6.7 runs), of which Algorithm 4 is the start-sorted
  modification (4.6).
- ``BY_START``: candidate starts ascending, and at every level the sites in
  the request's order (a seeded permutation per request; evogrid's order
  before Meltzer's listing was read).

Algorithm 5 takes the variant with the least ``k * norm_cost + s *
norm_start`` (min-max normalised over all admissible variants of the
request; ties go to the first in the shuffled tree, as his bottom-up sort of the unsorted tree
keeps them), so ``k = 0, s = 1`` is Algorithm 4 (a stable sort by start keeps the shuffled order
within a start).

Messages count what the broker sends: Algorithm 1 asks each site it
reaches (yes/no, the restrictive information policy); 2-4 know the sites'
profiles and only send attempts that succeed (6 likewise: a site's rulebase
answers for it); every roll-back of a placed
part is one more message; Algorithm 5 sends one per part of its pick.

Costs: a site's tariff is a price per processor-hour for each hour of the
week (hour 0 starts at time 0); a variant costs the sum over its parts of
processors times the tariff integrated over ``[s, s + d)``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from evogrid.sim.collective import lcg_next, lcg_seed
from evogrid.sim.numba_stamp import njit
from evogrid.sim.profile import P_FREE, P_TIME

HOURS_PER_WEEK = 168
SECONDS_PER_HOUR = 3600
#: Rows of the float64 ``config`` array of an algorithm's parameters: Meltzer's, then probe/reserve's
#: (evogrid.sim.probe: start times per count, their least gap in s, the success estimate's code, its
#: h in s, the threshold, and N_PREFERENCES preference codes, -1 where unused).
C_ALGORITHM, C_MINSIZE, C_WINDOWS, C_COST_WEIGHT, C_START_WEIGHT = range(5)
C_TSN_MAX, C_TSS_GAP, C_ESTIMATE, C_SUCCESS_SECONDS, C_THRESHOLD, C_PREFERENCES = range(5, 11)
N_PREFERENCES = 4
#: ... and the collective placement's (evogrid.sim.collective: swaps per site of both phases, the seed).
C_L1 = C_PREFERENCES + N_PREFERENCES
C_L2, C_SEED = C_L1 + 1, C_L1 + 2
#: ... and Meltzer's variant order, backlog rule and backfill bound, each his (code 0) or ours (1).
C_ORDER, C_BACKLOG_RULE, C_BACKFILL_BOUND = C_SEED + 1, C_SEED + 2, C_SEED + 3
#: ... and the probe's load rule (Röblitz et al.'s T_wkl, code 0, or Meltzer's backlog, 1) with
#: their accuracies of running jobs' remaining times and of waiting jobs' wall times.
C_LOAD_RULE, C_ACC_RUNNING, C_ACC_WAITING = C_SEED + 4, C_SEED + 5, C_SEED + 6
#: How the probe places a count's start times (evogrid.sim.probe): ``SLOTS_COVER`` spreads them over
#: the request's window, ``SLOTS_EARLIEST`` packs them tss_gap apart from the earliest fit.
C_SLOTS = C_ACC_WAITING + 1
SLOTS_EARLIEST, SLOTS_COVER = 0, 1
#: ... and the history estimate's interval delta (s).
C_HISTORY_SECONDS = C_SLOTS + 1
#: ... and the admission algorithm's flags over the variant tree (evogrid.sim.admission.base.Algorithm:
#: ``asks_every_site``, ``start_rule``, ``start_sorted``, ``pick``, ``ruled``, ``asks_python``).
C_ASKS_EVERY_SITE, C_START_RULE, C_START_SORTED, C_PICK, C_RULED, C_ASKS_PYTHON = range(
    C_HISTORY_SECONDS + 1, C_HISTORY_SECONDS + 7)
#: ... and how the candidate starts' step is computed: ``FLOOR_STEP`` (ours) or ``DIVIDED_STEP`` (Meltzer's).
C_STEP = C_ASKS_PYTHON + 1
FLOOR_STEP, DIVIDED_STEP = 0, 1
#: ... and which waiting jobs a site's status answer counts (evogrid.sim.reserving.co_admit): its
#: queue head at its earliest fit (``STATUS_HEAD``: the job reservation Maui keeps for its first
#: waiting job, RESERVATIONDEPTH 1, at Meltzer's sites) or none (``STATUS_NONE``, evogrid's earlier one).
C_STATUS_QUEUE = C_STEP + 1
STATUS_NONE, STATUS_HEAD = 0, 1
N_CONFIG = C_STATUS_QUEUE + 1
#: Which candidate starts a site admits in the variant tree (evogrid.sim.reserving.admitted_starts):
#: ``any``; ``backlog``: none before now + the site's backlog (Meltzer's Algorithm 3);
#: ``backlog-or-backfill``: as ``backlog``, or the variant ends before the site's next planned start
#: (his Algorithms 4 and 5). ``C_START_RULE`` holds the place of the name.
START_RULES = ("any", "backlog", "backlog-or-backfill")
#: Which admissible variant the tree gives: ``first`` in tree order, or ``weighted``: the least
#: ``k * norm_cost + s * norm_start`` (his Algorithm 5). ``C_PICK`` holds the place of the name.
PICKS = ("first", "weighted")
#: The values the compiled code tests.
ANY_START, BACKLOG_OR_BACKFILL = START_RULES.index("any"), START_RULES.index("backlog-or-backfill")
WEIGHTED_PICK = PICKS.index("weighted")
TREE, BY_START, TREE_SORTED, TREE_UNSORTED = 0, 1, 2, 3
BEFORE_START, EVERY_HELD = 0, 1
NEXT_EVENT, HEAD_FIT, NEXT_END = 0, 1, 2
#: The probe's load rules (evogrid.sim.booking.LOAD_RULES): T_wkl with the running jobs' remaining run
#: times (Röblitz et al.'s j_ret), Meltzer's backlog, T_wkl with their time to their estimated end.
WORKLOAD_END, BACKLOG_CLEARS, WORKLOAD_END_ESTIMATED = 0, 1, 2


@njit(cache=True, inline="always")
def candidate_starts(earliest, latest, minsize, windows, step):
    """``(earliest, step, per, count)``: the candidate starts from ``earliest`` to ``latest`` (s), the
    c-th at ``earliest + c * step // per`` (:func:`start_at`), ``count`` of them.

    The step is ``max(minsize, span / windows)``; ``step`` (``C_STEP``) says how it divides:
    ``FLOOR_STEP`` in whole seconds, ``span // windows`` (ours; ``per`` 1), ``DIVIDED_STEP``
    Meltzer's division, exact, each start rounded down to a whole second: ``windows + 1`` starts
    where ``span / windows >= minsize``.
    """
    span = latest - earliest
    least = max(minsize, 1)
    if step == DIVIDED_STEP and span >= least * windows:
        return earliest, span, windows, windows + 1
    step = max(least, span // windows)
    return earliest, step, 1, span // step + 1


@njit(cache=True, inline="always")
def start_at(starts, c):
    """Candidate ``c``'s start (s) of ``starts`` (:func:`candidate_starts`)."""
    return starts[0] + c * starts[1] // starts[2]


@njit(cache=True, inline="always")
def fill_fits(profile, n, k, starts, duration, admitted, fit):
    """``fit[k, c]``: the fewest processors free over candidate c's ``[s, s + duration)`` on site
    k's profile (``n`` breakpoints, the first at or before every candidate), -1 where the
    admission rule refuses s (``admitted[c]`` false)."""
    i = 0
    for c in range(starts[3]):
        s = start_at(starts, c)
        while i + 1 < n and profile[P_TIME, i + 1] <= s:
            i += 1
        if not admitted[c]:
            fit[k, c] = -1
            continue
        low = profile[P_FREE, i]
        j = i + 1
        while j < n and profile[P_TIME, j] < s + duration:
            low = min(low, profile[P_FREE, j])
            j += 1
        fit[k, c] = low


@njit(cache=True, inline="always")
def price_before(tariff, cum, k, x):
    """Price of one processor at site k over ``[0, x)`` (x in seconds)."""
    week = SECONDS_PER_HOUR * HOURS_PER_WEEK
    weeks = x // week
    rest = x - weeks * week
    h = rest // SECONDS_PER_HOUR
    return weeks * cum[k, HOURS_PER_WEEK] + cum[k, h] + (rest - h * SECONDS_PER_HOUR) / 3600.0 * tariff[k, h]


@njit(cache=True, inline="always")
def interval_price(tariff, cum, k, a, b):
    """Price of one processor at site k over ``[a, b)`` (s)."""
    return price_before(tariff, cum, k, b) - price_before(tariff, cum, k, a)


class RequestParts(NamedTuple):
    """Request ``r``'s parts as the admission algorithms read them."""

    r: int  #: the request's index
    parts: np.ndarray  #: int64 (P, R): processors per part of every request, largest first, 0 past its last
    n: int  #: how many parts request ``r`` has


@njit(cache=True)
def unit_prices(r, orders, nsites, starts, duration, prices, n_sites):
    """``unit[c, k]``: a processor's price at site k (one of request ``r``'s ``nsites`` in
    ``orders``) over candidate c's ``[start, start + duration)``; shape (count, n_sites)."""
    tariff, cum = prices
    unit = np.empty((starts[3], n_sites))
    for c in range(starts[3]):
        start = start_at(starts, c)
        for o in range(nsites):
            k = orders[o, r]
            unit[c, k] = interval_price(tariff, cum, k, start, start + duration)
    return unit


@njit(cache=True, inline="always")
def variant_cost(unit_c, parts, r, nparts, variants, v):
    """The price of request ``r``'s parts on the sites of ``variants[v]`` at a candidate whose
    prices per processor and site are ``unit_c`` (a row of :func:`unit_prices`), part by part."""
    cost = 0.0
    for i in range(nparts):
        cost += parts[i, r] * unit_c[variants[v, i]]
    return cost


@njit(cache=True)
def variant_tree(r, orders, nsites, nparts, count, config, tree):
    """The order of request ``r``'s variant tree (module docstring); ``tree = (first, below)``:
    ``first`` (nsites * count, 2) gets the first part's (site, candidate) pairs in tree order,
    ``below[i, c, :nsites]`` the sites in the order level i tries them at candidate c.

    ``TREE``: the part variants, enumerated candidate, site (in the request's order), part, are
    shuffled by Fisher-Yates with the request's LCG (``lcg_seed(seed, r)``); a variant's rank
    in the shuffle orders its level. ``BY_START``: the request's site order everywhere.
    """
    first, below = tree
    if np.int64(config[C_ORDER]) == BY_START:
        for c in range(count):
            for o in range(nsites):
                first[c * nsites + o, 0] = orders[o, r]
                first[c * nsites + o, 1] = c
                for i in range(nparts):
                    below[i, c, o] = orders[o, r]
        return
    n = count * nsites * nparts
    shuffled = np.arange(n)
    rng = lcg_seed(np.int64(config[C_SEED]), r)
    for i in range(n - 1, 0, -1):
        draw, rng = lcg_next(rng)
        j = draw % (i + 1)
        shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
    # Algorithm 5 sorts the unsorted tree by its value (his 4.7.4: "Ein unsortierter Variantenbaum
    # wird analog zu dem in Algorithmus 1 verwendeten erzeugt"): ties keep the shuffled order.
    order = np.int64(config[C_ORDER])
    by_start = (config[C_START_SORTED] != 0 and order == TREE) or order == TREE_SORTED
    # Each level's sites at a candidate, and the first part's (site, candidate) pairs, in the order
    # of their variants' places in the shuffle: read off the shuffle in one pass (no sort).
    filled = np.zeros((nparts, count), dtype=np.int64)
    p_first = 0
    for p in range(n):
        v = shuffled[p]  # variant (c * nsites + o) * nparts + i
        i = v % nparts
        c = v // nparts // nsites
        k = orders[v // nparts % nsites, r]
        below[i, c, filled[i, c]] = k
        filled[i, c] += 1
        if i == 0 and not by_start:
            first[p_first, 0] = k
            first[p_first, 1] = c
            p_first += 1
    if by_start:  # startsort: candidates ascending, and at each the sites of level 0 in shuffle order
        for c in range(count):
            for o in range(nsites):
                first[c * nsites + o, 0] = below[0, c, o]
                first[c * nsites + o, 1] = c


@njit(cache=True)
def walk(root, request, fits, tree, nsites, trivial, stop_first, out, n_out):
    """Depth-first through the subtree of the first part at ``root = (site, candidate c)`` of
    ``request`` (a :class:`RequestParts`); returns ``(n_out, messages)``.

    ``fits = (fit,
    allow)``: part i fits site k at c when ``fit[k, c] >= parts[i, r]`` and,
    unless ``allow`` is empty (shape (0, 0, 0)), ``allow[i, k, c]``;
    ``tree = (below, used, pos)``: ``below[i, c]``, the sites in the order level i tries them
    (:func:`variant_tree`), and scratch space (K,) and (P,), reused across calls. With
    ``stop_first`` it stops at the first complete path, written to ``out[n_out]`` (then ``n_out
    + 1`` is returned); otherwise every complete path is appended to ``out`` (shape (V, P)).
    ``trivial``: every site reached is asked (Algorithm 1), else only those that fit.
    """
    fit, allow = fits
    below, used, pos = tree
    r, parts, nparts = request.r, request.parts, request.n
    c = root[1]
    ruled = allow.shape[0] > 0
    for k in range(used.shape[0]):
        used[k] = False
    messages = 0
    level = 0
    pos[0] = -1
    while level >= 0:
        pos[level] += 1
        if pos[level] == (1 if level == 0 else nsites):
            level -= 1
            if level >= 0:
                used[out[n_out, level]] = False
                messages += 1  # the part placed one level up is given back
            continue
        k = root[0] if level == 0 else below[level, c, pos[level]]
        if used[k]:
            continue
        ok = fit[k, c] >= parts[level, r] and (not ruled or allow[level, k, c])
        if trivial or ok:
            messages += 1
        if not ok:
            continue
        out[n_out, level] = k
        if level < nparts - 1:
            used[k] = True
            level += 1
            pos[level] = -1
            continue
        n_out += 1
        if stop_first:
            return n_out, messages
        for i in range(nparts):  # the next path starts from this one's prefix
            out[n_out, i] = out[n_out - 1, i]
    return n_out, messages


@njit(cache=True)
def cost_range(request, fits, orders, nsites, count, unit):
    """``(cheapest, dearest, first_c, last_c)`` over every admissible variant of ``request`` (a
    :class:`RequestParts`; ``fits`` as :func:`walk` takes them) among ``count`` candidates priced
    by ``unit`` (:func:`unit_prices`): the extreme prices, and the first and last candidate with a
    variant (-1 without any).

    The same variants as the tree's, enumerated candidate by candidate in the request's site
    order (the extremes do not depend on the order), each price summed part by part as
    :func:`variant_cost` sums it.
    """
    fit, allow = fits
    r, parts, nparts = request.r, request.parts, request.n
    ruled = allow.shape[0] > 0
    used = np.zeros(fit.shape[0], dtype=np.bool_)
    pos = np.empty(nparts, dtype=np.int64)
    cost = np.zeros(nparts + 1)  # cost[i]: the parts above level i
    cheapest, dearest = np.inf, -np.inf
    first_c = last_c = -1
    for c in range(count):
        found = False
        level = 0
        pos[0] = -1
        while level >= 0:
            pos[level] += 1
            if pos[level] == nsites:
                level -= 1
                if level >= 0:
                    used[orders[pos[level], r]] = False
                continue
            k = orders[pos[level], r]
            if used[k] or fit[k, c] < parts[level, r] or (ruled and not allow[level, k, c]):
                continue
            cost[level + 1] = cost[level] + parts[level, r] * unit[c, k]
            if level < nparts - 1:
                used[k] = True
                level += 1
                pos[level] = -1
                continue
            found = True
            cheapest = min(cheapest, cost[nparts])
            dearest = max(dearest, cost[nparts])
        if found:
            if first_c < 0:
                first_c = c
            last_c = c
    return cheapest, dearest, first_c, last_c


@njit(cache=True)
def choose(request, fits, orders, nsites, starts, duration, config, prices, chosen):
    """Pick a variant of ``request`` (a :class:`RequestParts`; module docstring); ``starts`` as
    :func:`candidate_starts` gives them, ``fits = (fit, allow)`` as :func:`walk` takes them, ``prices =
    (tariff, cum)`` as :func:`interval_price` takes them.

    Returns ``(start, messages, (cost, cheapest, dearest), (first, last))``: start -1 when no
    variant is admissible; ``chosen[:nparts]`` gets the sites; the costs are the pick's and the
    extremes over all admissible variants, ``first`` and ``last`` their earliest and latest start
    (s; -1 without any).

    Algorithms 1-4, 6 and 9 take the first variant in tree order: the tree is walked up to it,
    and the extremes come from :func:`cost_range`. Algorithm 5 scores every variant
    (:func:`choose_weighted`).
    """
    r, parts, nparts = request.r, request.parts, request.n
    count = starts[3]
    perms = 1
    for i in range(nparts):
        perms *= nsites - i
    if perms <= 0:
        return -1, 0, (0.0, 0.0, 0.0), (-1, -1)
    first = np.empty((nsites * count, 2), dtype=np.int64)
    below = np.empty((nparts, count, nsites), dtype=np.int64)
    variant_tree(r, orders, nsites, nparts, count, config, (first, below))
    tree = (below, np.zeros(fits[0].shape[0], dtype=np.bool_), np.empty(nparts, dtype=np.int64))
    if np.int64(config[C_PICK]) == WEIGHTED_PICK:
        return choose_weighted(request, fits, (first, tree), (orders, nsites, perms), starts, duration,
                               config, prices, chosen)
    trivial = config[C_ASKS_EVERY_SITE] != 0
    path = np.empty((1, max(nparts, 1)), dtype=np.int64)
    messages = 0
    for p in range(nsites * count):
        # A broker walking the tree sends these (every subtree before the first variant, and that
        # one up to it).
        found, sent = walk((first[p, 0], first[p, 1]), request, fits, tree, nsites, trivial, True, path, 0)
        messages += sent
        if found:
            unit = unit_prices(r, orders, nsites, starts, duration, prices, fits[0].shape[0])
            cost = variant_cost(unit[first[p, 1]], parts, r, nparts, path, 0)
            cheapest, dearest, first_c, last_c = cost_range(request, fits, orders, nsites, count, unit)
            for i in range(nparts):
                chosen[i] = path[0, i]
            return start_at(starts, first[p, 1]), messages, (cost, cheapest, dearest), (
                start_at(starts, first_c), start_at(starts, last_c))
    return -1, messages, (0.0, 0.0, 0.0), (-1, -1)


@njit(cache=True)
def choose_weighted(request, fits, trees, sites, starts, duration, config, prices, chosen):
    """:func:`choose` for Algorithm 5: every variant, in tree order (``trees = (first, (below, used,
    pos))`` of :func:`variant_tree` and :func:`walk`; ``sites = (orders, nsites, perms)``, perms
    the part-to-site assignments per candidate), scored by ``k * norm_cost + s * norm_start``; the
    first of the least score wins."""
    r, parts, nparts = request.r, request.parts, request.n
    first, tree = trees
    orders, nsites, perms = sites
    count = starts[3]
    variants = np.empty((count * perms + 1, max(nparts, 1)), dtype=np.int64)
    variant_c = np.empty(count * perms, dtype=np.int64)
    trivial = config[C_ASKS_EVERY_SITE] != 0
    n_var = 0
    for p in range(nsites * count):
        root = (first[p, 0], first[p, 1])
        n_new, _ = walk(root, request, fits, tree, nsites, trivial, False, variants, n_var)
        for v in range(n_var, n_new):
            variant_c[v] = root[1]
        n_var = n_new
    messages = nparts if n_var else 0
    if n_var == 0:
        return -1, messages, (0.0, 0.0, 0.0), (-1, -1)
    unit = unit_prices(r, orders, nsites, starts, duration, prices, tree[1].shape[0])
    costs = np.empty(n_var)
    cheapest, dearest = np.inf, -np.inf
    earliest_c, latest_c = count, -1
    for v in range(n_var):
        costs[v] = variant_cost(unit[variant_c[v]], parts, r, nparts, variants, v)
        cheapest = min(cheapest, costs[v])
        dearest = max(dearest, costs[v])
        earliest_c = min(earliest_c, variant_c[v])
        latest_c = max(latest_c, variant_c[v])
    first_s, last_s = start_at(starts, earliest_c), start_at(starts, latest_c)
    best = np.inf
    pick = 0
    for v in range(n_var):
        norm_cost = (costs[v] - cheapest) / (dearest - cheapest) if dearest > cheapest else 0.0
        # In seconds, not in candidate steps: Meltzer's divided step rounds each start down.
        late = start_at(starts, variant_c[v]) - first_s
        norm_start = late / (last_s - first_s) if last_s > first_s else 0.0
        score = config[C_COST_WEIGHT] * norm_cost + config[C_START_WEIGHT] * norm_start
        if score < best:
            best = score
            pick = v
    for i in range(nparts):
        chosen[i] = variants[pick, i]
    return start_at(starts, variant_c[pick]), messages, (costs[pick], cheapest, dearest), (first_s, last_s)
