"""Rules on CI pipelines: DET302 ci-trial-override, DET401 soft-fail, DET411 job-retry,
DET421 ci-reruns-flag, DET431 masked-exit-status, DET501 stacked-retries.

A CI knob acts on every test its step runs, so each finding quotes the test it
costs most: how often a violation at the reference rate is reported with the
knob and without that one knob (every other layer kept), and how many test
files it gates. A knob on a step that runs no pytest detlint can see is reported
only when the step calls something named like a test runner (``ci_reach``), with
numbers that hold if that call runs tests.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from detlint.base.percentages import percent, percent_label
from detlint.base.span import Span
from detlint.model import BLOCKING, MASKED_EXIT, JobRetries, Policy, Reruns
from detlint.rules.ci_reach import scope, unseen_test_calls
from detlint.rules.ci_wording import (
    by_place,
    group_reach,
    reach,
    steps_phrase,
    test_files,
    unlinked,
)
from detlint.rules.context import RuleContext, covers, finding, loss_phrase, worst
from detlint.rules.finding import Finding, Loss
from detlint.rules.fix_plans import (
    job_retry_plan,
    rerun_options_plan,
    soft_fail_plan,
    unmask_plan,
)

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.compose.ci.run_options import RunOptions
    from detlint.compose.ci.test_run import TestRun
    from detlint.compose.test_policy import TestGate
    from detlint.readers.ci.facts import CiKnob

QUARANTINE = '@pytest.mark.xfail(strict=False, reason="<tracking issue>")'
GATE_KINDS = ("soft-fail", "continue-on-error", "allow-failure")
RETRY_KINDS = ("job-retry", "retry-action", "shell-retry")

# (with the knob, without it) for one gate
Pair = tuple[Policy, Policy]


def _loss(gate: CiGate | None, pair: Pair, context: RuleContext) -> Loss:
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
        trials_needed=Policy(trials=without.trials).trials_needed(q, context.target),
        instances=gate.base.instances if gate is not None else None,
    )


def _costliest(
    gates: Iterable[CiGate], pair: Callable[[CiGate], Pair], context: RuleContext
) -> tuple[CiGate, Loss] | None:
    scored = [(gate, _loss(gate, pair(gate), context)) for gate in gates]
    if not scored:
        return None
    return max(
        scored, key=lambda item: (item[1].reported_without - item[1].reported, item[0].label)
    )


def _quote(
    gates: list[CiGate], pair: Callable[[CiGate], Pair], plain: Pair, context: RuleContext
) -> tuple[Loss, str]:
    """The numbers a message quotes, and for which test."""
    costliest = _costliest(gates, pair, context)
    if costliest is None:
        return _loss(None, plain, context), "in a single-attempt test"
    gate, numbers = costliest
    if numbers.reported_without == 0:
        # Every test the knob reaches is xfail or skipped: "0% instead of 0%" says
        # nothing, while the knob still acts on any test the step runs next.
        return _loss(None, plain, context), (
            "in a single-attempt test (the tests it runs now are never reported either way: "
            "xfail or skipped)"
        )
    return numbers, f"in {gate.label}"


def _runs_of(knob: CiKnob, context: RuleContext) -> list[TestRun]:
    return [run for run in context.ci_runs if knob in run.knobs]


def _unseen_calls(knob: CiKnob, runs: list[TestRun], context: RuleContext) -> list[str] | None:
    """For a knob on steps without a pytest run detlint can see, the calls named like
    test runners it may gate through; None when the knob gates nothing of the kind."""
    if runs:
        return []
    calls = unseen_test_calls(scope(knob, context.ci_steps(knob)))
    return calls or None


def _described(
    knob: CiKnob, runs: list[TestRun], calls: list[str], which: str, context: RuleContext
) -> tuple[str, str]:
    """Which tests a knob's numbers are for, and where it acts: the linked runs, or
    the first call named like a test runner that detlint cannot see into."""
    if calls:
        which = f"in the tests `{calls[0]}` runs, if it runs any: detlint sees no pytest run in it"
    elif runs and not test_files(runs):
        return unlinked(runs[0]), _where(knob, runs, context)
    gated = reach(test_files(runs)) if runs else ""
    return which, "; ".join(p for p in (_where(knob, runs, context), gated) if p)


def _where(knob: CiKnob, runs: list[TestRun], context: RuleContext) -> str:
    steps = [run.step for run in runs] or list(context.ci_steps(knob))
    parts = [f"step {steps[0].name!r}"] if steps else []
    if knob.platform:
        parts.append(f"platform {knob.platform}")
    if knob.condition:
        parts.append(knob.condition)
    return "; ".join(parts)


def _without_gate(policy: Policy) -> Policy:
    return dataclasses.replace(policy, gate=BLOCKING)


def soft_fail(context: RuleContext) -> Iterator[Finding]:
    """DET401: a soft fail, continue-on-error or allow_failure that covers test failures."""
    if not context.ci_knobs:
        return  # nothing to import the CI linking for
    from detlint.compose.ci.gates import GATE_OF_KNOB

    for knob in context.ci_knobs:
        if knob.kind not in GATE_KINDS or not knob.covers_tests:
            continue
        runs = _runs_of(knob, context)
        calls = _unseen_calls(knob, runs, context)
        if calls is None:
            continue
        gates = [gate for gate in context.ci_gates if gate.ci_gate == knob]

        def pair(gate: CiGate) -> Pair:
            return gate.policy, dataclasses.replace(gate.policy, gate=gate.inside.gate)

        plain = (Policy(gate=GATE_OF_KNOB[knob.kind]), Policy())
        numbers, which = _quote(gates, pair, plain, context)
        which, details = _described(knob, runs, calls, which, context)
        message = (
            f"`{knob.key}: {knob.value}` lets failing tests pass the build: "
            f"{loss_phrase(numbers)} {which} ({details})"
        )
        if knob.kind == "soft-fail" and knob.value.lstrip().startswith("["):
            first = "soft-fail infrastructure exit statuses only and drop exit status 1"
        else:
            first = "let the step block on test failures"
        help_text = f"{first}, and quarantine the flaky tests visibly instead: {QUARANTINE}"
        yield finding("DET401", knob.span, message, help_text, numbers, fix=soft_fail_plan(knob))


_RETRY_HELP = {
    "buildkite": (
        "keep retrying infrastructure failures and stop retrying exit status 1: "
        "`retry: {automatic: [{exit_status: -1, limit: 2}, {exit_status: 255, limit: 2}]}`"
    ),
    "gitlab": (
        "retry infrastructure failures only: "
        "`retry: {max: 2, when: [runner_system_failure, stuck_or_timeout_failure]}`"
    ),
    "github": "retry timeouts only (`retry_on: timeout`), or drop the retry",
}


def _retry_pair(knob: CiKnob) -> Callable[[CiGate], Pair]:
    def pair(gate: CiGate) -> Pair:
        inside = gate.inside
        layers = [layer for k, layer in gate.retries if k == knob]
        return dataclasses.replace(inside, layers=(*inside.layers, *layers)), inside

    return pair


def job_retry(context: RuleContext) -> Iterator[Finding]:
    """DET411: a job retry (or a retry action) that reruns test failures."""
    for knob in context.ci_knobs:
        if knob.kind not in RETRY_KINDS or not knob.covers_tests or (knob.attempts or 0) < 2:
            continue
        runs = _runs_of(knob, context)
        calls = _unseen_calls(knob, runs, context)
        if calls is None:
            continue
        gates = [gate for gate in context.ci_gates if any(k == knob for k, _ in gate.retries)]
        plain = (Policy(layers=(JobRetries((knob.attempts or 1) - 1, knob.system),)), Policy())
        numbers, which = _quote(gates, _retry_pair(knob), plain, context)
        which, details = _described(knob, runs, calls, which, context)
        help_text = _RETRY_HELP[knob.system]
        what = f"`{knob.key}`"
        if knob.kind == "shell-retry":
            does = f"runs pytest again when it fails ({knob.attempts} attempts in all)"
            if knob.key.startswith("|| pytest --lf"):
                does = f"reruns the tests that failed ({knob.attempts} attempts in all)"
            elif not knob.key.startswith("||"):
                what = f"a `{knob.key.split()[0]}` loop of {knob.attempts} rounds"
                does = "runs pytest again until it passes"
            help_text = (
                "drop the retry from the script, and give the flaky tests more in-test "
                f"trials or quarantine them visibly: {QUARANTINE}"
            )
        elif knob.key.endswith("continue-on-error"):  # a chain of attempt steps
            does = f"starts {knob.attempts} attempts (later steps rerun the tests when it fails)"
            help_text = (
                "let the first attempt block and drop the ones after it, and quarantine "
                f"the known-flaky tests visibly: {QUARANTINE}"
            )
        else:
            does = f"runs a failing job up to {knob.attempts} times"
        message = f"{what} {does}: {loss_phrase(numbers)} {which} ({details})"
        yield finding("DET411", knob.span, message, help_text, numbers, fix=job_retry_plan(knob))


def _gates_by_run(context: RuleContext) -> dict[int, list[CiGate]]:
    """The gates of each run (by identity), built once per rule."""
    found: dict[int, list[CiGate]] = {}
    for gate in context.ci_gates:
        found.setdefault(id(gate.run), []).append(gate)
    return found


def _reruns_no_violation(options: RunOptions) -> bool:
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


def reruns_flag(context: RuleContext) -> Iterator[Finding]:
    """DET421: ``--reruns N``, ``--retries N`` or ``--force-flaky`` on a CI pytest command."""
    by_run = _gates_by_run(context)

    def pair(gate: CiGate) -> Pair:
        return _without_gate(gate.inside), _without_gate(gate.own)

    def place(run: TestRun) -> object | None:
        span = run.options.span
        return None if span is None else (span, run.options.flags)

    for runs in by_place(context.ci_runs, place):
        options = runs[0].options
        span = options.span
        assert span is not None
        if _reruns_no_violation(options):
            continue  # --only-rerun OSError ...: infrastructure failures only
        affected = [
            g for run in runs for g in by_run.get(id(run), ()) if g.inside.layers != g.own.layers
        ]
        setting = options.reruns or options.retries
        count = setting.value if setting is not None and setting.value else 1
        plain = (Policy(layers=(Reruns(count),)), Policy())
        numbers, which = _quote(affected, pair, plain, context)
        message = (
            f"`{', '.join(options.flags)}` reruns every failing test of {steps_phrase(runs)}: "
            f"{loss_phrase(numbers)} {group_reach(which, runs)}"
        )
        help_text = (
            "drop the flag and give the tests that need it more in-test trials, or quarantine "
            f"the known-flaky ones visibly: {QUARANTINE}"
        )
        plan = rerun_options_plan(options, span, runs[0])
        yield finding("DET421", span, message, help_text, numbers, fix=plan)


def masked_exit_status(context: RuleContext) -> Iterator[Finding]:
    """DET431: ``pytest ... || true`` and its kin: the step passes whatever pytest says."""
    by_run = _gates_by_run(context)

    def pair(gate: CiGate) -> Pair:
        inside = _without_gate(gate.inside)
        return dataclasses.replace(inside, gate=MASKED_EXIT), inside

    def place(run: TestRun) -> object | None:
        return None if run.run.masked is None else (run.span, run.run.masked)

    for runs in by_place(context.ci_runs, place):
        gates = [g for run in runs for g in by_run.get(id(run), ()) if g.inside.gate.blocks]
        numbers, which = _quote(gates, pair, (Policy(gate=MASKED_EXIT), Policy()), context)
        message = (
            f"{runs[0].run.masked} hides pytest's exit status in {steps_phrase(runs)}: "
            f"{loss_phrase(numbers)} {group_reach(which, runs)}"
        )
        help_text = (
            "let pytest's exit status fail the step (to keep a log, `set -o pipefail` before "
            f"`| tee`), and quarantine known-flaky tests visibly: {QUARANTINE}"
        )
        plan = unmask_plan(runs[0])
        yield finding("DET431", runs[0].span, message, help_text, numbers, fix=plan)


def trial_override(context: RuleContext) -> Iterator[Finding]:
    """DET302: a step sets a test's trial variable below the test's own default."""
    groups: dict[Span, list[CiGate]] = {}
    for gate in context.ci_gates:
        override = gate.override
        if override is not None and gate.inside.trials < gate.own.trials:
            groups.setdefault(override.span, []).append(gate)

    def pair(gate: CiGate) -> Pair:
        policy = _without_gate(gate.policy)
        return policy, dataclasses.replace(policy, trials=gate.own.trials)

    for span, gates in sorted(groups.items()):
        costliest = _costliest(gates, pair, context)
        assert costliest is not None
        gate, numbers = costliest
        assert gate.override is not None
        name, own = gate.override.name, gate.own.trials
        message = (
            f"step {gate.run.step.name!r} sets {name}={gate.inside.trials}, below the test's "
            f"own {own}: {loss_phrase(numbers)} in {gate.label} "
            f"({reach(path for g in gates for path in g.files)})"
        )
        help_text = f"drop the override, or set {name} to at least {own}"
        yield finding("DET302", span, message, help_text, numbers)


def stacked_retries(context: RuleContext) -> Iterator[Finding]:
    """DET501: a test retried inside pytest and again by its CI job."""
    groups: dict[CiKnob, list[CiGate]] = {}
    for gate in context.ci_gates:
        if gate.retries and any(layer.masks for layer in gate.inside.layers):
            groups.setdefault(gate.retries[0][0], []).append(gate)

    def pair(gate: CiGate) -> Pair:
        policy = _without_gate(gate.policy)
        return policy, Policy(trials=policy.trials)

    for knob, gates in groups.items():
        costliest = _costliest(gates, pair, context)
        assert costliest is not None
        gate, numbers = costliest
        attempts = 1
        for layer in gate.policy.layers:
            attempts *= _attempts(layer)
        inner = ", ".join(layer.describe() for layer in gate.inside.layers if layer.masks)
        message = (
            f"{gate.label} is retried inside pytest by {inner} and again by `{knob.key}` "
            f"({knob.attempts} {'attempts' if knob.kind == 'shell-retry' else 'job runs'}): "
            f"up to {attempts} attempts in total; "
            f"{loss_phrase(numbers)} ({reach(path for g in gates for path in g.files)})"
        )
        related = [k.span for k in gate.base.knobs if k.kind in ("rerun-marker", "config-reruns")]
        help_text = (
            "retry at one layer at most: stop retrying test failures (exit status 1) in the "
            f"job, drop the in-test rerun, and quarantine visibly: {QUARANTINE}"
        )
        yield finding("DET501", knob.span, message, help_text, numbers, related)


def _attempts(layer: object) -> int:
    """Runs one layer allows at most: reruns + 1, job retries + 1, or max_runs."""
    if isinstance(layer, Reruns):
        return layer.count + 1
    if isinstance(layer, JobRetries):
        return layer.limit + 1
    max_runs = getattr(layer, "max_runs", None)
    return max_runs if isinstance(max_runs, int) else 1


_NOT_MARK = re.compile(r"\bnot\s+([A-Za-z_]\w*)")


def deselected_flaky(context: RuleContext) -> Iterator[Finding]:
    """DET202 for CI: ``-m "not flaky"`` deselects the tests a repository tags as flaky.

    A tagged test that no step runs is as off and invisible as a skipped one;
    a step that still runs it somewhere (a nightly job) makes it no finding.
    """
    tagged: dict[str, dict[str, list[TestGate]]] = {}  # tag -> test path -> gates
    for gate in context.gates:
        for mark in gate.test.marks:
            if mark.kind in ("custom", "flaky"):
                tagged.setdefault(mark.name, {}).setdefault(gate.test.path, []).append(gate)
    if not tagged:
        return
    for run in context.ci_runs:
        for tag in _NOT_MARK.findall(run.run.markexpr or ""):
            files = tagged.get(tag, {})
            gates = [g for path in run.test_files if path in files for g in files[path]]
            if not gates or _run_elsewhere(tag, gates, context):
                continue
            gate, numbers = worst(gates, context)
            q = percent_label(context.reference_rate)
            message = (
                f"`-m {run.run.markexpr!r}` deselects the tests marked {tag!r} in step "
                f"{run.step.name!r} and no other step runs them: a {q} violation in "
                f"{gate.label} is never reported (was {percent(numbers.reported_without)}) "
                f"and nothing shows it ({covers(gates).removeprefix('; ') or '1 test'})"
            )
            help_text = (
                f"run them under a visible quarantine instead: {QUARANTINE}, or in a step "
                f"that selects them (`-m {tag}`) and reports its failures"
            )
            yield finding("DET202", run.span, message, help_text, numbers)


def _run_elsewhere(tag: str, gates: list[TestGate], context: RuleContext) -> bool:
    """Whether some run reaches these tests without deselecting ``tag``."""
    paths = {gate.test.path for gate in gates}
    return any(
        tag not in _NOT_MARK.findall(run.run.markexpr or "")
        and not paths.isdisjoint(run.test_files)
        for run in context.ci_runs
    )
