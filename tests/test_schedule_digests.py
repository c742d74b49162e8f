"""Schedules stay bit-identical: digests of start time, site and moves on the bundled logs."""

import json

from schedule_digests import STORED, digests


def test_schedules_match_stored_digests():
    stored = json.loads(STORED.read_text())
    now = digests()
    assert now.keys() == stored.keys()
    changed = sorted(k for k in stored if now[k] != stored[k])
    assert not changed, f"{len(changed)} schedules changed, e.g. {changed[:5]}"
