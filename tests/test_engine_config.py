"""The engine's cheap look for pytest config files must know every file pytest reads."""

from __future__ import annotations

from detlint.engine import PYTEST_CONFIG_FILES
from detlint.pytest_config_files import CANDIDATES


def test_engine_knows_every_config_file_pytest_reads():
    # The engine keeps its own copy so that a run without knobs never imports
    # the config readers; this keeps the two lists from drifting apart.
    assert frozenset(name for name, _ in CANDIDATES) == PYTEST_CONFIG_FILES
