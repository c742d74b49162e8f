"""The integer codes of the compiled grid loop's choices, importable without numpy or numba.

The registries of :mod:`evogrid.policy.registry` name them; the loop
(:mod:`evogrid.sim.grid`, :mod:`evogrid.sim.features`) branches on them.
LRMS codes live with their rules in :mod:`evogrid.sim.lrms`.
"""

#: Exchange schemes: decentralised exchange, central pool, active request.
EXCHANGE, POOL, ACTIVE = 0, 1, 2
#: Transfer policies (``T_BROKER``: the origin sends each job to the best site by its location policy).
T_LOCAL, T_AWF, T_RULEBASE, T_BROKER = 0, 1, 2, 3
#: A transfer policy written as a Python class (evogrid.sim.python_policy): the loop pauses to ask it.
T_PYTHON = 4
#: Location policies: orders of partners (and, for a broker, of every qualified site).
L_FIXED, L_RANDOM, L_AWRT, L_LEAST_LOAD, L_OLB = 0, 1, 2, 3, 4
L_MET, L_MCT, L_MIN_MIN, L_MAX_MIN, L_RANK = 5, 6, 7, 8, 9
#: A location policy written as a Python class (evogrid.sim.python_policy).
L_PYTHON = 10
#: The debt account (Lepping 11.2.1, evogrid's reading).
L_DEBT = 11
#: Beichter's original and new policies (his 3.4 and 7.1.2).
L_BEICHTER_OLD, L_BEICHTER_NEW = 12, 13
#: How a new job meets the central pool.
A_FIRST, A_QUEUED, A_FIRST_POOL = 0, 1, 2
#: What an active request does with a job it takes: append it to the requesting site's queue (the
#: published rule: a job that does not start there is offered again), start it at once, or append
#: every job that fits the free processors, without EASY's condition (the published rule otherwise).
AA_QUEUE, AA_START, AA_FITS = 0, 1, 2
#: When a broker hands a job over: at its arrival (Beichter's interactive mode); while no site it
#: may go to has room for it now, later from the grid's holding queue (his proposal in 8.1.6); or
#: from the holding queue at the next multiple of a batch interval or once a batch's number of jobs
#: is held (his batch mode, 5.3.2).
H_INTERACTIVE, H_WHEN_ROOM, H_BATCH = 0, 1, 2
#: What a broker does with a job that its location policy would hand to no site (every site's key is
#: ``REFUSED_KEY``): refuse it (Beichter: the client is told that no resource is free; the job never
#: runs) or keep it at its origin (evogrid's earlier reading).
R_REFUSE, R_KEEP = 0, 1
#: What the grid's slots and maxjobs at a site (``grid_slots``, ``grid_maxjobs``: LoadLeveler's
#: ``maxslots`` of the grid's class and its user's ``maxjobs``) do: LoadLeveler starts no job from
#: another site there while such jobs running there would exceed either, and Beichter's policies
#: read them (his clusters); or only his policies read them (evogrid's earlier reading).
S_ENFORCED, S_READ = 0, 1
#: The first key of a site a location policy would not hand the job to (Beichter's full queues):
#: above every other key (his new policy's queue ratio reaches 3 where the grid's slots exceed 2 m).
REFUSED_KEY = float("inf")
#: What a transfer rulebase does with a decision whose features leave its declared ranges: its rules
#: answer anyway (the dissertation), or the site decides as AWF (ours).
O_RULES, O_AWF = 0, 1
#: Decision features of fuzzy rulebases: transfer decisions (a job on offer) ...
F_NWP, F_NJP, F_UTIL, F_QLEN, F_EST_HOURS = 0, 1, 2, 3, 4
#: ... and reservation admission (a part of a request at a candidate start; F_NWP serves both).
F_LEAD, F_PART, F_RESERVED, F_BEFORE_NEXT = 5, 6, 7, 8
#: ... and the ranking of a candidate site for a job (with the transfer features, seen at that site).
F_LOAD_AFTER, F_SPEED, F_WAIT_HOURS = 9, 10, 11
