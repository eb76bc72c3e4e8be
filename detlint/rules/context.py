"""What every rule sees, and the wording that states a knob's cost.

All model-backed findings say the same three things the same way: how often a
violation at the reference rate is reported with the knob and without it, where
the trial count comes from, and the two better alternatives with numbers. The
phrases live here so the rules cannot drift apart.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from detlint.base.percentages import percent, percent_label
from detlint.base.span import Span
from detlint.readers.project.pytest_config import PytestConfig
from detlint.readers.python.facts import Mark, TestFunction
from detlint.readers.python.options import HOOK_TEST
from detlint.readers.python.param_facts import Covered
from detlint.rules.catalogue import RULES
from detlint.rules.class_reach import built_by, hedged, installed, where_defined
from detlint.rules.finding import Finding, Loss
from detlint.rules.fix_plans import DEFAULT_QUARANTINE_REASON
from detlint.rules.trial_advice import more_trials

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.compose.ci.script_runs import ScriptLink
    from detlint.compose.ci.test_run import OtherRun, TestRun
    from detlint.compose.ci.unreached_runs import UnreachedRun
    from detlint.compose.test_gate import Knob, TestGate
    from detlint.model import Policy
    from detlint.readers.ci.facts import CiKnob, CiStep
    from detlint.rules.ci_index import CiIndex
    from detlint.rules.plans import FixPlan

# The quarantine the help lines suggest: the one a quarantine fix writes by default
# (the `quarantine-reason` setting), so that the help and the fix say the same.
QUARANTINE = f'@pytest.mark.xfail(strict=False, reason="{DEFAULT_QUARANTINE_REASON}")'
# Where the options of a test module's own ``pytest.main`` act, as each finding on them says.
SCRIPT_CONDITION = "when the file is run as a script (`python <file>`, as a Bazel py_test does)"


@dataclass(frozen=True)
class RuleContext:
    gates: tuple[TestGate, ...]
    configs: tuple[PytestConfig, ...]
    reference_rate: float
    target: float
    tracking_pattern: str
    selected: frozenset[str]
    ci_knobs: tuple[CiKnob, ...] = ()  # every knob of every pipeline read
    ci_runs: tuple[TestRun, ...] = ()  # every pytest invocation found in a pipeline
    ci_gates: tuple[CiGate, ...] = ()  # every test as each run runs it
    ci_others: tuple[OtherRun, ...] = ()  # tests steps run that are not linked test by test
    ci_steps: Callable[[CiKnob], Sequence[CiStep]] = lambda knob: ()  # the steps a knob is on
    quarantine_reason: str | None = None  # the configured placeholder for a tracking issue
    scripts: tuple[ScriptLink, ...] = ()  # test modules' own pytest.main, with their tests
    unreached: tuple[UnreachedRun, ...] = ()  # commands written where no pipeline runs them

    @functools.cached_property
    def ci_index(self) -> CiIndex:
        """The runs and gates by knob and by pipeline file, built on first use (a
        frozen dataclass still has the ``__dict__`` the cache is kept in)."""
        from detlint.rules.ci_index import build_ci_index

        return build_ci_index(self.ci_runs, self.ci_gates, self.ci_others)


def loss(gate: TestGate, context: RuleContext, policy: Policy | None = None) -> Loss:
    """The gate's numbers under ``policy`` (its primary policy unless another is
    given, such as the one where a knob's condition holds)."""
    policy = policy or gate.policy
    q = context.reference_rate
    baseline = policy.baseline()
    return Loss(
        reference_rate=q,
        target=context.target,
        trials=policy.trials,
        trials_env=gate.test.trials.env,
        reported=policy.reported(q),
        reported_without=baseline.reported(q),
        visible=policy.visible(q),
        trials_needed=baseline.trials_needed(q, context.target),
        instances=None if gate.test.more_instances else gate.instances,
    )


def worst(gates: Iterable[TestGate], context: RuleContext) -> tuple[TestGate, Loss]:
    """The gate whose knob costs most at the reference rate (the one a message quotes)."""
    scored = [(gate, loss(gate, context)) for gate in gates]
    return max(
        scored, key=lambda item: (item[1].reported_without - item[1].reported, item[0].label)
    )


