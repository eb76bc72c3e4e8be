"""DET421 ci-reruns-flag: ``--reruns``, ``--retries`` or ``--force-flaky`` on a CI pytest
command reruns every failing test the step runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.base.span import Span
from detlint.compose.rerun_layers import suite_cap_note
from detlint.model import XFAIL, Policy, Reruns
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
    from detlint.compose.ci.run_options import RunOptions
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

    q = context.reference_rate
    for runs in by_place(context.ci_runs, place):
        options = runs[0].options
        span = options.span
        assert span is not None
        if reruns_no_violation(options) or reruns_visible(options):
            continue  # --only-rerun OSError ... or --fail-on-flaky: no failure is hidden
        gates = [g for run in runs for g in by_run.get(id(run), ())]
        if _reruns_nothing(options, gates):
            continue
        affected = [
            g
            for g in gates
            if g.inside.layers != g.own.layers
            and without_gate(g.inside).reported(q) < without_gate(g.own).reported(q)
        ]
        setting = options.reruns or options.retries
        count = setting.value if setting is not None and setting.value else 1
        plain = (Policy(layers=(Reruns(count),)), Policy())
        numbers, which, quoted = quoted_cost(affected, pair, plain, context)
        replay = ""
        if quoted is not None and which == f"in {quoted.label}":  # the numbers are its
            replay = replay_clause(quoted.base.test, "rerun", "the flag hides", elsewhere=True)
        message = (
            f"`{', '.join(options.flags)}` reruns every failing test of {steps_phrase(runs)}"
            f"{_session_words(options)}: {loss_phrase(numbers)} {group_reach(which, runs)}"
            f"{replay}"
        )
        if options.max_suite_reruns is not None:
            message += f"; {suite_cap_note(options.max_suite_reruns.value)}"
        help_text = (
            "drop the flag and give the tests that need it more in-test trials, or quarantine "
            f"the known-flaky ones visibly: {QUARANTINE}; or keep the reruns visible with "
            "`--fail-on-flaky` (pytest-rerunfailures: a test that passes only on a rerun "
            "makes the run exit 7)"
        )
        plan = rerun_options_plan(options, span, runs[0])
        yield finding("DET421", _option_line(span, runs[0]), message, help_text, numbers, fix=plan)
    yield from _ignore_flaky_runs(context, by_run)


def _ignore_flaky_runs(context: RuleContext, by_run: dict[int, list[CiGate]]) -> Iterator[Finding]:
    """DET421 for pytest-ignore-flaky's ``--ignore-flaky`` on a CI command line or in its
    ``PYTEST_ADDOPTS``: every failure of a ``flaky``-marked test the step runs reports as
    XFAIL, so those tests never fail the step. Reported where a marked test would have
    blocked without the option."""
    for runs in by_place(context.ci_runs, lambda run: run.options.ignore_flaky):
        span = runs[0].options.ignore_flaky
        assert span is not None
        affected = [
            g
            for run in runs
            for g in by_run.get(id(run), ())
            if g.own.gate.blocks
            and not g.inside.gate.blocks
            and any(knob.kind == "ignore-flaky" for knob in g.base.knobs)
        ]
        if not affected:
            continue  # no `flaky`-marked test the step runs would block without it
        numbers, which, _ = quoted_cost(
            affected, lambda g: (g.inside, g.own), (Policy(gate=XFAIL), Policy()), context
        )
        message = (
            "`--ignore-flaky` (pytest-ignore-flaky) reports every failure of a `flaky`-marked "
            f"test of {steps_phrase(runs)} as XFAIL: {loss_phrase(numbers)} "
            f"{group_reach(which, runs)}"
        )
        help_text = (
            "drop --ignore-flaky so that a failure of a marked test fails the step; a test that "
            f"must stay quarantined says so visibly: {QUARANTINE}"
        )
        yield finding("DET421", span, message, help_text, numbers)


def _reruns_nothing(options: RunOptions, gates: list[CiGate]) -> bool:
    """Whether pytest-rerunfailures' session options leave the command line's reruns
    nothing to rerun: ``--max-suite-reruns 0``, or every test linked to the run under a
    ``--rerun-exclude-path``."""
    if options.retries is not None or options.force_flaky is not None:
        return False
    cap = options.max_suite_reruns
    if cap is not None and cap.value <= 0:
        return True
    return bool(options.rerun_exclude_paths and gates) and all(
        any(note.startswith("--rerun-exclude-path") for note in g.base.notes) for g in gates
    )


def _session_words(options: RunOptions) -> str:
    """What the run's other pytest-rerunfailures options change in that reach."""
    words = ""
    if options.rerun_exclude_paths:
        paths = ", ".join(f"`{path}`" for path in options.rerun_exclude_paths)
        words += f" outside {paths} (--rerun-exclude-path)"
    if options.reruns_mode == "append":
        words += ", and adds to each `flaky` marker's own count (--reruns-mode append)"
    return words


def _option_line(span: Span, run: TestRun) -> Span:
    """Where a finding on a command's rerun option points: the line the option is written
    on, when the command goes on over lines (``pytest \\`` then ``--reruns 3``); the
    fix still edits the whole command."""
    at = run.run.reruns_at
    if at is None or span != run.span:
        return span
    if at.line <= run.run.line:
        return _folded(span, run)
    line = span.line + at.line - run.run.line
    return Span(span.path, line, 1, line, 1)


def _folded(span: Span, run: TestRun) -> Span:
    """A folded script (``run: >``) is one line of text written over several lines of
    the file, and its option may be on any of them: the finding covers the script from
    the command's line to the script's end, as the fix searches it."""
    command = run.command.span
    text_lines = run.command.text.rstrip("\r\n").count("\n") + 1
    folded = command.end_line - command.line > text_lines
    if not folded or span.end_line != span.line or command.end_line <= span.line:
        return span
    return Span(span.path, span.line, 1, command.end_line, command.end_column)
