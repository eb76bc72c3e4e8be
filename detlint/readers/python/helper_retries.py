"""Retry decorators on a function a test calls, which holds the test's checks.

``@retry(10)`` on ``check_x``, called by ``test_inv`` as ``self.check_x(...)``: each
failing assertion in ``check_x`` is retried up to ten attempts, so a violation among
the checks it holds is reported only if every attempt shows it, the same layer as a
retry decorator on the test, over the part of the test inside the helper. The test
gets the decorator's mark, with a ``via`` step naming the function, at the
decorator's place (one finding per decorator, covering the tests that call it).

The function may be a method of the test's class, a function of the test's module
or one it imports from another module of the repository (``from .utils import
check_x``, ``from tests import utils`` then ``utils.check_x(...)``), and the test
may reach it through functions it calls that carry no retry of their own (read in
the module that defines each, up to ``_DEPTH`` calls deep).

The attempt count means what it says for a violation among the function's checks
when the test runs it once: a call outside any loop, made once. Other retried
functions the test calls guard other checks and change nothing for these. A call in
a loop, or several calls, retries each call on its own; a function reached through
one that is itself retried is not followed (it would be retried again as a whole).
Tests calling it in a loop or several times get the marks without a figure
(``RetryReading.judged`` False), which say why.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from detlint.base.span import Span
from detlint.readers.python.facts import Mark, RetryReading
from detlint.readers.python.method_helpers import RECEIVERS
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.trial_checks import TrialChecks, own_nodes
from detlint.readers.python.unread_retries import RECORDS
from detlint.readers.python.walk import SCOPES as _NESTED
from detlint.readers.python.walk import children

# How many calls deep a retried function is looked for below the test.
_DEPTH = 3
_LOOPS = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)

# The ``via`` step a mark reached through a called function gets: "through check_x
# (line 12)", or "through check_x (line 12) from run_all" when the test calls it
# through ``run_all``.
_STEP = re.compile(r"through (\w+) \(line (\d+)\)(?: from [\w, ]+)?")


class _Trials(Protocol):
    @property
    def span(self) -> Span | None: ...


class HasTrials(Protocol):
    """What a test says of its trial loop: where it is, when it has one."""

    @property
    def trials(self) -> _Trials: ...


DecoratorMarks = Callable[[Sequence[ast.expr]], list[Mark]]


@dataclass(frozen=True)
class Helper:
    """A function a test may call, with the module that defines it, how that module
    resolves decorators, and which function a call in its body names (None when it
    names none detlint reads), and the skips and xfails a function of its module applies
    while it runs (``body_marks``: read for a test that calls it first, ``helper_skips``)."""

    function: Function
    index: ModuleIndex
    marks: DecoratorMarks
    callee: Callable[[ast.Call], Helper | None]
    runs: Callable[[Function], list[Mark]] = lambda function: []


@dataclass(frozen=True)
class _Reached:
    """A retried function a test reaches, whether a loop runs the call, and the
    functions without a retry of their own the call goes through, outermost first."""

    helper: Helper
    looped: bool
    chain: tuple[str, ...]


def helper_step(mark: Mark) -> str | None:
    """The step naming the function a mark reached the test through, if it did."""
    return next((step for step in mark.via if _STEP.fullmatch(step)), None)


class HelperRetries:
    """The retry marks a test gets through the functions it calls; each function's
    decorators are read once."""

    def __init__(self) -> None:
        self._read: dict[int, list[Mark]] = {}
        # Functions whose calls reach no retried function within so many more calls, by
        # the function and the resolver of its calls: hundreds of tests call the same
        # helpers, and most reach none. Kept only from a search no cycle cut short.
        self._barren: dict[tuple[int, int, int], int] = {}
        self._kept: list[Helper] = []  # keeps the objects whose ids key ``_barren`` alive
        self._cut = False
        # Each body's calls, by the id of its statement list (kept alive beside it).
        self._walked: dict[int, tuple[Sequence[ast.AST], list[tuple[ast.Call, bool]]]] = {}

    def of(
        self, test: Function, home: ModuleIndex, callee: Callable[[ast.Call], Helper | None]
    ) -> list[Mark]:
        """The marks of each retried function ``test`` (of module ``home``) reaches
        (``callee`` names the function a call of its body calls): with their figure when
        the test runs it once, outside any loop; otherwise without a figure, saying why
        (a retry is named, never silent).

        A test is composed with one retry decorator, the first of its marks: those with
        a figure come first, then the closest (a function of the test's own module, one
        it calls directly), each in the order the test calls them."""
        found = list(self._reach(test.body, callee, False, (), {id(test)}))
        ranked: list[tuple[tuple[bool, bool, int], Mark]] = []
        for helper in {id(r.helper.function): r.helper for r in found}.values():
            reached = [r for r in found if r.helper.function is helper.function]
            chain = reached[0].chain
            step = _step(helper, chain)
            judged = len(reached) == 1 and not reached[0].looped
            rank = (not judged, helper.index is not home, len(chain))
            if judged:
                ranked += [(rank, replace(m, via=(*m.via, step))) for m in self._retries(helper)]
                continue
            how = "in a loop" if any(r.looped for r in reached) else f"{len(reached)} times"
            why = (
                f"it retries each call of {helper.function.name} on its own, and the test "
                f"calls it {how}: one attempt count does not describe the test"
            )
            for mark in self._retries(helper):
                reading = mark.retry or RetryReading(mark.definition or mark.span, None, "", "")
                unjudged = replace(reading, attempts=None, origin=why, judged=False)
                ranked.append((rank, replace(mark, via=(*mark.via, step), retry=unjudged)))
        return [mark for _, mark in sorted(ranked, key=lambda item: item[0])]

    def _reach(
        self,
        nodes: Sequence[ast.AST],
        callee: Callable[[ast.Call], Helper | None],
        looped: bool,
        chain: tuple[str, ...],
        seen: set[int],
    ) -> Iterator[_Reached]:
        """The retried functions the calls in ``nodes`` reach: a called function that is
        retried, or those a called function without a retry reaches in turn."""
        for call, inner in self._calls_in(nodes, looped):
            helper = callee(call)
            if helper is None:
                continue
            if id(helper.function) in seen:
                self._cut = True  # a cycle cut this search short: its result is not kept
                continue
            if self._retries(helper):
                yield _Reached(helper, inner, chain)
            elif len(chain) < _DEPTH - 1 and not _retried_at_all(helper):
                left, key = _DEPTH - 1 - len(chain), _barren_key(helper)
                if self._barren.get(key, -1) >= left:
                    continue
                seen.add(id(helper.function))
                cut, self._cut, found = self._cut, False, False
                name = (*chain, helper.function.name)
                for reached in self._reach(helper.function.body, helper.callee, inner, name, seen):
                    found = True
                    yield reached
                if not found and not self._cut:
                    self._barren[key] = max(left, self._barren.get(key, -1))
                    self._kept.append(helper)
                self._cut = cut or self._cut
                seen.discard(id(helper.function))

    def _calls_in(self, nodes: Sequence[ast.AST], looped: bool) -> Iterator[tuple[ast.Call, bool]]:
        """``_calls`` of a body, walked once however many tests reach it: a helper that
        hundreds of tests call is walked for the first."""
        key = id(nodes)
        found = self._walked.get(key)
        if found is None:
            found = self._walked[key] = (nodes, list(_calls(nodes, False)))
        for call, inner in found[1]:
            yield call, looped or inner

    def _retries(self, helper: Helper) -> list[Mark]:
        key = id(helper.function)
        found = self._read.get(key)
        if found is None:
            found = []
            if helper.function.decorator_list:
                found = [
                    mark
                    for mark in helper.marks(helper.function.decorator_list)
                    if mark.kind == "retry-decorator"
                    and (
                        mark.retry is None
                        or not (mark.retry.shape == RECORDS or mark.retry.repeats)
                    )
                ]
            if found and not _asserts(helper.index, helper.function):
                found = []
            self._read[key] = found
        return found


def _asserts(index: ModuleIndex, function: Function, depth: int = 0) -> bool:
    """Whether a function checks what the test tests: an assertion (an ``assert``, an
    assertion helper, ``pytest.fail``, ``raise AssertionError``), or a function of its
    module that makes one (one call down). A ``raise`` of another error reports that
    an operation failed (``raise ValueError(response.content)`` after a request):
    retrying it retries the operation, which hides no violation of a check."""
    checks = TrialChecks(index, function)
    for node in own_nodes(function.body):
        if isinstance(node, ast.Raise):
            if _raises_assertion(node) and checks.checks(node, 1):
                return True
        elif checks.checks(node, 1):
            return True
        elif depth == 0 and isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called = index.functions.get(node.func.id)
            if called is not None and called is not function and _asserts(index, called, 1):
                return True
    return False


def _raises_assertion(node: ast.Raise) -> bool:
    raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    name = raised.attr if isinstance(raised, ast.Attribute) else getattr(raised, "id", "")
    return name in ("AssertionError", "failureException")


def named_callee(
    call: ast.Call,
    bound: dict[str, Helper],
    local: Callable[[str], Helper | None],
    imported: Callable[[ast.expr], Helper | None],
) -> Helper | None:
    """The function a call names: ``self.name(...)`` a method of ``bound``, ``name(...)``
    a function of the module (``local``) or one it imports (``imported``: ``name(...)``,
    ``module.name(...)``)."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id in RECEIVERS:
            return bound.get(func.attr)
        return imported(func)
    if isinstance(func, ast.Name):
        return local(func.id) or imported(func)
    return None


