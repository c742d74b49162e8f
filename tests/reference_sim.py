"""A small, obviously-correct pure-Python grid simulator (docs/model.md, docs/grid.md).

Written for clarity, not speed, and deliberately literal: LIST restarts its
scan from the head after every start; EASY computes the shadow time from a
fresh sort of the running jobs; conservative backfilling reserves every
waiting job by brute force over candidate starts; the pool is scheduled by running the same
LRMS function on the list of pool jobs a site can see; rulebases are
evaluated with ``math.exp`` on Python floats. The compiled core must agree
with it exactly (start times and sites).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

from evogrid.sim.admission import REGISTRY as ADMISSION

FEATURE_RANGE_HOURS = 3600.0
#: Twins of LRMS registered beyond the built-in ones (evogrid.sim.lrms.register): name ->
#: rule(t, job) -> start it?, for a job behind the blocked head that fits the free processors.
BEHIND_HEAD: dict = {}
#: Twins of location policies registered beyond the built-in ones (evogrid.sim.locations.register):
#: name -> key(sites, jobs, l, k, job, t) -> (key, tie), by which site k orders site l, ascending.
LOCATION_KEYS: dict = {}
#: Twins of transfer policies registered beyond the built-in ones (evogrid.sim.transfers.register):
#: name -> accepts(sites, jobs, s, job, partner) -> does site s take (or keep) the job?
TRANSFER_DECISIONS: dict = {}
#: Twins of transfer features registered beyond the built-in ones (evogrid.sim.features.register):
#: name -> value(sites, jobs, s, job), the feature of the job as site s sees it.
FEATURE_VALUES: dict = {}


@dataclass
class Job:
    submit: int
    run_time: int
    procs: int
    estimate: int
    origin: int


@dataclass
class Site:
    m: int
    lrms: str
    free: int = 0
    queue: list = field(default_factory=list)
    running: list = field(default_factory=list)  # (actual end, estimated end, procs, job)

    def __post_init__(self):
        self.free = self.m


@dataclass
class Policy:
    """What the reference needs of a strategy (mirrors evogrid.sim.schedule.Exchange)."""

    scheme: str = "exchange"  # exchange | pool | active
    transfer: tuple = ()  # per site: local | awf | rulebase
    location: str = "fixed"  # a name of evogrid.sim.registry.LOCATIONS but random, or of LOCATION_KEYS
    rulebases: dict = field(default_factory=dict)  # (site, partner) -> (features, rules); (k, k): ranking
    bounds: dict = field(default_factory=dict)  # (site, partner) -> [(low, high)] per feature: beyond, AWF
    # pool: first (own queue, then the pool) | queued (into the pool) | first-pool (first, and the site
    # passes over the pool after every arrival)
    pool_arrivals: str = "first"
    # active: queue (into the taker's queue, offered again) | start (at once) | fits (queue, without
    # EASY's condition)
    active_take: str = "queue"
    speed: tuple = ()  # per site (default: all 1)
    tags: tuple = ()  # per site: the attribute bits it holds (default: none)
    hard: tuple = ()  # per job: the bits it requires (default: none) ...
    preferred: tuple = ()  # ... and prefers
    refresh: int = 0  # the information service's refresh interval (s); 0: location keys see sites now
    job_location: tuple = ()  # per job (arrival order): its location policy's name (empty: ``location``)
    # interactive: a broker routes each job at its arrival | when-room: it holds a job while no site it
    # may go to has room for it (as the keys see them), and routes it once one has | batch: it holds
    # every job until the next multiple of batch_s (or until batch_jobs are held, the last batch at
    # the last submission), then routes them all
    handover: str = "interactive"
    batch_s: int = 0
    batch_jobs: int = 0
    grid_cap: tuple = ()  # per site: the most processors other sites' jobs may hold there (None: no cap)
    grid_slots: tuple = ()  # per site: the grid's LoadLeveler slots there, Beichter's maxslots (None: m)
    grid_maxjobs: tuple = ()  # per site: how many jobs the grid's user may run there (None: any)
    # enforced: a site starts no job from another site while such jobs would hold more processors there
    # than its slots or its maxjobs of them run (its LRMS passes over it), and a job wider than a
    # site's slots does not qualify there | read: Beichter's policies read them, nothing else does
    slot_rule: str = "enforced"
    # refuse: a broker refuses a job Beichter's policies key REFUSED at every site (start -1) | keep:
    # it stays at its origin
    refusals: str = "refuse"


def published_site(site):
    """A copy of ``site`` as the information service publishes it (free processors, queue, running)."""
    copy = Site(site.m, site.lrms, queue=list(site.queue), running=list(site.running))
    copy.free = site.free
    return copy


def end_jobs(site, t):
    """Release the site's jobs that end at ``t``; returns them."""
    ended = [r for r in site.running if r[0] == t]
    for r in ended:
        site.running.remove(r)
        site.free += r[2]
    return ended


def shadow(site, t, need):
    """EASY reservation of a head needing ``need`` processors: (T, extra)."""
    for T in sorted({est for _, est, _, _ in site.running}):
        avail = site.free + sum(p for _, est, p, _ in site.running if est <= T)
        if avail >= need:
            return T, avail - need
    return math.inf, 0


def earliest_start(m, t, need, duration, busy):
    """The earliest time >= t at which ``need`` of ``m`` processors stay free for ``duration``
    seconds, given ``busy`` = [(from, until, procs)] committed intervals. Brute force over
    every candidate start (t and every end) and every point where the free count can drop."""
    def free_at(x):
        return m - sum(p for a, b, p in busy if a <= x < b)

    for s in sorted({t} | {b for _, b, _ in busy if b > t}):
        points = [s] + [a for a, _, _ in busy if s < a < s + duration]
        if all(free_at(x) >= need for x in points):
            return s
    raise AssertionError("the last step always has room")


#: Beichter's policies' key of a site they would not hand the job to: above every other key.
REFUSED_KEY = math.inf


