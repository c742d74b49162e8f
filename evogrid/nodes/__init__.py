"""Nodes with several resources, after M. Cankar's dissertation (docs/coallocation.md).

Chapter 3, collective requests: a request asks for exactly N nodes of a
:class:`NodePool` at one common start, with per-resource minima on each
node (d_i) and over all of them (e_i); :func:`co_allocate` places it with
his phases I-VI. Chapter 4, co-location and vertical scaling: a batch of
:class:`ScalableJobs` goes through his preprocessor (:func:`preprocess`)
before a scheduler that cannot scale jobs (``evogrid.nodes.packing``).

This model is beside the processor-only sites of ``evogrid.sim``, whose
collective requests (``evogrid.sim.collective``) are evogrid's own form of
his chapter 3 on whole sites.
"""

from evogrid.nodes.allocate import (
    CankarLimits,
    ConcurrentOutcome,
    Optimum,
    Placement,
    co_allocate,
    co_allocate_concurrently,
    discovered,
    optimum,
)
from evogrid.nodes.cloud_jobs import scalable_batch
from evogrid.nodes.colocation import ScalableJobs, preprocess
from evogrid.nodes.pool import NodePool, planetlab_like
from evogrid.nodes.request import NodeRequest, cankar_cases

__all__ = ["CankarLimits", "ConcurrentOutcome", "NodePool", "NodeRequest", "Optimum", "Placement",
           "ScalableJobs", "cankar_cases", "co_allocate", "co_allocate_concurrently", "discovered", "optimum",
           "planetlab_like", "preprocess", "scalable_batch"]
