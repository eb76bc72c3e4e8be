"""DET431 masked-exit-status: ``pytest ... || true`` and its kin, after which the step
passes whatever pytest says.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.model import MASKED_EXIT, Policy
from detlint.rules.ci_wording import (
    by_place,
    group_reach,
    steps_phrase,
)
from detlint.rules.context import RuleContext, finding, loss_phrase
from detlint.rules.finding import Finding
from detlint.rules.fix_plans import (
    unmask_plan,
)

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.compose.ci.test_run import OtherRun, TestRun
    from detlint.readers.ci.facts import CiCommand
from detlint.rules.ci_costs import Pair, gates_by_run, other_tests, quoted_cost, without_gate
from detlint.rules.context import QUARANTINE


def masked_exit_status(context: RuleContext) -> Iterator[Finding]:
    """DET431: ``pytest ... || true`` and its kin: the step passes whatever pytest says."""
    by_run = gates_by_run(context)

    def pair(gate: CiGate) -> Pair:
        inside = without_gate(gate.inside)
        return dataclasses.replace(inside, gate=MASKED_EXIT), inside

    def place(run: TestRun) -> object | None:
        return None if run.run.masked is None else (run.span, run.run.masked)

    for runs in by_place(context.ci_runs, place):
        gates = [g for run in runs for g in by_run.get(id(run), ()) if g.inside.gate.blocks]
        numbers, which, _ = quoted_cost(gates, pair, (Policy(gate=MASKED_EXIT), Policy()), context)
        message = (
            f"{runs[0].run.masked}{_note(runs[0].command)} hides pytest's exit status in "
            f"{steps_phrase(runs)}: {loss_phrase(numbers)} {group_reach(which, runs)}"
        )
        help_text = (
            "let pytest's exit status fail the step (to keep a log, `set -o pipefail` before "
            f"`| tee`), and quarantine known-flaky tests visibly: {QUARANTINE}"
        )
        plan = unmask_plan(runs[0])
        yield finding("DET431", runs[0].span, message, help_text, numbers, fix=plan)
    yield from _masked_others(context)


def _masked_others(context: RuleContext) -> Iterator[Finding]:
    """The same for tests run otherwise (``python -m unittest || true``, ``make test ||
    true`` whose recipe runs them, a script named like a test runner): one finding per
    place the status is dropped, with the numbers of a single-attempt test."""
    groups: dict[tuple[object, str], list[OtherRun]] = {}
    for other in context.ci_others:
        if other.masked is not None:
            groups.setdefault((other.span, other.masked), []).append(other)
    plain = (Policy(gate=MASKED_EXIT), Policy())
    numbers, _, _ = quoted_cost([], lambda gate: plain, plain, context)  # one per test
    for (_, masked), others in groups.items():
        first = others[0]
        steps = list(dict.fromkeys(other.step.name for other in others))
        where = f"step {steps[0]!r}" + (f" and {len(steps) - 1} more" if len(steps) > 1 else "")
        message = (
            f"{masked}{_note(first.command)} hides the exit status of `{first.name}` in "
            f"{where}: {loss_phrase(numbers)} {other_tests(first)}"
        )
        help_text = (
            "let the test run's exit status fail the step, and quarantine known-flaky tests "
            f"visibly: {QUARANTINE}"
        )
        yield finding("DET431", first.span, message, help_text, numbers)


def _note(command: CiCommand) -> str:
    """What the CI system did to the text first (Buildkite's upload interpolation)."""
    return f" ({command.note})" if command.note else ""