def _barren_key(helper: Helper) -> tuple[int, int, int]:
    """A function with what resolves its calls: the same function reached through
    another resolver (a method under another class) may call other functions."""
    resolver = helper.callee
    owner = getattr(resolver, "__self__", resolver)
    method = getattr(resolver, "__func__", resolver)
    return id(helper.function), id(owner), id(method)


def _retried_at_all(helper: Helper) -> bool:
    """Whether a function carries a retry decorator, whatever it retries: the retried
    functions it calls would run again as a whole, which is not followed."""
    return bool(helper.function.decorator_list) and any(
        mark.kind == "retry-decorator" for mark in helper.marks(helper.function.decorator_list)
    )


def _step(helper: Helper, chain: tuple[str, ...]) -> str:
    """The ``via`` step of a mark reached through ``helper``: "through check_x (line
    12)", with " from run_all" when the test reaches it through ``run_all``."""
    line = helper.index.name_span(helper.function).line
    through = f" from {', '.join(chain)}" if chain else ""
    return f"through {helper.function.name} (line {line}){through}"


def _calls(nodes: Sequence[ast.AST], looped: bool) -> Iterator[tuple[ast.Call, bool]]:
    """Every call in some code outside functions defined in it, and whether a loop
    (``for``, ``while``, a comprehension) runs it."""
    stack = [(node, looped) for node in reversed(nodes)]
    while stack:
        node, inner = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, ast.Call):
            yield node, inner
        deeper = inner or isinstance(node, _LOOPS)
        stack.extend((child, deeper) for child in reversed(children(node)))


def beside_trials(marks: list[Mark], facts: HasTrials) -> list[Mark]:
    """The retry marks of the functions a test calls, each named without a figure when
    the test also runs a trial loop: an attempt count would describe the retried
    function's checks, not the trials the loop runs of its own."""
    loop = facts.trials.span
    if loop is None:
        return marks
    why = (
        f"the test also runs a trial loop (line {loop.line}) whose checks it "
        "does not retry the same way: one attempt count does not describe the test"
    )
    named: list[Mark] = []
    for mark in marks:
        reading = mark.retry or RetryReading(mark.definition or mark.span, None, "", "")
        if not reading.judged:
            named.append(mark)
            continue
        named.append(replace(mark, retry=replace(reading, attempts=None, origin=why, judged=False)))
    return named
