"""The exit status a step ends with when its tests fail.

Whether a soft fail or a retry that names exit statuses (Buildkite's ``soft_fail:
[{exit_status: 2}]`` or ``retry.automatic`` rules, GitLab's ``allow_failure:
{exit_codes: ...}`` and ``retry: {exit_codes: ...}``) acts on a test failure depends
on the status the CI system sees, and that is not always pytest's 1: GNU make turns
any failing recipe into 2 (``make test``), ``ctest`` fails with 8, ``cargo test``
with 101. The status of the test command the step's script runs passes through
``timeout``, ``xvfb-run``, containers and scripts unchanged unless they set one.

This reads a step's commands (``shell/commands.py``) and names the status of its
test commands: the first launcher the script hands its tests to decides, a pytest
run (1) before a make goal (2) before another runner (its own).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from detlint.readers.ci.facts import PYTEST_FAILED, CiCommand
from detlint.readers.ci.shell.commands import read_command
from detlint.readers.ci.shell.runners import MAKE_FAILED


def failure_status(texts: Sequence[str], errexit: bool = True, pipefail: bool = False) -> int:
    """The exit status a script of ``texts`` (one shell) ends with when its tests
    fail: 1 for pytest run directly (or for nothing detlint recognises), 2 when the
    tests run under make, a runner's own status otherwise."""
    facts = read_command("\n".join(texts), errexit=errexit, pipefail=pipefail)
    if facts.runs:
        return PYTEST_FAILED
    statuses = [call.callee.status for call in facts.calls if call.callee.status is not None]
    if MAKE_FAILED in statuses:
        return MAKE_FAILED
    return statuses[0] if statuses else PYTEST_FAILED


def status_of(commands: Sequence[CiCommand], pipefail: bool = False) -> Callable[[], int]:
    """``failure_status`` of a step's commands, worked out once, when a knob that names
    exit statuses first asks (most steps have none, and their text is not read here)."""

    @functools.cache
    def status() -> int:
        return failure_status([command.text for command in commands], pipefail=pipefail)

    return status
