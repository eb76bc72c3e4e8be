"""The audit's CI steps: each pytest invocation in a pipeline, what gates it and
what it reaches, as the report's table of steps shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detlint.report.audit.facts import StepView
from detlint.report.audit.knobs import ci_knob_text, median

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.engine import Analysis


def step_views(analysis: Analysis, rate: float) -> list[StepView]:
    ci = analysis.ci
    if ci is None:
        return []
    by_run: dict[int, list[CiGate]] = {}
    for gate in ci.gates:
        by_run.setdefault(id(gate.run), []).append(gate)
    steps = []
    for run in ci.runs:
        gates = by_run.get(id(run), [])
        with_facts = [gate for gate in gates if gate.has_facts]
        policies = [gate.policy for gate in gates]
        text = run.command.text.replace("\\\n", " ")
        first = next((" ".join(line.split()) for line in text.splitlines() if line.strip()), "")
        gate_kinds = sorted({policy.gate.describe() for policy in policies})
        steps.append(
            StepView(
                step=run.step.name,
                system=run.step.system,
                path=run.span.path,
                line=run.span.line,
                command=first[:160],
                knobs=tuple(ci_knob_text(knob) for knob in run.knobs),
                tests=len({gate.label for gate in with_facts}),
                test_files=len(run.test_files),
                directories=tuple(sorted({p.rpartition("/")[0] or "." for p in run.test_files})),
                gate="; ".join(gate_kinds) if gate_kinds else "blocks the build",
                reported=median([policy.reported(rate) for policy in policies]),
                reported_without=median([policy.baseline().reported(rate) for policy in policies]),
            )
        )
    steps.sort(key=lambda step: (not step.knobs, step.path, step.line))
    return steps


def files_under_ci_knobs(analysis: Analysis, listed: set[str]) -> set[str]:
    """The test files CI steps with a hiding knob run whose tests have no facts of
    their own (linked as one gate per run, not test by test), less the listed ones."""
    if analysis.ci is None:
        return set()
    found: set[str] = set()
    by_run: dict[int, list[CiGate]] = {}
    for gate in analysis.ci.gates:
        by_run.setdefault(id(gate.run), []).append(gate)
    for run in analysis.ci.runs:
        gates = by_run.get(id(run), [])
        if any(not gate.has_facts and gate.policy.masks for gate in gates):
            linked = {gate.base.test.path for gate in gates if gate.has_facts}
            found.update(path for path in run.test_files if path not in linked)
    return found - listed
