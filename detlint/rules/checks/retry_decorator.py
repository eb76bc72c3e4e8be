"""DET103 retry-decorator: a retry decorator around a test (tenacity, backoff, a
configured name, or one the repository defines that calls the test again), which
retries the assertion along with the flaky operation.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from detlint.base.percentages import percent, percent_label
from detlint.compose.filters import decorator_filter
from detlint.compose.retry_counts import retry_decorator_attempts
from detlint.model import FlakyRuns
from detlint.readers.python.bare_factories import NEVER_RUNS
from detlint.readers.python.body_retries import BODY_LOOP
from detlint.readers.python.helper_retries import helper_step
from detlint.readers.python.options import HOOK_TEST
from detlint.readers.python.retry_wrappers import PASSES_AGAIN
from detlint.readers.reasons import tracking_reference
from detlint.rules.context import (
    RuleContext,
    alternatives,
    covers,
    covers_clause,
    elsewhere,
    finding,
    group_by_mark,
    loss_phrase,
    replay_clause,
    runs_somewhere_else,
    trials_phrase,
    undecided_clause,
    worst,
)
from detlint.rules.finding import Finding, Loss

if TYPE_CHECKING:
    from detlint.base.span import Span
    from detlint.compose.test_gate import TestGate
    from detlint.readers.python.facts import Mark

HELP = "retry the flaky operation, not the assertion,"


def retry_decorator(context: RuleContext) -> Iterator[Finding]:
    """DET103: retry decorators around tests, with what they cost where they apply.

    A decorator that retries only exceptions an assertion is not (``except
    ConnectionError``) hides no violation and is no finding (its note says so), nor is
    one around a test that never blocks where it runs (its gate has a rule of its own).
    """
    groups = group_by_mark(context.gates, ("retry-decorator",))
    for span, (mark, gates) in sorted(groups.items()):
        mark, gates, unjudged = _judged_first(span, mark, gates)
        if decorator_filter(mark).masks is False:
            continue
        attempts, origin = retry_decorator_attempts(mark)
        named = _named(mark)
        reading = mark.retry
        if reading is not None and not reading.judged:
            yield from _unjudged_reading(span, mark, named, gates, context)
            continue
        if any(gate.test.name == HOOK_TEST for gate in gates) and _unlisted(mark):
            yield _not_judged(span, mark, named, attempts, origin)
            continue
        several = len({g.test.nodeid for g in gates}) > 1
        if attempts is None:
            yield _without_limit(span, mark, origin, gates, context)
            continue
        passes = reading.min_passes if reading is not None else 1
        if reading is not None and reading.repeats:
            continue  # every run must pass: a repeat, which hides nothing
        counted = _counted(attempts, passes, origin)
        swallowing = [gate for gate in gates if gate.policy.gate.kind == _SWALLOWED]
        masking = swallowing or [
            gate
            for gate in gates
            if gate.policy.gate.blocks
            and not gate.policy.inverted
            and any(layer.masks for layer in gate.policy.layers)
        ]
        if not masking:
            continue
        gate, numbers = worst(masking, context)
        details = [counted + _condition(gate, mark), *_through(mark), *_named_by(mark)]
        details += _filter_notes(gate)
        details.append(trials_phrase(gate.test))
        where = " where the test runs" if runs_somewhere_else(gate) else ""
        if swallowing:
            cost = _swallows(numbers)
            replay = ""  # every attempt is swallowed, the replayed ones too
        else:
            cost = _hides(numbers, undecided_clause(gate) + where, attempts, passes)
            replay = replay_clause(gate.test, "retry", "the decorator hides", ("body",), several)
            if helper_step(mark) is not None or _in_body(mark):
                replay = ""  # a seed the test sets before the call is not set again
        message = (
            f"{_head(mark, named)} {cost} ({'; '.join(details)}{covers(masking)}{unjudged})"
            f"{replay}"
            f"{elsewhere(gate, context.reference_rate)}"
        )
        related = [mark.definition] if mark.definition is not None else []
        help_text = alternatives(gate, numbers, HELP)
        yield finding("DET103", span, message, help_text, numbers, related)


_SWALLOWED = "failure swallowed by a decorator"


def _swallows(numbers: Loss) -> str:
    return (
        "catches the failure of its last attempt too and returns: the test passes "
        f"whatever it asserts, so a {percent_label(numbers.reference_rate)} violation "
        f"is never reported (was {percent(numbers.reported_without)})"
    )


def _hides(numbers: Loss, where: str, attempts: int, passes: int) -> str:
    """What the decorator hides. One that wants several passes reports a frequent
    violation more often than a single run would, and hides only rarer ones: the rate
    where that turns is quoted."""
    even = FlakyRuns(attempts, passes).break_even() if passes > 1 else None
    if even is None or numbers.reported <= numbers.reported_without:
        return f"hides intermittent failures: {loss_phrase(numbers)}{where}"
    return (
        f"hides only rare intermittent failures: a violation that fails fewer than "
        f"{percent(even)} of runs is reported less often than without it, while "
        f"{loss_phrase(numbers)}{where}"
    )


def _counted(attempts: int, passes: int, origin: str) -> str:
    """The count: "3 attempts from max_runs=3 at the call", or for a threshold of passes
    the flaky package's rule it follows."""
    where = f" from {origin}" if origin else ""
    if passes == 1:
        return f"{attempts} attempts{where}"
    return (
        f"up to {attempts} runs, passing once {passes} have passed, as flaky's "
        f"max_runs={attempts}, min_passes={passes}{',' if where else ''}{where}"
    )


