"""Conservative backfilling: every waiting job holds a reservation on the availability profile
(evogrid.sim.profile; the core's ``backfill_on_profile`` judges the jobs, not a rule)."""

from __future__ import annotations

from evogrid.sim.lrms.base import Lrms

ENTRY = Lrms("conservative", 3, "conservative backfilling: every waiting job holds a reservation; "
             "a job may start early only if it delays none", profile=True)
