"""DET101 retry-marker: a test-level retry (pytest-rerunfailures, pytest-retry, the flaky
package) and what it costs a test that checks a nondeterministic property.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.base.percentages import percent
from detlint.compose.plugins import RERUNFAILURES
from detlint.rules.ci_marker_runs import undone_by_test, unmasked_in_ci
from detlint.rules.finding import Finding, Loss
from detlint.rules.fix_plans import rerun_mark_plan

if TYPE_CHECKING:
    from detlint.compose.test_gate import TestGate
    from detlint.model import Policy
from detlint.rules.context import (
    QUARANTINE,
    RuleContext,
    alternatives,
    covers,
    elsewhere,
    finding,
    group_by_knob,
    group_by_mark,
    loss_phrase,
    replay_clause,
    runs_somewhere_else,
    trials_phrase,
    undecided_clause,
    worst,
)


def _layer_text(policy: Policy) -> str:
    """The masking layers as their knobs are written: ``reruns=3``, ``max_runs=3, min_passes=1``."""
    from detlint.model import FlakyRuns, Reruns

    parts = []
    for layer in policy.layers:
        if isinstance(layer, Reruns) and layer.masks:
            word = "reruns" if layer.plugin == RERUNFAILURES else "retries"
            parts.append(f"{word}={layer.count}")
        elif isinstance(layer, FlakyRuns) and layer.masks:
            parts.append(f"max_runs={layer.max_runs}, min_passes={layer.min_passes}")
    return ", ".join(parts)


def retry_marker(context: RuleContext) -> Iterator[Finding]:
    """DET101: every rerun marker or flaky decorator that lowers detection.

    The numbers are those of the test's primary environment, where it runs; a
    test that never runs or never blocks there (an unconditional skip or xfail)
    loses nothing to its marker, and its gate has a rule of its own.
    """
    groups = group_by_mark(context.gates, ("rerun-marker", "flaky-decorator"))
    undone = undone_by_test(context)
    for span, (mark, gates) in sorted(groups.items()):
        masking = [
            gate
            for gate in gates
            if gate.policy.gate.blocks
            and not gate.policy.inverted
            and any(layer.masks for layer in gate.policy.layers)
        ]
        if not masking:
            continue
        gate, numbers = worst(masking, context)
        what = "flaky decorator" if mark.kind == "flaky-decorator" else "rerun marker"
        details = [_layer_text(gate.policy)]
        condition = _retry_condition(gate)
        if condition:
            details[0] += f" where {condition}"
        if mark.via:
            details.append(f"through {' -> '.join(mark.via)}")
        if gate.plugin is not None:
            details.append(gate.plugin.evidence)
        details += _filter_notes(gate)
        details.append(trials_phrase(gate.test))
        where = " where the test runs" if runs_somewhere_else(gate) else ""
        several = len({g.test.nodeid for g in masking}) > 1
        replay = replay_clause(gate.test, "rerun", f"the {what.split()[-1]} hides", named=several)
        message = (
            f"{what} hides intermittent failures: {_cost(numbers, gate)}{undecided_clause(gate)}"
            f"{where} "
            f"({'; '.join(details)}{covers(masking)}){replay}"
            f"{elsewhere(gate, context.reference_rate)}{unmasked_in_ci(masking, undone, context)}"
        )
        help_text = alternatives(gate, numbers, "drop the marker")
        related = [mark.definition] if mark.definition is not None else []
        plan = rerun_mark_plan(
            mark, span, gate.test, numbers, context.quarantine_reason, context.tracking_pattern
        )
        yield finding("DET101", span, message, help_text, numbers, related, fix=plan)
    yield from ignored_flaky_markers(context)


def _retry_condition(gate: TestGate) -> str:
    """Where a conditional retry applies ("`sys.platform == 'win32'`")."""
    for knob in gate.knobs:
        if knob.mark is gate.rerun_mark and knob.kind in ("rerun-marker", "flaky-decorator"):
            return knob.condition
    return ""


def _filter_notes(gate: TestGate) -> list[str]:
    """The notes a message carries: filters detlint does not evaluate, a session cap that
    makes the quoted loss the most it can be (``--max-suite-reruns``), the global
    count added to the marker's (``--reruns-mode append``), and what pytest-retry does
    not limit or retry (a ``condition=`` never False, a fixture's failure)."""
    return [
        note
        for note in gate.notes
        if "detlint does not evaluate" in note
        or note.startswith(("--max-suite-reruns", "--reruns-mode append", "pytest-retry "))
    ]


def ignored_flaky_markers(context: RuleContext) -> Iterator[Finding]:
    """DET101 for pytest-ignore-flaky: under ``--ignore-flaky`` a failure of a
    ``flaky``-marked test, in any phase, reports as XFAIL, so its gate never blocks."""
    groups = group_by_knob(context.gates, ("ignore-flaky",))
    for span, (knob, gates) in sorted(groups.items()):
        ignored = [gate for gate in gates if gate.policy.baseline().reported(0.5) > 0]
        if not ignored:
            continue  # skipped wherever it would run: its skip has a rule of its own
        gate, numbers = worst(ignored, context)
        message = (
            "`flaky` marker never blocks: pytest-ignore-flaky reports a failure of the test as "
            f"XFAIL ({knob.description}), so {loss_phrase(numbers)} and shows only as XFAIL "
            f"({trials_phrase(gate.test)}{covers(ignored)})"
        )
        help_text = (
            "drop --ignore-flaky (or the marker) so that a failure fails the build; a test that "
            f"must stay quarantined says so visibly: {QUARANTINE}"
        )
        yield finding("DET101", span, message, help_text, numbers)


def _cost(numbers: Loss, gate: TestGate) -> str:
    """The loss at the reference rate; where it rounds away (a long trial loop
    catches the reference rate either way), the rate reported half the time."""
    phrase = loss_phrase(numbers)
    if not phrase.endswith("with or without it"):
        return phrase
    with_knob, without = gate.policy.q50(), gate.policy.baseline().q50()
    if with_knob is None or without is None:
        return phrase
    return (
        f"{phrase}, but a violation is reported half the time only from a rate of "
        f"{percent(with_knob)} with it, {percent(without)} without"
    )
