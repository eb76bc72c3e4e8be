"""What a CI knob costs, and for which test: the numbers every CI rule quotes.

A CI knob acts on every test its step runs, so each finding quotes the test it
costs most: how often a violation at the reference rate is reported with the
knob and without that one knob (every other layer kept), and how many test
files it gates. A knob on a step that runs no pytest detlint can see is reported
only when the step calls something named like a test runner (``ci_reach.py``),
with numbers that hold if that call runs tests.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from detlint.compose.ci.mark_expressions import keeps
from detlint.model import BLOCKING, Policy
from detlint.rules.ci_wording import (
    reach,
    test_files,
    unlinked,
)
from detlint.rules.context import RuleContext
from detlint.rules.finding import Loss

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.compose.ci.run_options import RunOptions
    from detlint.compose.ci.test_run import OtherRun, TestRun
    from detlint.readers.ci.facts import CiKnob


# (with the knob, without it) for one gate
Pair = tuple[Policy, Policy]


def ci_loss(gate: CiGate | None, pair: Pair, context: RuleContext) -> Loss:
    with_knob, without = pair
    q = context.reference_rate
    return Loss(
        reference_rate=q,
        target=context.target,
        trials=with_knob.trials,
        trials_env=gate.base.test.trials.env if gate is not None else None,
        reported=with_knob.reported(q),
        reported_without=without.reported(q),
        visible=with_knob.visible(q),
        trials_needed=Policy(trials=without.trials, threshold=without.threshold).trials_needed(
            q, context.target
        ),
        instances=gate.base.instances if gate is not None else None,
    )


def costliest(
    gates: Iterable[CiGate], pair: Callable[[CiGate], Pair], context: RuleContext
) -> tuple[CiGate, Loss] | None:
    # A strict xfail's retries hide a fixed bug, not a violation: it is quoted for none;
    # nor is a test the run's ``-m`` deselects, which the step does not run.
    scored = [
        (gate, ci_loss(gate, pair(gate), context))
        for gate in gates
        if not gate.base.policy.inverted and keeps(gate.run.run.markexpr, gate.base.test.markers)
    ]
    if not scored:
        return None
    # Of tests the knob costs alike, one that blocks (not skipped or xfail) is quoted.
    return max(
        scored,
        key=lambda item: (
            item[1].reported_without - item[1].reported,
            item[0].base.policy.gate.blocks,
            item[0].label,
        ),
    )


def quoted_cost(
    gates: list[CiGate], pair: Callable[[CiGate], Pair], plain: Pair, context: RuleContext
) -> tuple[Loss, str, CiGate | None]:
    """The numbers a message quotes, for which test, and the gate that costs most (None
    when the knob gates no test detlint links)."""
    found = costliest(gates, pair, context)
    if found is None:
        return ci_loss(None, plain, context), "in a single-attempt test", None
    gate, numbers = found
    if numbers.reported_without == 0:
        # Every test the knob reaches is xfail or skipped: "0% instead of 0%" says
        # nothing, while the knob still acts on any test the step runs next.
        return (
            ci_loss(None, plain, context),
            "in a single-attempt test (the tests it runs now are never reported either way: "
            "xfail or skipped)",
            gate,
        )
    return numbers, f"in {gate.label}", gate


def blocking_elsewhere(gate: CiGate | None, context: RuleContext) -> str:
    """When the tests the numbers are quoted for also run in another step of the same
    pipeline with no knob, no rerun option, no selection and a status that reaches that
    step, a clause that says so: a violation is reported there, in the same build, and
    the knob costs nothing for those tests."""
    if gate is None:
        return ""
    by_test = context.ci_index.plain_runs.get(gate.run.step.path, {})
    first: tuple[int, TestRun] | None = None  # the earliest in the pipeline file
    for test_file in gate.files:
        for position, run in by_test.get(test_file, ()):
            if run.step is not gate.run.step:
                if first is None or position < first[0]:
                    first = (position, run)
                break
    if first is None:
        return ""
    return (
        f"; the same tests also run in step {first[1].step.name!r} with no knob, which "
        "reports a violation: for them the knob costs nothing"
    )


def runs_of(knob: CiKnob, context: RuleContext) -> list[TestRun]:
    return list(context.ci_index.runs_by_knob.get(knob, ()))


def unseen_calls(knob: CiKnob, runs: list[TestRun], context: RuleContext) -> list[OtherRun] | None:
    """For a knob on steps without a pytest run detlint can see, the tests its steps run
    otherwise (another test runner, a call named like one that detlint cannot see into),
    test runners first; None when the knob gates nothing of the kind."""
    if runs:
        return []
    others = list(context.ci_index.others_by_knob.get(knob, ()))
    others.sort(key=lambda other: not other.end.certain)
    return others or None


def described(
    knob: CiKnob, runs: list[TestRun], calls: list[OtherRun], which: str, context: RuleContext
) -> tuple[str, str]:
    """Which tests a knob's numbers are for, and where it acts: the linked runs, or
    the first call named like a test runner that detlint cannot see into."""
    if calls:
        which = other_tests(calls[0])
    elif runs and not test_files(runs):
        return unlinked(runs[0]), where_it_acts(knob, runs, context)
    gated = reach(test_files(runs)) if runs else ""
    acts = where_it_acts(knob, runs, context, calls)
    return which, "; ".join(p for p in (acts, gated) if p)


def other_tests(other: OtherRun) -> str:
    """Which tests a knob's numbers are for when a step runs them otherwise: a runner's
    (a single-attempt test of them), or a call's that detlint cannot see into."""
    if other.end.certain:
        return (
            f"in a single-attempt test of those `{other.name}` runs (detlint links "
            "pytest runs test by test, not this runner's)"
        )
    return f"in the tests `{other.name}` runs, if it runs any: detlint sees no pytest run in it"


