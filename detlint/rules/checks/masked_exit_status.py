"""DET431 masked-exit-status: ``pytest ... || true`` and its kin, after which the step
passes whatever pytest says.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.model import MASKED_EXIT, Policy
from detlint.readers.ci.shell.saved_status import saved_variable
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
        saved = _saved(runs[0].run.masked, runs[0].command, "pytest's exit status", runs)
        if saved is not None:
            yield finding("DET431", runs[0].span, saved, _SAVED_HELP)
            continue
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
        saved = _saved(masked, first.command, f"the exit status of `{first.name}`", where)
        if saved is not None:
            yield finding("DET431", first.span, saved, _SAVED_HELP)
            continue
        message = (
            f"{masked}{_note(first.command)} hides the exit status of `{first.name}` in "
            f"{where}: {loss_phrase(numbers)} {other_tests(first)}"
        )
        help_text = (
            "let the test run's exit status fail the step, and quarantine known-flaky tests "
            f"visibly: {QUARANTINE}"
        )
        yield finding("DET431", first.span, message, help_text, numbers)


_SAVED_HELP = (
    "fail the step on the saved status once the script has done what it needs (`exit "
    '$rc`, `[ -z "$FAILED" ] || exit 1`), or quarantine known-flaky tests visibly: '
    f"{QUARANTINE}"
)


def _saved(
    masked: str | None, command: CiCommand, what: str, where: str | list[TestRun]
) -> str | None:
    """The message for a failure saved in a variable the script reads later without
    failing the step on it (``|| TEST_STATUS=FAIL`` then ``if [ $TEST_STATUS = PASS ]``
    to pick what to do next): what the reading does with it is beyond what detlint
    follows, so it says so, without a figure."""
    read = saved_variable(masked) if masked is not None else None
    if read is None:
        return None
    phrase, variable = read
    steps = where if isinstance(where, str) else steps_phrase(where)
    return (
        f"{phrase}{_note(command)} keeps {what} from failing {steps}; the failure is saved "
        f"in `${variable}`, which the script reads later but not to fail the step: whether "
        "that reading reports it elsewhere (an output, a later step, a choice the script "
        "makes) is beyond what detlint follows, so it gives no figure"
    )


def _note(command: CiCommand) -> str:
    """What the CI system did to the text first (Buildkite's upload interpolation)."""
    return f" ({command.note})" if command.note else ""
