"""Trial knobs: how many trials one attempt of a test runs, and what sets it.

A nondeterminism test usually loops ``for _ in range(TRIALS)`` and fails if
any trial shows a violation; TRIALS usually comes from the environment
(``int(os.getenv("NEEDLE_TRIALS", "5"))``) directly, through a variable, a
fixture or a helper. An environment read that bounds no loop (a seed, a batch
size) is not a trial knob, so the search starts from the loop, not the read.
Whether the loop is one of trials, and the pass threshold a check after it may set
(``assert passes >= 3``), is ``TrialChecks``'s to say. Trial loops that follow each
other in one block add up (``sibling_loops``); a checking function mapped over a
range runs a trial per call (``mapped_trials``).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

from detlint.model.threshold import Threshold
from detlint.readers.python.facts import NO_TRIALS, TrialCount
from detlint.readers.python.locations import call_args
from detlint.readers.python.mapped_trials import mapped_trials
from detlint.readers.python.method_helpers import CalledHelpers
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted, literal
from detlint.readers.python.reached_checks import (
    ForeignChecks,
    ForeignName,
    call_check,
    no_foreign_name,
    passed_functions,
)
from detlint.readers.python.repeated_items import repeated_items
from detlint.readers.python.sibling_loops import block_of, nested_product, siblings, summed
from detlint.readers.python.trial_checks import TrialChecks
from detlint.readers.python.uncounted_loops import uncounted_at, uncounted_loop

ENV_READERS = frozenset({"os.getenv", "os.environ.get", "os.environ.setdefault"})
MAX_DEPTH = 5
LITERAL_BOUND = "literal loop bound"  # the origin of a count read off `range(5)`

_LOOPS: tuple[type[ast.For | ast.AsyncFor | ast.comprehension], ...] = (
    ast.For,
    ast.AsyncFor,
    ast.comprehension,
)
_RETURNS: tuple[type[ast.Return | ast.Yield], ...] = (ast.Return, ast.Yield)

# fixture name -> its trial count, from conftest files that reach the test.
FixtureLookup = Callable[[str], TrialCount | None]


def no_fixture(name: str) -> TrialCount | None:
    return None


def _int_default(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


@dataclass
class TrialResolver:
    """Finds the trial loop of a function and resolves its bound."""

    index: ModuleIndex
    fixtures: FixtureLookup = no_fixture
    env_readers: frozenset[str] = frozenset()
    foreign: ForeignName = no_foreign_name

    def env_read(self, expression: ast.expr) -> tuple[str, int | None] | None:
        """``int(os.getenv("X", "5"))`` -> ("X", 5); ``os.environ["X"]`` -> ("X", None)."""
        if isinstance(expression, ast.Call) and dotted(expression.func) == "int":
            first = call_args(expression)[:1]
            if first and first[0].keyword is None:
                expression = first[0].value
        if isinstance(expression, ast.Subscript):
            if self.index.imports.qualify(expression.value) == "os.environ":
                name = literal(self._first_index(expression.slice))
                if isinstance(name, str):
                    return name, None
            return None
        if not isinstance(expression, ast.Call):
            return None
        reader = self.index.imports.qualify(expression.func) or dotted(expression.func)
        if reader not in ENV_READERS and reader not in self.env_readers:
            return None
        args = call_args(expression)
        positional = [arg for arg in args if arg.keyword is None]
        keywords = {arg.keyword: arg for arg in args if arg.keyword is not None}
        key_arg = positional[0] if positional else keywords.get("key") or keywords.get("name")
        if key_arg is None:
            return None
        name = literal(key_arg.value)
        if not isinstance(name, str):
            return None
        default_arg = positional[1] if len(positional) > 1 else keywords.get("default")
        default = _int_default(literal(default_arg.value)) if default_arg is not None else None
        return name, default

    def _first_index(self, index: ast.expr) -> ast.expr:
        """The first of the indices ``os.environ["X", "Y"]`` is given; a slice is none."""
        if isinstance(index, ast.Tuple) and index.elts and not self.index.code.parenthesized(index):
            index = index.elts[0]
        return index.value if isinstance(index, ast.Starred) else index

    def trials_of(self, function: Function) -> TrialCount:
        """The trial count of a test (or of the helpers it calls, one level down); with
        none, why the loop a trial count bounds is no trial loop."""
        found, reason = self._loop_trials(function, 0)
        if found is not None:
            return found
        text = self.index.text(function)
        if "self." in text or "cls." in text or any(n in text for n in self._looping_helpers):
            for name, helper, times in self.helpers.callees(function):
                looping = self._may_loop(helper)
                passed = passed_functions(self.helpers, function, helper) if looping else {}
                found, why = self._loop_trials(helper, 1, passed)
                if found is not None and found.uncounted is not None:
                    return self._in_helper(found, name, times)
                if found is not None:
                    return found
                reason = reason or why
        mapped = mapped_trials(self.index, function, self._bound)
        if mapped is not None:
            return mapped
        uncounted = uncounted_loop(self.index, function, self._counted, self.helpers.callees)
        if uncounted is not None:
            return dataclasses.replace(NO_TRIALS, origin=uncounted.describe(), uncounted=uncounted)
        if reason:
            return dataclasses.replace(NO_TRIALS, origin=f"{NO_TRIALS.origin}: {reason}")
        return NO_TRIALS

    @functools.cached_property
    def _foreign_checks(self) -> ForeignChecks:
        return ForeignChecks(self.foreign)

    @functools.cached_property
    def helpers(self) -> CalledHelpers:
        """The module's functions and the methods ``self.`` reaches, that tests call."""
        return CalledHelpers(self.index)

    def _in_helper(self, found: TrialCount, name: str, times: int) -> TrialCount:
        """An uncounted loop of a function the test calls, named with that function."""
        assert found.uncounted is not None
        uncounted = dataclasses.replace(found.uncounted, helper=name, calls=times)
        return dataclasses.replace(found, origin=uncounted.describe(), uncounted=uncounted)

    def _counted(
        self, function: Function, loop: ast.For | ast.AsyncFor | ast.comprehension
    ) -> bool:
        """Whether a loop is one ``_loop_trials`` reads: a ``range()`` of a count it resolves."""
        bound = _range_bound(loop.iter)
        return bound is not None and self._bound(bound, function, 0) is not None

    @functools.cached_property
    def _looping_helpers(self) -> frozenset[str]:
        """The module's functions whose code names ``range``: only a call to one of
        them can hold the trial loop of a test that has none of its own."""
        return frozenset(
            name for name, helper in self.index.functions.items() if self._may_loop(helper)
        )

    def _may_loop(self, function: Function) -> bool:
        """Whether a function's code names ``range`` or repeats a sequence (``(20, 50) *
        3``), as a trial loop's bound does: most test bodies do not, and walking a body
        is the costliest part of reading it."""
        text = self.index.text(function)
        return "range" in text or ") *" in text or "] *" in text

    def _loop_trials(
        self, function: Function, depth: int, passed: dict[str, Function] | None = None
    ) -> tuple[TrialCount | None, str]:
        """The function's trial count (an environment-bound loop before a literal one),
        else why the first loop a trial count bounds is none. ``passed``: the functions
        the caller passes for the function's parameters."""
        if not self._may_loop(function):
            return None, ""
        found: list[tuple[ast.AST, TrialCount]] = []
        checks: TrialChecks | None = None
        reason = ""
        for node in self.index.body(function, _LOOPS):
            bound = _range_bound(node.iter)
            repeated = repeated_items(node.iter) if bound is None else None
            if repeated is not None:
                bound = repeated.times
            if bound is None:
                continue
            count = self._bound(bound, function, depth)
            if count is None or (repeated is not None and count.env is not None):
                continue
            # Whether the loop checks what it computes costs a walk of its body: asked
            # only of loops whose bound is a trial count.
            elsewhere = call_check(self.index, passed or {}, self._foreign_checks)
            checks = checks or TrialChecks(self.index, function, elsewhere)
            cases = repeated is not None and repeated.items > 1
            verdict = checks.each_iteration(node, bound, cases)
            why = verdict.reason or _threshold_problem(verdict.threshold, count.count)
            if why:
                reason = reason or f"{why} (line {self.index.original_line(node.iter.lineno)})"
                continue
            count = dataclasses.replace(count, threshold=verdict.threshold)
            if repeated is not None:
                line = self.index.original_line(node.iter.lineno)
                origin = repeated.describe(self.index.text(node.iter), line)
                count = dataclasses.replace(count, origin=origin)
                if repeated.items > 1:
                    return count, ""  # per item: no sum or product with other loops
            if count.env is not None:
                return count, ""
            found.append((node, count))
        if not found:
            return None, reason
        return self._following(function, found), reason

    def _following(self, function: Function, found: list[tuple[ast.AST, TrialCount]]) -> TrialCount:
        """The first literal trial loop's count, added up with the trial loops that
        follow it in its block; no count (the loop named) when one of them is a loop
        over a ``range`` whose bound detlint does not read."""
        loop, first = found[0]
        block = block_of(function, loop)
        if first.threshold is not None or block is None:
            return first
        parts = [(node, count) for node, count in siblings(block, found) if count.threshold is None]
        for statement in block:
            if (
                not isinstance(statement, ast.For | ast.AsyncFor)
                or _range_bound(statement.iter) is None
                or self._counted(function, statement)
            ):
                continue
            uncounted = uncounted_at(self.index, function, statement)
            if uncounted is not None:
                return dataclasses.replace(
                    NO_TRIALS, origin=uncounted.describe(), uncounted=uncounted
                )
        if len(parts) < 2:
            return nested_product(found, lambda node: self.index.original_line(_iter_line(node)))
        lines = [self.index.original_line(_iter_line(node)) for node, _ in parts]
        return summed(list(zip(lines, [count for _, count in parts], strict=True)))

    def _bound(self, expression: ast.expr, function: Function, depth: int) -> TrialCount | None:
        if depth > MAX_DEPTH:
            return None
        span = self.index.span(expression)
        number = literal(expression)
        if isinstance(number, int) and not isinstance(number, bool) and number > 0:
            return TrialCount(number, span, None, LITERAL_BOUND)
        read = self.env_read(expression)
        if read is not None:
            name, default = read
            if default is None or default < 1:
                return None
            return TrialCount(default, span, name, f"{name} (default {default})")
        if isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name):
            helper = self.index.functions.get(expression.func.id)
            if helper is not None:
                for returned in _returns(self.index, helper):
                    found = self._bound(returned, helper, depth + 1)
                    if found is not None:
                        return found
            return None
        if not isinstance(expression, ast.Name):
            return None
        name = expression.id
        local = _local_assignment(self.index, function, name)
        if local is not None:
            return self._bound(local, function, depth + 1)
        parameter_default = _parameter_default(function, name)
        if parameter_default is not None:
            return self._bound(parameter_default, function, depth + 1)
        if _has_parameter(function, name):
            fixture = self.index.functions.get(name)
            if fixture is not None:
                for returned in _returns(self.index, fixture):
                    found = self._bound(returned, fixture, depth + 1)
                    if found is not None:
                        return found
            return self.fixtures(name)
        if name in self.index.assignments:
            return self._bound(self.index.assignments[name], function, depth + 1)
        return None

    def fixture_trials(self, function: Function) -> TrialCount | None:
        """What a fixture returns, when that is a trial count (for other modules to use)."""
        for returned in _returns(self.index, function):
            found = self._bound(returned, function, 0)
            if found is not None:
                return found
        return None