def _without_limit(
    span: Span, mark: Mark, origin: str, gates: list[TestGate], context: RuleContext
) -> Finding:
    """A retry whose attempt limit detlint cannot read: no figure, and why."""
    named = _named(mark)
    gate, numbers = worst(gates, context)
    where = "; ".join([*_through(mark, figure=False), trials_phrase(gate.test)])
    several = len({g.test.nodeid for g in gates}) > 1
    limit = f" ({origin})" if origin else ""
    # The decorator repeats the test's body alone: a fixture's seed is not set again.
    unlimited = replay_clause(
        gate.test, "retry", "the decorator hides", ("body",), several, figures="that holds"
    )
    if helper_step(mark) is not None or _in_body(mark):
        unlimited = ""  # a seed the test sets before the call is not set again
    if origin.startswith(PASSES_AGAIN):
        # Several passes wanted: the outcome depends on the order of passes and
        # failures, which an attempt count does not capture.
        message = (
            f"retry decorator {named} reruns a failing test and runs a passing one again "
            f"({origin}): how often it reports a violation depends on the order of passes "
            "and failures, which detlint does not model, so no figure is given "
            f"({where}{covers(gates)})"
        )
        return finding("DET103", span, message, alternatives(gate, numbers, HELP))
    around = "has" if _in_body(mark) else "around a test with"
    message = (
        f"{_head(mark, named)} {around} no literal attempt limit{limit}: "
        "a violation is reported only if every attempt shows it "
        f"({where}{covers(gates)}){unlimited}"
    )
    return finding("DET103", span, message, alternatives(gate, numbers, HELP))


def _unjudged_reading(
    span: Span, mark: Mark, named: str, gates: list[TestGate], context: RuleContext
) -> Iterator[Finding]:
    """A decorator read without a figure: named with what detlint could not follow, or,
    applied bare where the test never runs, with what that hides."""
    if mark.retry is not None and mark.retry.shape == NEVER_RUNS:
        yield from _never_runs(span, mark, named, gates, context)
    else:
        yield _unread(span, mark, named, gates, context)


def _never_runs(
    span: Span, mark: Mark, named: str, gates: list[TestGate], context: RuleContext
) -> Iterator[Finding]:
    """A factory applied bare whose inner decorator runs no test (``bare_factories``):
    a method under it passes whatever it asserts. A test function asks pytest for a
    fixture named after the inner function's parameter and errors on every run, which
    hides nothing: no finding for it (the audit names the knob)."""
    methods = [gate for gate in gates if gate.test.class_name is not None]
    if not methods or mark.retry is None:
        return
    gate, numbers = worst(methods, context)
    numbers = replace(numbers, reported=0.0)
    message = (
        f"retry decorator {named} {mark.retry.origin}: the test passes whatever it "
        f"asserts, so a {percent_label(numbers.reference_rate)} violation is never "
        f"reported (was {percent(numbers.reported_without)}) ({trials_phrase(gate.test)}"
        f"{covers(methods)})"
    )
    help_text = f"write `@{mark.name}()` so that the test runs; then " + alternatives(
        gate, numbers, HELP
    )
    related = [mark.retry.definition]
    yield finding("DET103", span, message, help_text, numbers, related)


def _in_body(mark: Mark) -> bool:
    return mark.retry is not None and mark.retry.shape == BODY_LOOP


def _head(mark: Mark, named: str) -> str:
    """What retries: the decorator, or the retry loop written in the test body."""
    if _in_body(mark):
        return f"the retry loop `{mark.name}` in the test body"
    return f"retry decorator {named}"


def _through(mark: Mark, figure: bool = True) -> list[str]:
    """Where the decorator is on a function the test calls, not on the test, or the loop
    is in the test body: what it retries is the checks that function or loop holds, and
    a figure is for a violation there."""
    if _in_body(mark):
        held = "it retries the checks the loop holds (the test's other checks run once)"
        return [held + (", and the figure is for a violation among them" if figure else "")]
    step = helper_step(mark)
    if step is None:
        return []
    named, _, chain = step.removeprefix("through ").partition(" from ")
    by = f" through {chain}" if chain else ""
    text = f"on {named}, which the test calls{by}: it retries the checks "
    if not figure:
        return [text + "that function holds"]
    return [text + "that function holds, and the figure is for a violation among them"]


def _unlisted(mark: Mark) -> bool:
    return any(step.startswith("the tests ") for step in mark.via)