def trials_phrase(test: TestFunction) -> str:
    return test.trials.describe()


def covers(gates: Sequence[TestGate], knob: Span | None = None) -> str:
    """The reach of a knob that applies to more than one test instance.

    e.g. "; covers 3 tests, 12 test instances". ``knob``: the span of a knob in the
    tests' bodies whose guards read their parametrize arguments (``Mark.covered``),
    which reaches only the instances where they hold.
    """
    if any(gate.test.name == HOOK_TEST for gate in gates):
        return "; reaches every test the hook marks"
    if unknown := installed(gates):
        return unknown
    # Test functions, not gates: the instances a `pytest.param` mark covers are a gate
    # of their own, yet no other test, and the test's own gate counts them already.
    by_test: dict[tuple[str, str | None, str], list[TestGate]] = {}
    for gate in gates:
        by_test.setdefault((gate.test.path, gate.test.class_name, gate.test.name), []).append(gate)
    by_test, unsure = where_defined(by_test, knob)
    phrase = _count_phrase(by_test, knob)
    built = built_by(gates)
    return hedged(phrase, len(by_test), unsure, built) if unsure or built or not by_test else phrase


def covers_clause(gates: Sequence[TestGate], knob: Span | None = None) -> str:
    """``covers`` as a clause of its own: " (covers 3 tests)", or nothing for one test."""
    text = covers(gates, knob)
    return f" ({text.removeprefix('; ')})" if text else ""


def _count_phrase(
    by_test: dict[tuple[str, str | None, str], list[TestGate]], knob: Span | None
) -> str:
    """ "; covers 3 tests, 12 test instances" for the tests in ``by_test``."""
    tests = by_test
    # Fixtures detlint cannot read may parametrize a test further: its count is a floor.
    floor = any(gate.test.more_instances for group in by_test.values() for gate in group)
    reach = [_covered(group, knob) for group in by_test.values()]
    if any(found is not None for found in reach):
        counts = [None if floor else _instances(g) for g in by_test.values()]
        return _covered_phrase(len(tests), reach, counts)
    counts = [_instances(group) for group in by_test.values()]
    instances = None if any(c is None for c in counts) else sum(c for c in counts if c is not None)
    parts = []
    if len(tests) > 1:
        parts.append(f"{len(tests)} tests")
    if instances is not None and instances > 1:
        parts.append(f"{'at least ' if floor else ''}{instances} test instances")
    elif instances is None:
        parts.append("parametrized, instances unknown")
    return f"; covers {', '.join(parts)}" if parts else ""


def _covered(gates: Sequence[TestGate], knob: Span | None) -> Covered | None:
    """What the knob at ``knob`` reaches of one test, where its guards decide it."""
    if knob is None:
        return None
    for gate in gates:
        for mark in gate.test.marks:
            if mark.span == knob and mark.covered is not None:
                return mark.covered
    return None


def knob_instances(gate: TestGate, knob: Span) -> int | None:
    """The instances of ``gate`` the knob at ``knob`` reaches: all of the gate's, unless
    guards that read its parametrize arguments narrow them (None where uncounted)."""
    if gate.test.more_instances:
        return None  # a floor, not a count
    found = _covered([gate], knob)
    return gate.instances if found is None else found.count


def _covered_phrase(
    tests: int, reach: Sequence[Covered | None], counts: Sequence[int | None]
) -> str:
    """ "; covers 1 of 16 test instances", or, where the guards cannot be evaluated,
    "; covers the instances where `<guard>` (of 16)"."""
    covered = [c.count if c is not None else n for c, n in zip(reach, counts, strict=True)]
    where = next(c.where for c in reach if c is not None)
    head = f"{tests} tests, " if tests > 1 else ""
    total = None if None in counts else sum(n or 0 for n in counts)
    if None in covered or total is None:
        return f"; covers {head}the instances where {where}" + (
            f" (of {total})" if total is not None else " (parametrized, instances unknown)"
        )
    return f"; covers {head}{sum(n or 0 for n in covered)} of {total} test instances"


