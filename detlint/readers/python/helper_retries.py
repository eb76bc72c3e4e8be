"""Retry decorators on a function a test calls, which holds the test's checks.

``@retry(10)`` on ``check_x``, called by ``test_inv`` as ``self.check_x(...)``: each
failing assertion in ``check_x`` is retried up to ten attempts, so a violation among
the checks it holds is reported only if every attempt shows it, the same layer as a
retry decorator on the test, over the part of the test inside the helper. The test
gets the decorator's mark, with a ``via`` step naming the function, at the
decorator's place (one finding per decorator, covering the tests that call it).

Only the plain case is modelled, where the attempt count means what it says for the
test: exactly one call of one such function, directly in the test's body and not in
a loop, in a test without a trial loop of its own. A call in a loop retries each
call on its own, and several retried functions each guard a different part of the
test: stacking their attempts as one retry of the test would give a wrong figure, so
those tests get the marks without a figure (``RetryReading.judged`` False), which say
why.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from detlint.readers.python.facts import Mark, RetryReading
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.trial_checks import holds_checks
from detlint.readers.python.unread_retries import RECORDS

# What a test calls a method of its own class through.
_RECEIVERS = frozenset({"self", "cls"})
_LOOPS = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

# The ``via`` step a mark reached through a called function gets: "through check_x (line 12)".
_STEP = re.compile(r"through (\w+) \(line (\d+)\)")

DecoratorMarks = Callable[[Sequence[ast.expr]], list[Mark]]


@dataclass(frozen=True)
class Helper:
    """A function a test may call, with the module that defines it and how that
    module resolves decorators."""

    function: Function
    index: ModuleIndex
    marks: DecoratorMarks


def helper_step(mark: Mark) -> str | None:
    """The step naming the function a mark reached the test through, if it did."""
    return next((step for step in mark.via if _STEP.fullmatch(step)), None)


class HelperRetries:
    """The retry marks a test gets through the functions it calls; each function's
    decorators are read once."""

    def __init__(self) -> None:
        self._read: dict[int, list[Mark]] = {}

    def of(
        self, test: Function, methods: dict[str, Helper], functions: dict[str, Helper]
    ) -> list[Mark]:
        """The marks of the one retried function ``test`` calls (``self.name(...)``
        for ``methods``, ``name(...)`` for ``functions``) in the plain case the module
        docstring describes; in any other case, each retried function's marks without a
        figure, saying why (a retry is named, never silent)."""
        if not methods and not functions:
            return []
        found: list[tuple[Helper, bool]] = []
        for call, looped in _calls(test.body, False):
            helper = _callee(call, methods, functions)
            if helper is not None and self._retries(helper):
                found.append((helper, looped))
        if len(found) == 1 and not found[0][1]:
            return [
                replace(mark, via=(*mark.via, _step(found[0][0])))
                for mark in self._retries(found[0][0])
            ]
        marks: list[Mark] = []
        for helper in {id(helper.function): helper for helper, _ in found}.values():
            calls = [looped for called, looped in found if called is helper]
            how = "in a loop" if any(calls) else f"{len(calls)} times"
            if len(calls) == 1 and not any(calls):
                how = "beside other retried functions"
            why = (
                f"it retries each call of {helper.function.name} on its own, and the test "
                f"calls it {how}: one attempt count does not describe the test"
            )
            for mark in self._retries(helper):
                reading = mark.retry or RetryReading(mark.definition or mark.span, None, "", "")
                unjudged = replace(reading, attempts=None, origin=why, judged=False)
                marks.append(replace(mark, via=(*mark.via, _step(helper)), retry=unjudged))
        return marks

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
            if found and not holds_checks(helper.index, helper.function):
                found = []
            self._read[key] = found
        return found


def _step(helper: Helper) -> str:
    """The ``via`` step of a mark reached through ``helper``: "through check_x (line 12)"."""
    return f"through {helper.function.name} (line {helper.index.name_span(helper.function).line})"


def _callee(
    call: ast.Call, methods: dict[str, Helper], functions: dict[str, Helper]
) -> Helper | None:
    func = call.func
    if isinstance(func, ast.Name):
        return functions.get(func.id)
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in _RECEIVERS
    ):
        return methods.get(func.attr)
    return None


def _calls(nodes: Sequence[ast.AST], looped: bool) -> Iterator[tuple[ast.Call, bool]]:
    """Every call in some code outside functions defined in it, and whether a loop
    (``for``, ``while``, a comprehension) runs it."""
    for node in nodes:
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, ast.Call):
            yield node, looped
        inner = looped or isinstance(node, _LOOPS)
        yield from _calls(list(ast.iter_child_nodes(node)), inner)
