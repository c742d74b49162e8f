"""As Meltzer's Algorithm 2, each part admitted by a user's Python admission policy
(evogrid.sim.python_policy.AdmissionPolicy, given as ``ReservationRules(policy=...)``)."""

from __future__ import annotations

from evogrid.sim.admission.base import Algorithm

ENTRY = Algorithm("python", 9, "information-rich",
                  "as 2, each part admitted by a Python AdmissionPolicy (ReservationRules.policy)",
                  asks_python=True)