def _not_judged(span: Span, mark: Mark, named: str, attempts: int | None, origin: str) -> Finding:
    """A decorator a hook or a loop applies to tests it picks by names code gives: which
    tests is not known statically, so none is judged; the finding says so."""
    picked = " in ".join(step for step in mark.via if step.startswith(("the tests ", "hook ")))
    if attempts is not None:
        count = f"{attempts} attempts each" + (f", from {origin}" if origin else "")
    else:
        count = origin or "no attempt limit detlint can read"
    message = (
        f"retry decorator {named} wraps {picked}: not judged test by test, since detlint "
        f"cannot list those tests statically ({count})"
    )
    help_text = f"{HELP} and keep the list of retried tests where a reviewer sees it"
    return finding("DET103", span, message, help_text)


def _judged_first(
    span: Span, mark: Mark, gates: list[TestGate]
) -> tuple[Mark, list[TestGate], str]:
    """A decorator judged for some tests and not for others (a function one test calls
    once and another in a loop): the finding is the judged one, over those tests, and
    names the others (the clause it adds)."""
    others = _unjudged(span, gates)
    if mark.retry is None or mark.retry.judged:
        unread = {id(gate) for gate in others}
        judged = [gate for gate in gates if id(gate) not in unread]
        return mark, judged or gates, _unjudged_clause(span, others) if judged else ""
    found = [
        (knob.mark, gate)
        for gate in gates
        for knob in gate.knobs
        if knob.span == span and knob.kind == "retry-decorator" and knob.mark is not None
        if knob.mark.retry is None or knob.mark.retry.judged
    ]
    if not found:
        return mark, gates, ""
    kept = {id(gate) for _, gate in found}
    rest = [gate for gate in others if id(gate) not in kept]
    return found[0][0], [gate for _, gate in found], _unjudged_clause(span, rest)


def _unjudged(span: Span, gates: list[TestGate]) -> list[TestGate]:
    """The tests a decorator reaches without a figure (a function one test calls in a
    loop, or several times): a finding over the tests it is judged for still names
    them, so that the tests it reaches are all counted."""
    return [
        gate
        for gate in gates
        if any(
            knob.span == span
            and knob.kind == "retry-decorator"
            and knob.mark is not None
            and knob.mark.retry is not None
            and not knob.mark.retry.judged
            for knob in gate.knobs
        )
    ]


def _unjudged_clause(span: Span, others: list[TestGate]) -> str:
    """ "; not judged for the test test_b: it retries each call of check_x on its own,
    ..." (nothing without such tests)."""
    if not others:
        return ""
    names = sorted({gate.test.name for gate in others})
    knob = next(
        knob
        for knob in others[0].knobs
        if knob.span == span
        and knob.mark is not None
        and knob.mark.retry is not None
        and not knob.mark.retry.judged
    )
    assert knob.mark is not None
    assert knob.mark.retry is not None
    why = knob.mark.retry.origin
    tests = "test" if len(names) == 1 else "tests"
    return f"; not judged for the {tests} {', '.join(names)}: {why}"


def _unread(
    span: Span, mark: Mark, named: str, gates: list[TestGate], context: RuleContext
) -> Finding:
    """A decorator whose name or parameters say it retries, which detlint could not
    read: named, with what it could not follow, and no figure."""
    reason = mark.retry.origin if mark.retry is not None else ""
    details = [*_tracked(mark, context.tracking_pattern), *_through(mark, figure=False)]
    shown = f" ({'; '.join(details)}{covers(gates)})" if details else covers_clause(gates)
    message = f"retry decorator {named} not judged: {reason}, so no figure{shown}"
    help_text = f"{HELP} or keep the retry where detlint can read its count"
    return finding("DET103", span, message, help_text)


def _tracked(mark: Mark, pattern: str) -> list[str]:
    """The tracking keys the decorator's arguments give ("tracked as FLOC-3346")."""
    keys: list[str] = []
    for argument in mark.arguments:
        values = argument.value if isinstance(argument.value, tuple) else (argument.value,)
        for value in values:
            key = tracking_reference(value, pattern) if isinstance(value, str) else None
            if key is not None and key not in keys:
                keys.append(key)
    return [f"tracked as {', '.join(keys)}"] if keys else []


def _named_by(mark: Mark) -> list[str]:
    """How a test was picked by name: "`FLAKY` (tests/conftest.py:4) names it"."""
    return [step for step in mark.via if step.endswith(" names it") or step.startswith("hook ")]


def _named(mark: Mark) -> str:
    """The decorator, and for the repository's own where it is defined and how it calls
    the test again: "flaky (tests/conftest.py:12, a loop)"."""
    if mark.retry is None:
        return mark.name
    definition = mark.retry.definition
    shape = mark.retry.shape
    if not shape or not mark.retry.judged:
        return f"{mark.name} ({definition.path}:{definition.line})"
    how = f"through {shape}" if "." in shape else shape
    return f"{mark.name} ({definition.path}:{definition.line}, {how})"


def _condition(gate: TestGate, mark: Mark) -> str:
    """Where a conditional retry applies (" where `os.environ.get('CI')`")."""
    for knob in gate.knobs:
        if knob.mark is mark and knob.condition:
            return f", where {knob.condition}"
    return ""


def _filter_notes(gate: TestGate) -> list[str]:
    return [note for note in gate.notes if "detlint does not evaluate" in note]
