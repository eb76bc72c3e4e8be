"""Where a CI run undoes a test's own rerun knob: what DET101 adds about CI.

A marker's numbers are worked out under the test's own pytest config. A CI step that
runs the test may change what the marker does: ``--only-rerun``/``--rerun-except``
on its command line reach every marker that names no filter of its own (so an
assertion failure is not rerun there), ``-p no:rerunfailures`` disables the plugin,
``--fail-on-flaky`` fails the run on a rerun that passes. The finding keeps the
numbers of a plain run and says, run by run, where CI sees every failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from detlint.base.percentages import percent
from detlint.rules.ci_wording import command_text

if TYPE_CHECKING:
    from detlint.base.span import Span
    from detlint.compose.ci.gates import CiGate
    from detlint.compose.ci.run_options import RunOptions
    from detlint.compose.test_gate import TestGate
    from detlint.rules.context import RuleContext

_SHOWN = 3  # runs named in a finding; the rest are counted


def undone_by_test(context: RuleContext) -> dict[str, list[CiGate]]:
    """The CI gates where a test's own knobs mask nothing, by the test's node id: worked
    out once for every marker a rule reports."""
    found: dict[str, list[CiGate]] = {}
    for ci_gate in context.ci_gates:
        if ci_gate.has_facts and not any(layer.masks for layer in ci_gate.inside.layers):
            found.setdefault(ci_gate.base.test.nodeid, []).append(ci_gate)
    return found


def unmasked_in_ci(
    masking: Sequence[TestGate], undone_gates: dict[str, list[CiGate]], context: RuleContext
) -> str:
    """ "; in CI, `pytest --only-rerun X tests` (ci.yml:7) hides nothing of it: …
    (reported 10.0% there)" for the runs of the marked tests where the knob masks
    nothing (``undone_by_test``); "" when no CI run changes it (or none runs the tests)."""
    undone: dict[Span, CiGate] = {}
    for nodeid in dict.fromkeys(gate.test.nodeid for gate in masking):
        for ci_gate in undone_gates.get(nodeid, ()):
            undone.setdefault(ci_gate.run.span, ci_gate)
    if not undone:
        return ""
    q = context.reference_rate
    parts = []
    for ci_gate in list(undone.values())[:_SHOWN]:
        run, span = ci_gate.run, ci_gate.run.span
        why = _why(run.options)
        because = f": {why}" if why else ""
        reported = percent(ci_gate.inside.reported(q))
        parts.append(
            f"`{command_text(run, 60)}` ({span.path}:{span.line}) hides nothing of it{because} "
            f"(reported {reported} there)"
        )
    more = f" and {len(undone) - _SHOWN} more runs" if len(undone) > _SHOWN else ""
    return f"; in CI, {'; '.join(parts)}{more}"


def _why(options: RunOptions) -> str:
    """The run's option that undoes the marker, as a reader checks it."""
    if options.disabled_plugins:
        names = ", ".join(f"-p no:{name}" for name in sorted(options.disabled_plugins))
        return f"{names} disables the plugin that reads the marker"
    if options.fail_on_flaky:
        return "--fail-on-flaky fails the run when a rerun passes"
    if options.only_rerun:
        patterns = ", ".join(repr(pattern) for pattern in options.only_rerun[:2])
        if len(options.only_rerun) > 2:
            patterns += f" and {len(options.only_rerun) - 2} more"
        return (
            f"its --only-rerun {patterns} reaches a marker with no filter of its own, and an "
            "assertion failure matches none"
        )
    if options.rerun_except:
        return "its --rerun-except reaches a marker with no filter of its own and excludes it"
    return ""
