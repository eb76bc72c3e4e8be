"""The date a quarantine says it ends: "until 2027-01-31", "expires 2026-12-01".

A skip or xfail that quarantines a test is meant to be temporary; teams write the day it
should go in its reason or in a comment beside it. Once that day has passed, the
quarantine hides the test past the time anyone agreed to, which is worth a finding of
its own. Only ISO dates (YYYY-MM-DD) after a word of ending count: a date alone ("fixed
in the 2026-05-01 release") says nothing of when the quarantine ends.

The day detlint compares with is today's, or ``DETLINT_TODAY`` (an ISO date) when set,
so that a run is reproducible.
"""

from __future__ import annotations

import os
import re
from datetime import date

_EXPIRY = re.compile(
    r"(?<![a-z0-9])(?:until|till|expires?(?: on)?|expiry|expiration|remove (?:by|after|on)|"
    r"revisit (?:by|on|after)|unquarantine (?:by|on|after)|through)\s*[:=]?\s*"
    r"(\d{4})-(\d{2})-(\d{2})(?![0-9])",
    re.IGNORECASE,
)


def expiry_date(*texts: str) -> date | None:
    """The first valid date a word of ending introduces in ``texts``, or None."""
    for text in texts:
        for match in _EXPIRY.finditer(text):
            try:
                return date(int(match[1]), int(match[2]), int(match[3]))
            except ValueError:
                continue
    return None


def today() -> date:
    """Today, or the ISO date ``DETLINT_TODAY`` names (a bad value is ignored)."""
    configured = os.environ.get("DETLINT_TODAY", "")
    try:
        return date.fromisoformat(configured) if configured else date.today()
    except ValueError:
        return date.today()