def beichter_key(name, site, need, slots=None, free_slots=0, maxjobs=None, free_jobs=0):
    """Beichter's policies (his 3.4 and 7.1.2) as an ascending key of a candidate site, from his code
    with a slot read as a processor: phase 1 (room now; the new policy: and no job waiting) by the
    free share before (old) or after (new) the job, ties towards the larger site; phase 2 (a queue
    under 5 m jobs) by the waiting jobs (new: plus this one) over 5 m; then the sites he refuses.
    With the grid's ``slots`` there (``free_slots`` of them free), the old policy reads slots
    instead of processors, the new one ``min(free, free_slots)`` of ``min(m, slots)``, its queue cap
    5 slots; with the grid user's ``maxjobs`` (``free_jobs`` more may run), the new one also needs
    one of them free and takes what is left after the job as the least of processors and jobs (his
    ``minFree - 1`` of ``minMax``), the old one ignores them."""
    refused = REFUSED_KEY, 0.0
    m, free, waiting = site.m, site.free, len(site.queue)
    if name == "beichter-old":
        if slots is not None:
            m, free = slots, free_slots
        if free >= need:
            broken = waiting > 2 * m and free > m // 10 + 2  # his "something wrong with host"
            return refused if broken else (-free / m, float(-m))
        return (1.0 + waiting / (5 * m), 0.0) if waiting < 5 * m else refused
    capacity, cap = m, 5 * m
    if slots is not None:
        free, capacity, cap = min(free, free_slots), min(m, slots), 5 * slots
    left = free - need  # left after the job: processors, and (maxjobs) jobs, a job counting once
    if maxjobs is not None:
        capacity, left = min(capacity, maxjobs), min(left, free_jobs - 1)
    if free >= need and left >= 0 and waiting == 0:
        return -left / capacity, float(-m)
    return (1.0 + (waiting + 1) / (5 * capacity), 0.0) if waiting < cap else refused


def tsk(rules, x):
    """y of rules [(centers, widths, consequent)] at x, shifted by the largest exponent. Each squared
    distance is multiplied by 1 / w^2, as the compiled rulebase stores its widths: dividing by w^2
    can differ in the last bit, and a ranking can hinge on it where every site scores about -1."""
    exps = [-sum((xh - c) * (xh - c) * (1.0 / (w * w)) for xh, c, w in zip(x, cs, ws, strict=True))
            for cs, ws, _ in rules]
    top = max(exps)
    phis = [math.exp(e - top) for e in exps]
    return sum(p * b for p, (_, _, b) in zip(phis, rules, strict=True)) / sum(phis)


def join(site, job, jobs):
    """A site's queue takes a new job: at the end, or (sjf, easy-sjf) behind every waiting job
    whose estimate is not longer."""
    if site.lrms in ("sjf", "easy-sjf"):
        at = sum(1 for q in site.queue if jobs[q].estimate <= jobs[job].estimate)
        # the queue is sorted by estimate, so those jobs are exactly its first ``at``
        site.queue.insert(at, job)
    else:
        site.queue.append(job)


def lrms_pass(site, queue, t, jobs, begin, visible=lambda job: True):
    """The site's LRMS pass over ``queue`` (a list it edits) at time ``t``; ``begin(job)`` starts a
    job there; returns the jobs started. The pass sees only the jobs ``visible(job)`` holds for when
    it comes to them (the grid's slots: a job hidden once stays hidden for the pass, as starts only
    fill the slots)."""
    started = []

    def go(job):
        begin(job)
        queue.remove(job)
        started.append(job)

    def head():
        return next((job for job in queue if visible(job)), None)

    while (first := head()) is not None and jobs[first].procs <= site.free:
        go(first)
    if first is None or site.lrms in ("fcfs", "sjf"):
        return started
    behind = queue[queue.index(first) + 1:]
    if site.lrms == "conservative":  # every waiting job the pass sees reserves, in queue order
        reservations = []
        for job in list(queue):
            if not visible(job):
                continue
            j = jobs[job]
            # running jobs hold their processors to their estimated end (one past it: to t + 1)
            busy = [(t, max(est, t + 1), p) for _, est, p, _ in site.running] + reservations
            s = earliest_start(site.m, t, j.procs, j.estimate, busy)
            if s == t:
                go(job)
            else:  # held at least 1 s: a zero-length job still needs its processors once
                reservations.append((s, s + max(j.estimate, 1), j.procs))
        return started
    if site.lrms in BEHIND_HEAD:  # a registered LRMS: its rule judges each job behind the head
        for job in behind:
            if visible(job) and jobs[job].procs <= site.free and BEHIND_HEAD[site.lrms](t, jobs[job]):
                go(job)
        return started
    if site.lrms == "list":
        again = True
        while again:
            again = False
            for job in queue:
                if visible(job) and jobs[job].procs <= site.free:
                    go(job)
                    again = True
                    break  # restart from the head
        return started
    T, extra = shadow(site, t, jobs[first].procs)
    for job in behind:
        if not visible(job) or jobs[job].procs > site.free:
            continue
        if t + jobs[job].estimate <= T:
            go(job)
        elif jobs[job].procs <= extra:
            extra -= jobs[job].procs
            go(job)
    return started


