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
    from detlint.compose.ci.test_run import TestRun
from detlint.rules.ci_costs import Pair, gates_by_run, quoted_cost, without_gate
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
        # What the CI system did to the text first (Buildkite's upload interpolation).
        note = f" ({runs[0].command.note})" if runs[0].command.note else ""
        message = (
            f"{runs[0].run.masked}{note} hides pytest's exit status in {steps_phrase(runs)}: "
            f"{loss_phrase(numbers)} {group_reach(which, runs)}"
        )
        help_text = (
            "let pytest's exit status fail the step (to keep a log, `set -o pipefail` before "
            f"`| tee`), and quarantine known-flaky tests visibly: {QUARANTINE}"
        )
        plan = unmask_plan(runs[0])
        yield finding("DET431", runs[0].span, message, help_text, numbers, fix=plan)
