"""As Meltzer's Algorithm 2, each part admitted by its site's learned TSK admission rulebase
(evogrid.policy.admission builds them; evogrid.sim.reserving.admission_feature, what they see)."""

from __future__ import annotations

from evogrid.sim.admission.base import Algorithm

ENTRY = Algorithm("rulebase", 6, "information-rich",
                  "as 2, each part admitted by its site's TSK admission rulebase (learned)", ruled=True)
