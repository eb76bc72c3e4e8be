"""How many processes a run spreads its work over.

Apart from :mod:`detlint.base.parallel` (which imports ``pickle``), so that a run that
never forks (a pre-commit check of one file) asks this without importing it.
"""

from __future__ import annotations

import os


def default_jobs() -> int:
    """One process per core this one may use, at most 8; one where ``fork`` is missing."""
    if not hasattr(os, "fork"):
        return 1
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1, 8))