def _threshold_problem(threshold: Threshold | None, count: int) -> str:
    """Why a pass threshold makes no trial count at the loop's own count: the check
    never fails, fails on every run, or has no value there."""
    if threshold is None:
        return ""
    try:
        failing = threshold.fails_at(count)
    except (ArithmeticError, ValueError, OverflowError):
        return "the pass threshold has no value at the loop's count"
    if failing > count:
        return "the pass threshold passes however many trials fail"
    if failing <= 0:
        return "the pass threshold fails even when every trial passes"
    return ""


def _iter_line(loop: ast.AST) -> int:
    """The line of a loop's iterable, as findings name loops."""
    assert isinstance(loop, ast.For | ast.AsyncFor | ast.comprehension)
    return loop.iter.lineno


def _range_bound(iterable: ast.expr) -> ast.expr | None:
    if not (isinstance(iterable, ast.Call) and dotted(iterable.func) == "range"):
        return None
    args = [arg for arg in call_args(iterable) if arg.keyword is None and not arg.star]
    if len(args) == 1:
        return args[0].value
    if len(args) >= 2 and literal(args[0].value) == 0:
        return args[1].value
    return None


def _returns(index: ModuleIndex, function: Function) -> list[ast.expr]:
    return [node.value for node in index.body(function, _RETURNS) if node.value is not None]


def _local_assignment(index: ModuleIndex, function: Function, name: str) -> ast.expr | None:
    for node in index.body(function, ast.Assign):
        if any(isinstance(target, ast.Name) and target.id == name for target in node.targets):
            return node.value
    return None


def _parameters(function: Function) -> list[tuple[ast.arg, ast.expr | None]]:
    """Named parameters (positional-only, regular, keyword-only) with their defaults."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    keyword_only = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    return [*zip(positional, defaults, strict=True), *keyword_only]


def _parameter_default(function: Function, name: str) -> ast.expr | None:
    for param, default in _parameters(function):
        if param.arg == name and default is not None:
            return default
    return None


def _has_parameter(function: Function, name: str) -> bool:
    return any(param.arg == name for param, _ in _parameters(function))
