"""Whether a CI script hides a pytest failure from the step's exit status, and how.

A script masks a run's failure when it ends with status 0 on every path on
which that run fails: ``pytest || true`` does, ``if [ -n "$CI" ]; then pytest
|| true; fi`` does too (the path on which pytest never runs does not count),
while ``pytest || exit 1`` does not. Conditions the
text cannot decide split the paths; this module follows each of them with a
``Simulation`` and names the construct that dropped the failure, for findings
to quote. When the paths are too many it says nothing rather than guess.
"""

from __future__ import annotations

from detlint.ci_pass.shell_effects import Analysis
from detlint.ci_pass.shell_nodes import CommandList, Simple
from detlint.ci_pass.shell_simulation import GiveUp, Simulation
from detlint.ci_pass.shell_state import Reason

_MAX_PATHS = 128  # paths explored per invocation before giving up (masked stays None)


def masking_reason(
    program: CommandList, analysis: Analysis, target: Simple, errexit: bool, pipefail: bool
) -> Reason | None:
    """Why the script ends with status 0 on every path on which ``target`` fails,
    or None when some path fails the step (or the target never runs, or the
    paths are too many to follow)."""
    enclosing = analysis.enclosing(target)
    pending: list[list[int]] = [[]]
    reason = None
    paths = 0
    while pending:
        if paths >= _MAX_PATHS:
            return None
        prefix = pending.pop()
        simulation = Simulation(target, prefix, analysis, enclosing)
        try:
            status = simulation.run(program, errexit, pipefail)
        except GiveUp:
            return None
        paths += 1
        for index in range(len(prefix), len(simulation.taken)):
            for alternative in range(1, simulation.widths[index]):
                pending.append([*simulation.taken[:index], alternative])
        if not simulation.ran:
            continue
        if status.code != 0:
            return None
        if reason is None:
            reason = simulation.reason or Reason("exit status replaced", target.start, target.end)
    return reason
