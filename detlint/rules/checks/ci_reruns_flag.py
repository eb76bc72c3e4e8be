"""DET421 ci-reruns-flag: ``--reruns``, ``--retries`` or ``--force-flaky`` on a CI pytest
command reruns every failing test the step runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.base.span import Span
from detlint.model import Policy, Reruns
from detlint.rules.ci_wording import (
    by_place,
    group_reach,
    steps_phrase,
)
from detlint.rules.context import RuleContext, finding, loss_phrase, replay_clause
from detlint.rules.finding import Finding
from detlint.rules.fix_plans import (
    rerun_options_plan,
)

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.compose.ci.test_run import TestRun
from detlint.rules.ci_costs import (
    Pair,
    gates_by_run,
    quoted_cost,
    reruns_no_violation,
    reruns_visible,
    without_gate,
)
from detlint.rules.context import QUARANTINE


def ci_reruns_flag(context: RuleContext) -> Iterator[Finding]:
    """DET421: ``--reruns N``, ``--retries N`` or ``--force-flaky`` on a CI pytest command."""
    by_run = gates_by_run(context)

    def pair(gate: CiGate) -> Pair:
        return without_gate(gate.inside), without_gate(gate.own)

    def place(run: TestRun) -> object | None:
        span = run.options.span
        return None if span is None else (span, run.options.flags)

    for runs in by_place(context.ci_runs, place):
        options = runs[0].options
        span = options.span
        assert span is not None
        if reruns_no_violation(options) or reruns_visible(options):
            continue  # --only-rerun OSError ... or --fail-on-flaky: no failure is hidden
        affected = [
            g for run in runs for g in by_run.get(id(run), ()) if g.inside.layers != g.own.layers
        ]
        setting = options.reruns or options.retries
        count = setting.value if setting is not None and setting.value else 1
        plain = (Policy(layers=(Reruns(count),)), Policy())
        numbers, which, quoted = quoted_cost(affected, pair, plain, context)
        replay = ""
        if quoted is not None and which == f"in {quoted.label}":  # the numbers are its
            replay = replay_clause(quoted.base.test, "rerun", "the flag hides", elsewhere=True)
        message = (
            f"`{', '.join(options.flags)}` reruns every failing test of {steps_phrase(runs)}: "
            f"{loss_phrase(numbers)} {group_reach(which, runs)}{replay}"
        )
        help_text = (
            "drop the flag and give the tests that need it more in-test trials, or quarantine "
            f"the known-flaky ones visibly: {QUARANTINE}; or keep the reruns visible with "
            "`--fail-on-flaky` (pytest-rerunfailures: a test that passes only on a rerun "
            "makes the run exit 7)"
        )
        plan = rerun_options_plan(options, span, runs[0])
        yield finding("DET421", _option_line(span, runs[0]), message, help_text, numbers, fix=plan)


def _option_line(span: Span, run: TestRun) -> Span:
    """Where a finding on a command's rerun option points: the line the option is written
    on, when the command goes on over lines (``pytest \\`` then ``--reruns 3``); the
    fix still edits the whole command."""
    at = run.run.reruns_at
    if at is None or span != run.span or at.line <= run.run.line:
        return span
    line = span.line + at.line - run.run.line
    return Span(span.path, line, 1, line, 1)
