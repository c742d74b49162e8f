"""Co-allocation on nodes with several resources: Cankar's collective requests (dissertation, ch. 3).

A request asks for exactly N nodes of a :class:`NodePool` at one common
start, with per-resource minima on each node (d_i) and over all of them
(e_i); :func:`co_allocate` places it with his phases I-VI. This model is
beside the processor-only sites of ``evogrid.sim``, whose collective
requests (``evogrid.sim.collective``) are evogrid's own form of his idea on
whole sites (docs/coallocation.md).
"""

from evogrid.nodes.allocate import CankarLimits, Optimum, Placement, co_allocate, discovered, optimum
from evogrid.nodes.pool import NodePool, planetlab_like
from evogrid.nodes.request import NodeRequest, cankar_cases

__all__ = ["CankarLimits", "NodePool", "NodeRequest", "Optimum", "Placement", "cankar_cases",
           "co_allocate", "discovered", "optimum", "planetlab_like"]