def _instances(gates: Sequence[TestGate]) -> int | None:
    """The instances one test's gates cover: all of the test's where its own gate is
    among them (a knob on the function), else those of its `pytest.param` gates."""
    for gate in gates:
        if gate.label == gate.test.nodeid:
            return gate.instances
    counts = [gate.instances for gate in gates]
    return None if any(c is None for c in counts) else sum(c for c in counts if c is not None)


def replay_clause(
    test: TestFunction,
    attempt: str,
    hides: str,
    reaches: tuple[str, ...] = ("body", "setup"),
    named: bool = False,
    elsewhere: bool = False,
    figures: str = "these figures hold",
) -> str:
    """What a finding adds when every attempt of the test it quotes replays the same draw
    (``TestFunction.replays``): "; but every attempt replays the same seed (...): a
    failure that seed decides fails every rerun alike, ...".

    The figures before it count attempts as independent draws; for a seeded test they
    hold only for what the seed does not decide. ``reaches`` names the set-ups the
    knob's attempts repeat (a retry decorator repeats the body alone: "body"), ``hides``
    the knob with its verb ("the marker hides");
    ``named`` names the test, when the finding covers several, and ``elsewhere`` says
    the finding is on another file (a pipeline's), so the seed's path is given too;
    ``figures`` names what holds only beyond the seed ("that holds" for a finding that
    quotes no figure).
    """
    replay = test.replays
    if replay is None or replay.reach not in reaches:
        return ""
    whose = f" of {test.nodeid}" if named else ""
    if replay.kind == "seed":
        what, decides, beyond = "seed", "that seed decides", "the seed (kernel scheduling, threads"
    else:
        what, decides = "recording", "the recorded responses decide"
        beyond = "the recording (threads"
    where = replay.describe("" if elsewhere else test.path)
    return (
        f"; but every attempt{whose} replays the same {what} ({where}): "
        f"a failure {decides} fails every {attempt} alike, so {hides} none of those, and "
        f"{figures} only for nondeterminism beyond {beyond}, timing)"
    )


def single_attempt_loss(policy: Policy, context: RuleContext) -> Loss:
    """The numbers of a test of one attempt and one trial under ``policy``: what a
    setting whose tests are not linked one by one (a config's or an unreached script's
    reruns) is quoted for."""
    q, target = context.reference_rate, context.target
    return Loss(
        reference_rate=q,
        target=target,
        trials=1,
        trials_env=None,
        reported=policy.reported(q),
        reported_without=policy.baseline().reported(q),
        visible=policy.visible(q),
        trials_needed=policy.baseline().trials_needed(q, target),
        instances=None,
    )


def loss_phrase(numbers: Loss) -> str:
    """ "a 10% violation is reported 2.8% of the time instead of 41.0%", never "X instead
    of X": where both round alike, more digits tell them apart, or it says so."""
    q = percent_label(numbers.reference_rate)
    with_knob, without = distinct_percents(numbers.reported, numbers.reported_without)
    if with_knob == without:
        return f"a {q} violation is reported {with_knob} of the time with or without it"
    return f"a {q} violation is reported {with_knob} of the time instead of {without}"


def undecided_clause(gate: TestGate) -> str:
    """ " if rerun_filter=`check` retries an assertion failure": the condition a headline
    figure rests on when a filter detlint cannot decide stands between the violation and
    the retry (the figure where it does not is the message's "elsewhere")."""
    if not gate.undecided:
        return ""
    return f" if {' and '.join(gate.undecided)} lets an assertion failure be retried"


def distinct_percents(first: float, second: float) -> tuple[str, str]:
    """Two probabilities as percentages with enough digits to differ, when they do.

    Near 100% the digits that differ are decimals far down (99.9998% against
    99.99999%); up to six are shown. Past that the two are shown alike.
    """
    shown = percent(first), percent(second)
    if shown[0] != shown[1] or first == second:
        return shown
    for digits in range(2, 7):
        if min(first, second) >= 0.5:
            pair = tuple(f"{value * 100:.{digits}f}%" for value in (first, second))
            if any(
                text.startswith("100.") and value < 1
                for text, value in zip(pair, (first, second), strict=True)
            ):
                continue  # "100.00%" for a chance under 1 says too much
        else:
            pair = tuple(f"{value * 100:.{digits + 1}g}%" for value in (first, second))
        if pair[0] != pair[1]:
            return pair[0], pair[1]
    return shown