def where_it_acts(
    knob: CiKnob, runs: list[TestRun], context: RuleContext, others: Sequence[OtherRun] = ()
) -> str:
    steps = (  # the step whose tests the numbers are for, first
        [run.step for run in runs]
        or list(dict.fromkeys(other.step for other in others))
        or list(context.ci_steps(knob))
    )
    parts = [f"step {steps[0].name!r}"] if steps else []
    if knob.platform:
        parts.append(f"platform {knob.platform}")
    if knob.condition:
        parts.append(knob.condition)
    return "; ".join(parts)


def without_gate(policy: Policy) -> Policy:
    return dataclasses.replace(policy, gate=BLOCKING)


def gates_by_run(context: RuleContext) -> dict[int, list[CiGate]]:
    """The gates of each run (by identity), built once per rule."""
    found: dict[int, list[CiGate]] = {}
    for gate in context.ci_gates:
        found.setdefault(id(gate.run), []).append(gate)
    return found


def reruns_visible(options: RunOptions) -> bool:
    """Whether the command line's reruns are pytest-rerunfailures' alone under
    ``--fail-on-flaky``: a test that passes only on a rerun makes the run exit 7, so the
    step still fails on it and the reruns hide nothing."""
    return options.fail_on_flaky and options.retries is None and options.force_flaky is None


def reruns_no_violation(options: RunOptions) -> bool:
    """Whether the command line's reruns are pytest-rerunfailures' alone and its
    ``--only-rerun``/``--rerun-except`` keep an assertion violation from being rerun
    (trl's ``--only-rerun '(OSError|Timeout|HTTPError.*502)'``)."""
    if options.retries is not None or options.force_flaky is not None:
        return False
    if options.only_rerun is None and options.rerun_except is None:
        return False
    from detlint.compose.filters import rerunfailures_filter

    filtered = rerunfailures_filter(None, options.only_rerun or (), options.rerun_except or ())
    return filtered.masks is False