def simulate_reference(jobs, machine_procs, lrms, policy=None, moves=None, requests=None, rules=None):
    """(start times, executing sites) of ``jobs`` (list of Job in arrival order); with site speeds
    ``(start, sites, run times)``. ``moves``: a list of zeros, one per job, that the published
    active request counts each job's moves in. ``requests`` (list of Request, in submission order)
    with ``rules``: the sites also take reservations (:class:`Desk`; job exchange by transfer and
    location policies or brokers only) and the result is ``(start, sites, run times, bookings)``.

    Event order at time t: job completions and reservation ends (then a pass at each site that
    freed processors, in index order), reservation starts, then arrivals, jobs before requests, in
    input order."""
    policy = policy or Policy(transfer=("local",) * len(machine_procs))
    if requests is not None and policy.scheme != "exchange":
        raise NotImplementedError("reservations run with job exchange, not with a pool or active requests")
    K = len(machine_procs)
    jobs = [replace(j) for j in jobs]  # a moved job's run time and estimate change
    speed = policy.speed or (1.0,) * K
    tags = policy.tags or (0,) * K
    hard = policy.hard or (0,) * len(jobs)
    preferred = policy.preferred or (0,) * len(jobs)
    sites = [Site(m, lr) for m, lr in zip(machine_procs, lrms, strict=True)]
    start = [None] * len(jobs)
    where = [j.origin for j in jobs]
    moves = [0] * len(jobs) if moves is None else moves
    pool = []
    held = []  # the brokers' held jobs, in arrival order (handover when-room or batch)
    last_end = -math.inf  # the last instant at which jobs ended
    batch_due = math.inf  # when the held jobs of a batch go
    foreign = [0] * K  # processors other sites' jobs hold at each site, waiting or running
    # What the location keys see: the sites as the information service last published them (at the
    # last multiple of policy.refresh, every event before it), or the sites themselves.
    seen = sites
    published = -math.inf
    num = [[0.0] * K for _ in range(K)]
    den = [[0.0] * K for _ in range(K)]

    def begin(k, job, t):
        site = sites[k]
        start[job] = t
        where[job] = k
        site.free -= jobs[job].procs
        site.running.append((t + jobs[job].run_time, t + jobs[job].estimate, jobs[job].procs, job))

    desk = None if requests is None else Desk(sites, jobs, start, where, requests, rules, speed)

    def run_lrms(k, queue, t):
        """Site k's LRMS pass over ``queue`` (a list it edits); returns the jobs started."""
        if desk is not None and desk.held[k]:  # only a site's own queue: no pool with reservations
            desk.schedule(k, t, lambda job: begin(k, job, t))
            return None
        return lrms_pass(sites[k], queue, t, jobs, lambda job: begin(k, job, t), lambda job: visible(k, job))

    def enforced(name, k):
        """LoadLeveler's ``grid_slots`` or ``grid_maxjobs`` (``name``) it enforces at site k (None: none)."""
        values = getattr(policy, name)
        return values[k] if policy.slot_rule == "enforced" and values else None

    def within_limits(k, job, site):
        """Does ``job``, from another site, fit the room the grid's enforced slots leave at site k
        (slots less the processors such jobs hold running on ``site``, k as it is or as published)
        while fewer than its maxjobs of them run?"""
        slots, maxjobs = enforced("grid_slots", k), enforced("grid_maxjobs", k)
        grid = [r for r in site.running if jobs[r[3]].origin != k]
        return ((slots is None or jobs[job].procs <= slots - sum(r[2] for r in grid))
                and (maxjobs is None or len(grid) < maxjobs))

    def visible(k, job):
        """Does site k's LRMS see ``job`` now: its own, or one from elsewhere within its limits?"""
        return jobs[job].origin == k or within_limits(k, job, sites[k])

    def schedule_pool(k, t):
        visible = [j for j in pool if jobs[j].procs <= sites[k].m]
        for job in run_lrms(k, visible, t):
            pool.remove(job)

    def fetch_into_queue(k, t):
        """Lepping 9.1: a site with free processors takes, into its queue, every waiting job of the
        others that it could start now without delaying its head (if any), judged on its state
        before the request; ``fits``: every one that fits its free processors."""
        site = sites[k]
        if site.free == 0:
            return
        if site.queue and policy.active_take == "queue":
            T, extra = shadow(site, t, jobs[site.queue[0]].procs)
        else:
            T, extra = math.inf, 0
        for l in range(K):
            if l == k or not sites[l].queue:
                continue
            other = sites[l]
            head = other.queue[0]
            for job in list(other.queue):
                p = jobs[job].procs
                if p <= site.free and (t + jobs[job].estimate <= T or p <= extra):
                    other.queue.remove(job)
                    join(site, job, jobs)
                    moves[job] += 1
            if head not in other.queue:
                run_lrms(l, other.queue, t)
        run_lrms(k, site.queue, t)

    def active_request(k, t):
        if policy.active_take in ("queue", "fits"):
            fetch_into_queue(k, t)
            return
        site = sites[k]
        if site.free == 0:
            return
        T, extra = shadow(site, t, jobs[site.queue[0]].procs) if site.queue else (math.inf, 0)
        for l in range(K):
            if l == k:
                continue
            other = sites[l]
            head = other.queue[0] if other.queue else None
            for job in list(other.queue):
                p = jobs[job].procs
                if p > site.free:
                    continue
                if t + jobs[job].estimate <= T:
                    pass
                elif p <= extra:
                    extra -= p
                else:
                    continue
                other.queue.remove(job)
                begin(k, job, t)
            if head is not None and head not in other.queue:
                run_lrms(l, other.queue, t)

    def features(s, job, names, origin=None, t=None):
        """Transfer features as site s sees ``job``; with ``origin``, the ranking features of site s
        as a home for a job from ``origin``."""
        site, j = (sites if origin is None else seen)[s], jobs[job]
        values = {
            "NWP": sum(jobs[q].procs for q in site.queue) / site.m,
            "NJP": j.procs / site.m,
            "UTIL": 1.0 - site.free / site.m,
            "QLEN": float(len(site.queue)),
            "EST_HOURS": j.estimate / FEATURE_RANGE_HOURS,
            **{name: value(sites if origin is None else seen, jobs, s, job)
               for name, value in FEATURE_VALUES.items()},
        }
        if origin is not None:
            values["EST_HOURS"] = j.estimate * speed[origin] / speed[s] / FEATURE_RANGE_HOURS
            values["LOAD_AFTER"] = 1.0 - (site.free - j.procs) / site.m
            values["SPEED"] = speed[s] / speed[origin]
            values["WAIT_HOURS"] = (ready(s, job, t) - t) / FEATURE_RANGE_HOURS
        return [values[name] for name in names]

    def accepts(s, job, partner):
        kind = policy.transfer[s]
        if kind in TRANSFER_DECISIONS:
            return TRANSFER_DECISIONS[kind](sites, jobs, s, job, partner)
        if kind == "local":
            return s == jobs[job].origin
        if kind in ("awf", "broker"):  # a broker takes offers as AWF does
            return jobs[job].procs <= sites[s].free
        names, rules = policy.rulebases[(s, partner)]
        x = features(s, job, names)
        bounds = policy.bounds.get((s, partner), [(-math.inf, math.inf)] * len(x))
        if any(v < lo or v > hi for v, (lo, hi) in zip(x, bounds, strict=True)):
            return jobs[job].procs <= sites[s].free  # beyond the rulebase's ranges: AWF
        return tsk(rules, x) > 0

    def ready(l, job, t):
        """MCT's start estimate at l: now if the job starts at once, else now plus the estimated work
        ahead over m_l (as published)."""
        site = seen[l]
        if not site.queue and jobs[job].procs <= site.free:
            return float(t)
        area = sum(max(0, start[r[3]] + jobs[r[3]].estimate - t) * jobs[r[3]].procs for r in site.running)
        area += sum(jobs[q].estimate * jobs[q].procs for q in site.queue)
        return t + area / site.m

    def location_of(job):
        return policy.job_location[job] if policy.job_location else policy.location

    def key(l, k, job, t):
        need = jobs[job].procs
        location = location_of(job)
        if location in LOCATION_KEYS:
            return LOCATION_KEYS[location](seen, jobs, l, k, job, t)
        if location == "debt":  # area of k's completed jobs at l less l's at k: the largest debt first
            return den[k][l] - den[l][k], 0.0
        if location == "awrt":
            return num[k][l] / den[k][l] if den[k][l] > 0 else -1.0, 0.0
        if location == "least-load":  # load after taking the job, then fewer waiting jobs
            return 1.0 - (seen[l].free - need) / seen[l].m, (len(seen[l].queue) + 1) / (seen[l].m * 5.0)
        if location == "olb":  # the most free processors now, then fewer waiting jobs
            return -seen[l].free, len(seen[l].queue)
        if location == "met":
            return speed[k] / speed[l], 0.0
        if location in ("mct", "min-min", "max-min"):
            return ready(l, job, t) + jobs[job].estimate * speed[k] / speed[l], 0.0
        if location in ("beichter-old", "beichter-new"):
            slots = policy.grid_slots[l] if policy.grid_slots else None
            maxjobs = policy.grid_maxjobs[l] if policy.grid_maxjobs else None
            grid = [r for r in seen[l].running if jobs[r[3]].origin != l]  # the grid's jobs there
            used = sum(r[2] for r in grid)
            return beichter_key(location, seen[l], need, slots, None if slots is None else slots - used,
                                maxjobs, None if maxjobs is None else maxjobs - len(grid))
        if location == "rank":
            names, rules = policy.rulebases[(k, k)]
            return -tsk(rules, features(l, job, names, origin=k, t=t)), 0.0
        return 0.0, 0.0  # fixed

    def partners(k, job, t, with_home=False):
        """The sites k may send ``job`` to, best first: the more preferred attributes the better,
        then the location policy's key; ties: k first, then index order (a stable sort)."""
        eligible = ([k] if with_home else []) + [l for l in range(K) if l != k and qualifies(l, job)]
        if location_of(job) == "random":
            raise NotImplementedError("the reference has no twin of the seeded shuffle")
        if location_of(job) == "fixed" and not preferred[job]:
            return eligible
        eligible.sort(key=lambda l: (-bin(tags[l] & preferred[job]).count("1"), *key(l, k, job, t)))
        return eligible

    def has_room(k, job):
        """Has a site broker k may send ``job`` to (itself, qualified others) room for it now, as
        the keys see the sites: free processors, and at another site room within the grid's
        enforced slots and maxjobs?"""
        return any(seen[l].free >= jobs[job].procs
                   and (l == k or (qualifies(l, job) and within_limits(l, job, seen[l])))
                   for l in range(K))

    def qualifies(l, job):
        """May site l take ``job`` from another site: wide enough, the requirements held, within its
        cap on the processors other sites' jobs hold there?"""
        need, h = jobs[job].procs, hard[job]
        cap = policy.grid_cap[l] if policy.grid_cap else None
        slots = enforced("grid_slots", l)
        return (sites[l].m >= need and (slots is None or slots >= need) and tags[l] & h == h
                and (cap is None or foreign[l] + need <= cap))

    def route(job, t, from_hold=False):
        """The site ``job`` goes to, None: a broker holds it, or -1: a broker refused it (its start
        is then -1)."""
        k = jobs[job].origin
        target = k
        if policy.transfer[k] == "broker":
            if not from_hold and (policy.handover == "batch"
                                  or (policy.handover == "when-room" and not has_room(k, job))):
                return None
            order = partners(k, job, t, with_home=True)
            if (policy.refusals == "refuse" and location_of(job) in ("beichter-old", "beichter-new")
                    and all(key(l, k, job, t)[0] == REFUSED_KEY for l in order)):
                start[job] = -1
                return -1
            target = order[0]
        else:
            order = partners(k, job, t)
            if order and not accepts(k, job, order[0]):
                target = next((l for l in order if accepts(l, job, k)), k)
        if target != k:
            foreign[target] += jobs[job].procs
        if speed[target] != speed[k]:
            factor = speed[k] / speed[target]
            for name in ("run_time", "estimate"):
                seconds = getattr(jobs[job], name)
                setattr(jobs[job], name, max(int(seconds > 0), math.floor(seconds * factor + 0.5)))
        return target

    def batch_pick(batch, t):
        """Min-Min / Max-Min: of ``batch`` (jobs in order), the one whose best site promises the
        earliest / latest completion; ties: the first."""
        ends = [key(partners(jobs[j].origin, j, t, with_home=True)[0], jobs[j].origin, j, t)[0]
                for j in batch]
        pick = max if policy.location == "max-min" else min
        return batch[ends.index(pick(ends))]

    def next_in_batch(t):
        """Min-Min / Max-Min: the job to route next of those submitted at t not yet routed."""
        return batch_pick([j for j in arrivals if jobs[j].submit == t], t)

    arrivals = list(range(len(jobs)))
    submitted = list(range(len(requests or ())))  # requests not yet submitted
    def release_held(t):
        """The held jobs that now have room go in order, each to its site, whose pass follows."""
        i = 0
        while i < len(held):
            job = held[i]
            if has_room(jobs[job].origin, job):
                held.pop(i)
                target = route(job, t, from_hold=True)
                if target >= 0:
                    join(sites[target], job, jobs)
                    run_lrms(target, sites[target].queue, t)
            else:
                i += 1

    def release_batch(t):
        """Every held job goes, one by one (in order, or Min-Min's / Max-Min's), its site's pass after."""
        while held:
            job = batch_pick(held, t) if policy.location in ("min-min", "max-min") else held[0]
            held.remove(job)
            target = route(job, t, from_hold=True)
            if target >= 0:
                join(sites[target], job, jobs)
                run_lrms(target, sites[target].queue, t)

    while True:
        next_end = min((r[0] for s in sites for r in s.running), default=math.inf)
        if desk is not None:
            next_end = min(next_end, desk.next_event())
        if policy.handover == "batch":
            next_end = min(next_end, batch_due)
        elif held and policy.refresh and last_end >= published * policy.refresh:
            next_end = min(next_end, (published + 1) * policy.refresh)  # a held job may now have room
        next_arrival = jobs[arrivals[0]].submit if arrivals else math.inf
        next_request = requests[submitted[0]].submit if submitted else math.inf
        if min(next_end, next_arrival, next_request) == math.inf:
            break
        if policy.refresh and min(next_end, next_arrival, next_request) // policy.refresh > published:
            published = min(next_end, next_arrival, next_request) // policy.refresh
            seen = [published_site(s) for s in sites]
        if next_end <= min(next_arrival, next_request):  # completions first at equal times
            t = next_end
            freed = []
            for k, site in enumerate(sites):
                ended = end_jobs(site, t)
                if ended:
                    last_end = t
                for r in ended:
                    j = jobs[r[3]]
                    if j.origin != k and policy.scheme == "exchange":
                        foreign[k] -= j.procs
                    if j.origin != k:
                        num[j.origin][k] += j.run_time * j.procs * (t - j.submit)
                        den[j.origin][k] += j.run_time * j.procs
                over = desk is not None and desk.end_at(k, t)
                freed.append(bool(ended) or over)
            for k in range(K):
                if freed[k]:
                    run_lrms(k, sites[k].queue, t)
                    if policy.scheme == "pool":
                        schedule_pool(k, t)
                    elif policy.scheme == "active":
                        active_request(k, t)
            if desk is not None:
                desk.start_at(t)
            if policy.handover != "batch":
                release_held(t)
            elif t >= batch_due:
                release_batch(t)
                batch_due = math.inf
            continue
        if next_request < next_arrival:  # jobs before requests at one instant
            t = next_request
            desk.admit(submitted.pop(0), t)
            desk.start_at(t)  # accepted to start now
            continue
        t = next_arrival
        job = arrivals[0]
        if policy.scheme == "exchange" and policy.location in ("min-min", "max-min"):
            job = next_in_batch(t)
        arrivals.remove(job)
        k = jobs[job].origin
        target = k
        if policy.scheme == "pool" and policy.pool_arrivals == "queued":
            pool.append(job)  # behind every older pool job; then k's LRMS over what it can see
            schedule_pool(k, t)
            continue
        if policy.scheme == "exchange":
            target = route(job, t)
            if target is None:
                held.append(job)
                if policy.batch_jobs:
                    if len(held) >= policy.batch_jobs or not arrivals:
                        batch_due = t
                elif policy.handover == "batch" and batch_due == math.inf:
                    batch_due = (t // policy.batch_s + 1) * policy.batch_s
                continue
            if policy.batch_jobs and held and not arrivals:  # the last submission: the last batch goes
                batch_due = t
            if target < 0:
                continue
        join(sites[target], job, jobs)
        run_lrms(target, sites[target].queue, t)
        if policy.scheme == "pool" and start[job] is None:
            sites[k].queue.remove(job)
            pool.append(job)
            schedule_pool(k, t)
        elif policy.scheme == "pool" and policy.pool_arrivals == "first-pool":
            schedule_pool(k, t)
        elif policy.scheme == "active":
            active_request(k, t)
    if desk is not None:
        return start, where, [j.run_time for j in jobs], desk.booked
    if policy.speed:
        return start, where, [j.run_time for j in jobs]
    return start, where


def reference_start_times(submit, run_time, procs, estimate, machine_procs, lrms):
    """Start times of one site without exchange (lists in arrival order)."""
    jobs = [Job(*row, 0) for row in zip(submit, run_time, procs, estimate, strict=True)]
    return simulate_reference(jobs, [machine_procs], [lrms])[0]


@dataclass
class Request:
    """A reservation request (evogrid.workload.reservations): parts largest first, at ``site``
    (-1: any), ``order`` the sites to try (evogrid.sim.booking draws it)."""

    submit: int
    earliest: int
    deadline: int
    duration: int
    parts: tuple
    site: int
    order: tuple = ()
    counts: dict = field(default_factory=dict)  # probe: processor count -> duration (plain: one count)
    bounds: tuple = ()  # collective: (most sites N, least per site d, least in all e)


@dataclass
class Rules:
    """Mirrors evogrid.sim.booking.ReservationRules; ``price(k, a, b)``: one processor's price at
    site k over [a, b)."""

    algorithm: str = "first-fit"
    minsize: int = 300
    windows: int = 20
    cost_weight: float = 0.0
    start_weight: float = 1.0
    acc: tuple = ()
    price: object = None
    admission: tuple = ()  # rulebase algorithm: per site (feature names, [(centers, widths, consequent)])
    tsn_max: int = 5  # probe: starts per count, their gap, estimate (load | static), h (s), threshold,
    tss_gap: int = 1800  # and preferences (earliest_end | lowest_cost | highest_success | fewest_processors)
    estimate: str = "load"
    success_seconds: float = 5 * 3600.0
    threshold: float = 0.85
    preferences: tuple = ("earliest_end", "lowest_cost", "highest_success")
    swaps: tuple = (7, 10)  # collective: best and random improving swaps per allowed site
    seed: int = 0
    variant_order: str = "tree"  # Meltzer's readings, or ours: by-start, every-held, head-fit
    backlog_rule: str = "before-start"
    backfill_until: str = "next-end"
    # probe: Röblitz et al.'s T_wkl with running jobs' remaining run times (workload-end) or their time
    # to their estimated ends (workload-end-estimated), or Meltzer's backlog
    load_rule: str = "workload-end"
    acc_running: float = 0.5
    acc_waiting: float = 0.5
    probe_slots: str = "cover"  # probe: starts spread over the window (theirs) or packed from the first
    history_seconds: int = 3600  # probe: the history estimate's sampling interval delta
    step: str = "divided"  # Meltzer: the candidate starts' step, his exact division or "floor" (ours)
    status_queue: str = "head"  # Meltzer: the sites' profiles count the queue head (Maui's), or "none"
    admits: object = None  # python algorithm: admits(desk, k, t, s, duration, need) -> bool


class _Held(list):
    """A site's accepted reservations; ``ever`` keeps every one accepted, also after it ended (the
    probe's history estimate counts them)."""

    def __init__(self):
        super().__init__()
        self.ever = []

    def append(self, h):
        super().append(h)
        self.ever.append(h)


def simulate_reserved_reference(jobs, machine_procs, lrms, requests, rules=None, speed=()):
    """(start times, bookings) of sites without exchange that also take reservations (of speed
    factors ``speed``, default all 1): :func:`simulate_reference` with ``requests`` (a :class:`Desk`
    books them)."""
    policy = Policy(transfer=("local",) * len(machine_procs), speed=tuple(speed))
    start, _, _, booked = simulate_reference(jobs, machine_procs, lrms, policy, requests=requests,
                                             rules=rules)
    return start, booked


class Desk:
    """The reservation side of :func:`simulate_reference`: every site's accepted reservations and
    the admission algorithms. Literal: at every event the LRMS works on the site's free processors
    over time, counting running jobs (to their estimated end) and accepted reservations; at a site
    that holds some, every LRMS then judges a job by "does it fit from now for its estimate" (a site
    that holds none schedules as without requests):

    - FCFS (and SJF) starts jobs in order while they fit; LIST (and any LRMS with a rule of its
      own) starts every job that fits (restarting from the head); EASY (and EASY-SJF) reserves
      the first job that does not fit at its earliest start and starts every later one that
      fits; conservative reserves every waiting job.
    - ``first-fit``: a one-site request is accepted at its earliest fit at or after max(now,
      earliest start) if that ends by its deadline. Meltzer's algorithms: every variant (a
      candidate start, distinct sites for the parts from ``order``) in depth-first order, each
      part checked by brute force on its site, and the backlog / next planned start as spelled
      out in docs/reservations.md; messages by a recursive walk of the tree.
    - An accepted request holds its processors over [start, start + duration) on its sites,
      whatever the site's speed.

    ``booked``: per request (start or -1, sites, messages, cost or None, ...).
    """

    #: The twins of the algorithms that place requests on their own, by name: a method of Desk.
    PLACEMENTS = {"first-fit": "admit_first_fit", "probe": "admit_probe", "collective": "admit_collective"}

    def __init__(self, sites, jobs, start, where, requests, rules, speed):
        self.sites, self.jobs, self.start, self.where, self.speed = sites, jobs, start, where, speed
        self.requests, self.rules = requests, rules or Rules()
        self.booked = [(-1, (), 0, None)] * len(requests)
        self.held = [_Held() for _ in sites]  # accepted reservations: [start, end, procs, taken?]
        self.entry = ADMISSION[self.rules.algorithm]
        # An algorithm with a placement of its own has its twin here; the others go through the
        # variant tree with their entries' flags.
        placed = self.PLACEMENTS.get(self.rules.algorithm)
        self.admit = self.admit_meltzer if placed is None else getattr(self, placed)

    # -- events --

    def next_event(self):
        """The next reservation start or end."""
        return min([h[1] for hs in self.held for h in hs if h[3]]
                   + [h[0] for hs in self.held for h in hs if not h[3]], default=math.inf)

    def end_at(self, k, t):
        """Site k's reservations that end at ``t`` give their processors back; were there any?"""
        over = [h for h in self.held[k] if h[3] and h[1] == t]
        for h in over:
            self.held[k].remove(h)
            self.sites[k].free += h[2]
        return bool(over)

    def start_at(self, t):
        """Reservations that start at ``t`` take their processors."""
        for k, site in enumerate(self.sites):
            for h in self.held[k]:
                if not h[3] and h[0] == t:
                    h[3] = True
                    site.free -= h[2]
                    assert site.free >= 0, "a reservation found its processors taken"

    # -- the LRMS at a site that holds reservations --

    def busy(self, k, t):
        site = self.sites[k]
        return ([(t, max(est, t + 1), p) for _, est, p, _ in site.running]
                + [(s, e, p) for s, e, p, _ in self.held[k] if e > t])

    def fits_now(self, k, t, need, duration, extra):
        return earliest_start(self.sites[k].m, t, need, duration, self.busy(k, t) + extra) == t

    def schedule(self, k, t, begin):
        """Site k's pass at time ``t`` while it holds reservations; ``begin(job)`` starts a job."""
        site, queue, jobs = self.sites[k], self.sites[k].queue, self.jobs

        def go(job):
            begin(job)
            queue.remove(job)

        # on the profile an LRMS acts by its flags (evogrid.sim.core.profile_scan): a queue
        # order only, EASY's reservation for the head, one for everybody, or LIST's
        kind = {"sjf": "fcfs", "easy-sjf": "easy"}.get(site.lrms, "list" if site.lrms in BEHIND_HEAD
                                                       else site.lrms)
        if kind == "list":
            again = True
            while again:
                again = False
                for job in queue:
                    if self.fits_now(k, t, jobs[job].procs, jobs[job].estimate, []):
                        go(job)
                        again = True
                        break
            return
        reservations = []  # EASY: the blocked head's; conservative: every waiting job's
        for job in list(queue):
            j = jobs[job]
            if self.fits_now(k, t, j.procs, j.estimate, reservations):
                go(job)
                continue
            if kind == "fcfs":
                return
            if kind == "conservative" or not reservations:
                s = earliest_start(site.m, t, j.procs, j.estimate, self.busy(k, t) + reservations)
                reservations.append((s, s + max(j.estimate, 1), j.procs))
            # EASY: the later ones need only fit around the head's reservation

    # -- what the admission algorithms read --

    def backlog(self, k, t, before=math.inf):
        """Meltzer's listing 4: reservations count if they start before ``before``."""
        site, jobs = self.sites[k], self.jobs
        requested = (sum(jobs[j].estimate * jobs[j].procs for j in site.queue)
                     + sum(jobs[job].estimate * p for _, _, p, job in site.running))
        reserved = sum((e - s) * p for s, e, p, _ in self.held[k] if s < before)
        return math.ceil((self.rules.acc[k] * requested + reserved) / site.m)

    def workload_end(self, k, t):
        """Röblitz et al.'s T_wkl, as spelled out in evogrid.sim.reserving.workload_end."""
        site, rules, held = self.sites[k], self.rules, self.held[k]
        procs = sum(p for _, _, p, _ in site.running)
        left = rules.load_rule == "workload-end"  # the remaining run time, else to the estimated end
        running = sum(p * max((end if left else est) - t, 0) for end, est, p, _ in site.running)
        waiting = sum(self.jobs[j].procs * self.jobs[j].estimate for j in site.queue)
        base = t + (rules.acc_running * running / procs if procs else 0.0)
        counted, reserved = set(), 0
        end = base + rules.acc_waiting * waiting / site.m
        while True:
            new = [i for i, (s, e, p, _) in enumerate(held) if i not in counted and s < end and e > t]
            if not new:
                return math.ceil(end)
            for i in new:
                s, e, p, _ = held[i]
                counted.add(i)
                reserved += (e - max(s, t)) * p
            end = base + (rules.acc_waiting * waiting + reserved) / site.m

    def scheduling_event(self, k, t, ends_only=False):
        """t_sched: the first estimated end of a running job, or reservation start (unless
        ``ends_only``) or end, after t."""
        times = ([est for _, est, _, _ in self.sites[k].running]
                 + [x for s, e, _, _ in self.held[k] for x in ((e,) if ends_only else (s, e))])
        return min((x for x in times if x > t), default=math.inf)

    def head_fit(self, k, t):
        """Site k's queue head at its earliest fit: [(start, end, procs)], or [] (no head)."""
        if not self.sites[k].queue:
            return []
        head = self.jobs[self.sites[k].queue[0]]
        s = earliest_start(self.sites[k].m, t, head.procs, max(head.estimate, 1), self.busy(k, t))
        return [(s, s + max(head.estimate, 1), head.procs)]

    def next_planned_start(self, k, t):
        starts = [s for s, _, _, taken in self.held[k] if not taken]
        starts += [s for s, _, _ in self.head_fit(k, t)]
        return min(starts, default=math.inf)

    def part_fits(self, k, t, s, req, need):
        """Part of ``need`` processors at site k from s: free there and admitted."""
        rules, entry = self.rules, self.entry
        if need > self.sites[k].m:
            return False
        busy = self.busy(k, t)
        if rules.status_queue == "head":  # Maui's job reservation for the first waiting job
            busy += self.head_fit(k, t)
        free = earliest_start(self.sites[k].m, s, need, req.duration, busy) == s
        if entry.ruled:
            names, rulebase = rules.admission[k]
            x = [self.admission_feature(f, k, t, s, req.duration, need) for f in names]
            free = free and tsk(rulebase, x) > 0
        if entry.asks_python:
            free = free and rules.admits(self, k, t, s, req.duration, need)
        if entry.start_rule == "any":
            return free
        admitted = s >= t + self.backlog(k, t, s if rules.backlog_rule == "before-start" else math.inf)
        if entry.start_rule == "backlog-or-backfill":
            if rules.backfill_until in ("next-event", "next-end"):  # "t_ende kleiner ... als t_sched"
                ends_only = rules.backfill_until == "next-end"
                admitted = admitted or s + req.duration < self.scheduling_event(k, t, ends_only)
            else:
                admitted = admitted or s + req.duration <= self.next_planned_start(k, t)
        return free and admitted

    def admission_feature(self, name, k, t, s, duration, need):
        m = self.sites[k].m
        if name == "NWP":
            return sum(self.jobs[j].procs for j in self.sites[k].queue) / m
        if name == "LEAD":
            lead, room = s - t, self.backlog(k, t)
            return 1.0 if lead + room == 0 else lead / (lead + room)
        if name == "PART":
            return need / m
        if name == "RESERVED":
            overlap = sum(max(0, min(e, s + duration) - max(b, s)) * p for b, e, p, _ in self.held[k])
            return overlap / (m * duration)
        if name == "BEFORE_NEXT":
            return 1.0 if s + duration <= self.next_planned_start(k, t) else 0.0
        raise ValueError(name)

    # -- the admission algorithms --

    def admit_first_fit(self, r, t):
        req = self.requests[r]
        k = req.site
        m = self.sites[k].m
        if req.parts[0] > m:
            return
        s = earliest_start(m, max(t, req.earliest), req.parts[0], req.duration, self.busy(k, t))
        if s + req.duration <= req.deadline:
            self.booked[r] = (s, (k,), 1, None)
            self.held[k].append([s, s + req.duration, req.parts[0], False])

    def admit_meltzer(self, r, t):
        req, rules = self.requests[r], self.rules
        parts = [p for p in req.parts if p > 0]
        latest = req.deadline - req.duration
        if rules.step == "divided":  # his listing 1: [f_start, f_start + increment .. latest], exact
            inc = max(Fraction(rules.minsize), Fraction(latest - req.earliest, rules.windows))
            starts = []
            while req.earliest + len(starts) * inc <= latest:
                starts.append(req.earliest + math.floor(len(starts) * inc))  # in whole seconds
        else:
            inc = max(rules.minsize, (latest - req.earliest) // rules.windows)
            starts = list(range(req.earliest, latest + 1, inc))
        order = [req.site] if req.site >= 0 else list(req.order)
        ok = {(i, k, s): self.part_fits(k, t, s, req, parts[i]) for i in range(len(parts)) for k in order
              for s in starts}
        # Meltzer's Filterungsgrad per site: of the part variants Algorithm 1 would form there
        # (parts the machine can hold, at every candidate start), the share the site refuses
        filtered = {}
        for k in order:
            formed = [(i, s) for i in range(len(parts)) for s in starts if parts[i] <= self.sites[k].m]
            if formed:
                filtered[k] = sum(not ok[i, k, s] for i, s in formed) / len(formed)
        if len(parts) > len(order):
            self.booked[r] = (-1, (), 0, None, filtered, (-1, -1))
            return  # more parts than sites: refused without asking
        # Meltzer's listings 2 and 5: the part variants (start, site, part), shuffled ("randomize
        # tr": Fisher-Yates with the request's LCG) and for Algorithm 4 sorted by start
        # (stable; tree-unsorted: not, his 4.5 backfill algorithm); by-start: unshuffled, so starts
        # ascending and sites in the request's order.
        tr = [(s, k, i) for s in starts for k in order for i in range(len(parts))]
        if rules.variant_order in ("tree", "tree-sorted", "tree-unsorted"):
            state = (rules.seed * LCG_A + r) % 2**64
            for i in range(len(tr) - 1, 0, -1):
                state = (state * LCG_A + LCG_C) % 2**64
                j = (state >> 33) % (i + 1)
                tr[i], tr[j] = tr[j], tr[i]
            if (self.entry.start_sorted and rules.variant_order == "tree") \
                    or rules.variant_order == "tree-sorted":
                tr.sort(key=lambda v: v[0])

        def children(level, s, path):
            """A node's children in the tree: the next part's variants at its start, off the path."""
            return [(vs, k) for vs, k, i in tr if i == level and (level == 0 or vs == s) and k not in path]

        def paths(level, s, path):  # every complete path below, in depth-first order
            for vs, k in children(level, s, path):
                if ok[level, k, vs]:
                    if level == len(parts) - 1:
                        yield vs, path + (k,)
                    else:
                        yield from paths(level + 1, vs, path + (k,))

        variants = list(paths(0, None, ()))

        def walk(level, s, path):  # (found (start, path) or None, messages)
            sent = 0
            for vs, k in children(level, s, path):
                if self.entry.asks_every_site or ok[level, k, vs]:
                    sent += 1
                if not ok[level, k, vs]:
                    continue
                if level == len(parts) - 1:
                    return (vs, path + (k,)), sent
                found, more = walk(level + 1, vs, path + (k,))
                sent += more
                if found:
                    return found, sent
                sent += 1  # give the part back
            return None, sent

        def cost(s, path):
            return sum(p * rules.price(k, s, s + req.duration) for p, k in zip(parts, path, strict=True))

        messages = 0 if self.entry.pick == "weighted" else walk(0, None, ())[1]
        if not variants:
            self.booked[r] = (-1, (), messages, None, filtered, (-1, -1))
            return
        if self.entry.pick == "weighted":
            costs = [cost(s, path) for s, path in variants]
            lo, hi = min(costs), max(costs)
            first, last = min(s for s, _ in variants), max(s for s, _ in variants)

            def score(v):
                norm_cost = (costs[v] - lo) / (hi - lo) if hi > lo else 0.0
                norm_start = (variants[v][0] - first) / (last - first) if last > first else 0.0
                return rules.cost_weight * norm_cost + rules.start_weight * norm_start

            s, path = variants[min(range(len(variants)), key=score)]
            messages = len(parts)
        else:
            s, path = variants[0]
        span = (min(v for v, _ in variants), max(v for v, _ in variants))  # Meltzer's min/max_start
        self.booked[r] = (s, path, messages, cost(s, path), filtered, span)
        for p, k in zip(parts, path, strict=True):
            self.held[k].append([s, s + req.duration, p, False])

    def history_success(self, k, t, s, d, n):
        """Röblitz et al.'s esr_H, literally: idle processors (no job running, no reservation held)
        sampled every delta seconds before t; their mean over the samples whose interval meets
        [s, s + d) in the time of day (the site's m if none); 1, 2 - 2n / aip or 0."""
        delta, day = self.rules.history_seconds, 86_400
        m, jobs, start = self.sites[k].m, self.jobs, self.start

        def idle(b):
            running = sum(jobs[j].procs for j in range(len(jobs)) if start[j] is not None and start[j] >= 0
                          and self.where[j] == k and start[j] <= b < start[j] + jobs[j].run_time)
            return m - running - sum(p for a, e, p, _ in self.held[k].ever if a <= b < e)

        def seconds_of_day(x, length):  # [x, x + length) on the 24-hour circle, second by second
            return ((x + i) % day for i in range(min(length, day)))

        candidate = set(seconds_of_day(s, d))  # once per call; each sample's seconds are read lazily
        samples = [idle(b) for b in range(0, t, delta) if not candidate.isdisjoint(seconds_of_day(b, delta))]
        aip = sum(samples) / len(samples) if samples else float(m)
        return 1.0 if 2 * n <= aip else (2.0 - 2.0 * n / aip if n <= aip else 0.0)

    def admit_probe(self, r, t):
        """Röblitz et al.'s probe/reserve, literally: at the request's site, or at every site of its
        order that can hold its fewest processors, every processor count whose duration at that
        site's speed (d / speed, rounded half up, at least 1 s) fits the window, up to tsn_max
        earliest fits at least tss_gap apart (spread over the window or packed), filtered by the
        success estimate; all sites' candidates sorted by the preferences (stable: site order,
        count, slot), and the first that starts once its site's backlog clears is taken."""
        req, rules = self.requests[r], self.rules
        order = [req.site] if req.site >= 0 else list(req.order)
        candidates, messages, slots, clear = [], 0, 0, {}
        for k in order:
            m = self.sites[k].m
            if min(req.counts) > m:
                continue  # the site is smaller than the request
            clear[k] = (t + self.backlog(k, t) if rules.load_rule == "backlog"
                        else self.workload_end(k, t))
            messages, slots = self._probe_site(k, t, req, candidates, clear[k], (messages, slots))
        keys = {"earliest_end": lambda c: c[1] + c[2], "lowest_cost": lambda c: c[4],
                "fewest_processors": lambda c: c[0],
                "highest_success": lambda c: -c[3]}
        candidates.sort(key=lambda c: tuple(keys[p](c) for p in rules.preferences))
        refused = 0
        for n, s, d, _, cost, k in candidates:
            messages += 1
            if s >= clear[k]:
                self.booked[r] = (s, (k,), messages, cost, (slots, len(candidates), refused))
                self.held[k].append([s, s + d, n, False])
                return
            refused += 1
        self.booked[r] = (-1, (), messages, None, (slots, len(candidates), refused))

    def _probe_site(self, k, t, req, candidates, clear, counted):
        """Site k's time slots for ``req`` over the threshold, appended to ``candidates``; returns
        ``counted = (messages, slots)`` with this site's probes and slots added."""
        rules, m = self.rules, self.sites[k].m
        messages, slots = counted
        first = max(t, req.earliest)
        for n, d_ref in sorted(req.counts.items()):
            d = max(int(d_ref > 0), math.floor(d_ref * (1.0 / self.speed[k]) + 0.5))
            if n > m or first + d > req.deadline:
                continue
            messages += 1
            # Slot i aims at first + i * step: step = tss_gap packs them from the first fit; "cover"
            # stretches the step so tsn_max slots reach the latest start, deadline - d.
            step = max(rules.tss_gap, 1)
            if rules.probe_slots == "cover" and rules.tsn_max > 1:
                step = max(step, (req.deadline - d - first) // (rules.tsn_max - 1))
            x = first
            for i in range(rules.tsn_max):
                s = earliest_start(m, x, n, d, self.busy(k, t))
                if s + d > req.deadline:
                    break
                slots += 1
                if rules.estimate == "load":
                    success = 1.0 if s >= clear else 0.0
                elif rules.estimate == "static":
                    success = 1.0 - math.exp(-(s - t) / rules.success_seconds)
                else:
                    success = self.history_success(k, t, s, d, n)
                if success >= rules.threshold:
                    candidates.append((n, s, d, success, n * rules.price(k, s, s + d), k))
                x = max(s + max(rules.tss_gap, 1), first + (i + 1) * step)
        return messages, slots

    def admit_collective(self, r, t):
        """Cankar's placement, literally: candidate starts where some site's free count rises (and the
        earliest start), each site's least free count over the interval by brute force, and
        :func:`place_collective` at each start in order."""
        req, rules, sites = self.requests[r], self.rules, self.sites
        K = len(sites)
        first, last = max(t, req.earliest), req.deadline - req.duration
        profiles = [self.busy(k, t) for k in range(K)]

        def free(k, x):
            return sites[k].m - sum(p for a, b, p in profiles[k] if a <= x < b)

        starts = {first} | {b for k in range(K) for _, b, _ in profiles[k]
                            if first < b <= last and free(k, b) > free(k, b - 1)}
        state = (rules.seed * LCG_A + r) % 2**64
        for s in sorted(starts):
            if s > last:
                continue
            end = s + req.duration
            avail = [min(free(k, x) for x in [s, *(a for a, _, _ in profiles[k] if s < a < end)])
                     for k in range(K)]
            machine = [site.m for site in sites]
            placed, state = place_collective(avail, machine, req.bounds, rules.swaps, state)
            if placed:
                cost = sum(a * rules.price(k, s, s + req.duration) for k, a in placed)
                self.booked[r] = (s, tuple(k for k, _ in placed), len(placed), cost)
                for k, a in placed:
                    self.held[k].append([s, s + req.duration, a, False])
                return
        self.booked[r] = (-1, (), 0, None)


LCG_A, LCG_C = 6364136223846793005, 1442695040888963407


def place_collective(avail, machine, bounds, swaps, state):
    """``(placement, state)``: [(site, processors)] of a collective request at one start, [] if none
    (evogrid.sim.collective's rules: greedy by free processors, best improving swaps, then seeded
    random ones), with the generator's state after it."""
    N, d, e = bounds

    def ordered(ks):
        return sorted(ks, key=lambda k: (-avail[k], k))

    def allocation(ks):  # (factor or -1, [(site, processors)] in order)
        ks, rest, factor, out = ordered(ks), max(e - len(ks) * d, 0), 1.0, []
        for k in ks:
            extra = min(rest, avail[k] - d)
            rest -= extra
            out.append((k, d + extra))
            factor *= (machine[k] - avail[k] + d + extra) / machine[k]
        return (-1.0 if rest > 0 else factor), out

    def draw(state):
        state = (state * LCG_A + LCG_C) % 2**64
        return state >> 33, state

    eligible = ordered([k for k in range(len(avail)) if avail[k] >= d])
    chosen, total = [], 0
    for k in eligible:
        if len(chosen) == N or total >= e:
            break
        chosen.append(k)
        total += avail[k]
    if total < e or not chosen:
        return [], state
    best, placed = allocation(chosen)
    for _ in range(swaps[0] * N):
        top = (best, None)
        order = [k for k, _ in placed]
        for i in range(len(order)):
            for j in eligible:
                if j in order:
                    continue
                factor, trial = allocation(order[:i] + [j] + order[i + 1:])
                if factor > top[0]:
                    top = (factor, trial)
        if top[1] is None:
            break
        best, placed = top
    for _ in range(swaps[1] * N):
        order = [k for k, _ in placed]
        outside = [k for k in eligible if k not in order]
        if not outside:
            break
        i, state = draw(state)
        pick, state = draw(state)
        trial_order = order[:]
        trial_order[i % len(order)] = outside[pick % len(outside)]
        factor, trial = allocation(trial_order)
        if factor > best:
            best, placed = factor, trial
    return placed, state