def policy_where(gate: TestGate, knob: Knob) -> Policy:
    """The test's policy where a knob applies: its primary policy, or the environment
    its condition opens."""
    if not knob.condition:
        return gate.policy
    for environment in gate.environments:
        if environment.condition == knob.condition:
            return environment.policy
    return gate.policy


def elsewhere(gate: TestGate, reference_rate: float, skip: str = "") -> str:
    """The test's other environments as a message lists them, after its headline:
    "; elsewhere: skipped where `is_rocm()`, XFAIL where `is_xpu()`"."""
    parts = []
    for environment in gate.environments:
        if environment.condition == skip:
            continue
        effect = environment.effect.split(":", 1)[0]
        if environment.policy.inverted:  # a strict xfail: red when the test passes
            red = percent(environment.policy.reported(reference_rate))
            parts.append(f"{effect} where {environment.condition} (red {red} of runs there)")
        elif environment.policy.gate.blocks:
            reported = percent(environment.policy.reported(reference_rate))
            parts.append(f"{effect} where {environment.condition} (reported {reported} there)")
        else:
            parts.append(f"{effect} where {environment.condition}")
    return f"; elsewhere: {', '.join(parts)}" if parts else ""


def runs_somewhere_else(gate: TestGate) -> bool:
    """Whether a conditional skip or xfail takes the test out somewhere (a strict one
    makes it an expected failure): then the headline numbers are those "where the
    test runs"."""
    return any(
        not environment.policy.gate.blocks or environment.policy.inverted
        for environment in gate.environments
    )


def alternatives(gate: TestGate, numbers: Loss, drop: str) -> str:
    """The help line: more trials (naming the knob to raise) or a visible quarantine."""
    q, target = percent_label(numbers.reference_rate), percent_label(numbers.target)
    trials, reaches = more_trials(gate, numbers.reference_rate, numbers.target)
    reach = f" (reports a {q} violation {target} of the time)" if reaches else ""
    return f"{drop} and {trials}{reach}, or quarantine it visibly: {QUARANTINE}"


def finding(
    code: str,
    span: Span,
    message: str,
    help_text: str,
    numbers: Loss | None = None,
    related: Iterable[Span] = (),
    severity: str | None = None,
    fix: FixPlan | None = None,
    tests: Iterable[str] = (),
) -> Finding:
    info = RULES[code]
    return Finding(
        code=code,
        name=info.name,
        severity=severity or info.severity,
        span=span,
        message=message,
        help=help_text,
        loss=numbers,
        related=tuple(sorted(set(related))),
        fix=fix,
        tests=tuple(sorted(set(tests))),
    )


def group_by_mark(
    gates: Iterable[TestGate], kinds: tuple[str, ...]
) -> dict[Span, tuple[Mark, list[TestGate]]]:
    """Gates grouped by the span of the mark (of one of ``kinds``) that shapes them."""
    groups: dict[Span, tuple[Mark, list[TestGate]]] = {}
    for gate in gates:
        for knob in gate.knobs:
            if knob.kind in kinds and knob.mark is not None:
                groups.setdefault(knob.span, (knob.mark, []))[1].append(gate)
    return groups


def group_by_knob(
    gates: Iterable[TestGate], kinds: tuple[str, ...]
) -> dict[Span, tuple[Knob, list[TestGate]]]:
    """Like ``group_by_mark``, keeping each group's knob (with its condition)."""
    groups: dict[Span, tuple[Knob, list[TestGate]]] = {}
    for gate in gates:
        for knob in gate.knobs:
            if knob.kind in kinds and knob.mark is not None:
                groups.setdefault(knob.span, (knob, []))[1].append(gate)
    return groups
