"""Trial knobs: how many trials one attempt of a test runs, and what sets it.

A nondeterminism test usually loops ``for _ in range(TRIALS)`` and fails if
any trial shows a violation; TRIALS usually comes from the environment
(``int(os.getenv("NEEDLE_TRIALS", "5"))``) directly, through a variable, a
fixture or a helper. An environment read that bounds no loop (a seed, a batch
size) is not a trial knob, so the search starts from the loop, not the read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from detlint.python_pass.facts import NO_TRIALS, TrialCount
from detlint.python_pass.module_index import ModuleIndex
from detlint.python_pass.names import dotted, literal
from detlint.python_pass.walk import find_all

ENV_READERS = frozenset({"os.getenv", "os.environ.get", "os.environ.setdefault"})
MAX_DEPTH = 5

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

    def env_read(self, expression: cst.BaseExpression) -> tuple[str, int | None] | None:
        """``int(os.getenv("X", "5"))`` -> ("X", 5); ``os.environ["X"]`` -> ("X", None)."""
        if (
            isinstance(expression, cst.Call)
            and dotted(expression.func) == "int"
            and expression.args
            and expression.args[0].keyword is None
        ):
            expression = expression.args[0].value
        if isinstance(expression, cst.Subscript):
            if self.index.imports.qualify(expression.value) == "os.environ":
                key = expression.slice[0].slice if expression.slice else None
                if isinstance(key, cst.Index):
                    name = literal(key.value)
                    if isinstance(name, str):
                        return name, None
            return None
        if not isinstance(expression, cst.Call):
            return None
        reader = self.index.imports.qualify(expression.func) or dotted(expression.func)
        if reader not in ENV_READERS and reader not in self.env_readers:
            return None
        positional = [arg for arg in expression.args if arg.keyword is None]
        keywords = {arg.keyword.value: arg for arg in expression.args if arg.keyword is not None}
        key_arg = positional[0] if positional else keywords.get("key") or keywords.get("name")
        if key_arg is None:
            return None
        name = literal(key_arg.value)
        if not isinstance(name, str):
            return None
        default_arg = positional[1] if len(positional) > 1 else keywords.get("default")
        default = _int_default(literal(default_arg.value)) if default_arg is not None else None
        return name, default

    def trials_of(self, function: cst.FunctionDef) -> TrialCount:
        """The trial count of a test (or of the helpers it calls, one level down)."""
        found = self._loop_trials(function, 0)
        if found is not None:
            return found
        for call in find_all(function.body, cst.Call):
            if not isinstance(call.func, cst.Name):
                continue
            helper = self.index.functions.get(call.func.value)
            if helper is not None and helper is not function:
                found = self._loop_trials(helper, 1)
                if found is not None:
                    return found
        return NO_TRIALS

    def _loop_trials(self, function: cst.FunctionDef, depth: int) -> TrialCount | None:
        literal_bound: TrialCount | None = None
        for node in find_all(function.body, (cst.For, cst.CompFor)):
            assert isinstance(node, cst.For | cst.CompFor)
            bound = _range_bound(node.iter)
            if bound is None:
                continue
            count = self._bound(bound, function, depth)
            if count is None:
                continue
            if count.env is not None:
                return count
            literal_bound = literal_bound or count
        return literal_bound

    def _bound(
        self, expression: cst.BaseExpression, function: cst.FunctionDef, depth: int
    ) -> TrialCount | None:
        if depth > MAX_DEPTH:
            return None
        span = self.index.span(expression)
        number = literal(expression)
        if isinstance(number, int) and not isinstance(number, bool) and number > 0:
            return TrialCount(number, span, None, "literal loop bound")
        read = self.env_read(expression)
        if read is not None:
            name, default = read
            if default is None or default < 1:
                return None
            return TrialCount(default, span, name, f"{name} (default {default})")
        if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Name):
            helper = self.index.functions.get(expression.func.value)
            if helper is not None:
                for returned in _returns(helper):
                    found = self._bound(returned, helper, depth + 1)
                    if found is not None:
                        return found
            return None
        if not isinstance(expression, cst.Name):
            return None
        name = expression.value
        local = _local_assignment(function, name)
        if local is not None:
            return self._bound(local, function, depth + 1)
        parameter_default = _parameter_default(function, name)
        if parameter_default is not None:
            return self._bound(parameter_default, function, depth + 1)
        if _has_parameter(function, name):
            fixture = self.index.functions.get(name)
            if fixture is not None:
                for returned in _returns(fixture):
                    found = self._bound(returned, fixture, depth + 1)
                    if found is not None:
                        return found
            return self.fixtures(name)
        if name in self.index.assignments:
            return self._bound(self.index.assignments[name], function, depth + 1)
        return None

    def fixture_trials(self, function: cst.FunctionDef) -> TrialCount | None:
        """What a fixture returns, when that is a trial count (for other modules to use)."""
        for returned in _returns(function):
            found = self._bound(returned, function, 0)
            if found is not None:
                return found
        return None


def _range_bound(iterable: cst.BaseExpression) -> cst.BaseExpression | None:
    if not (isinstance(iterable, cst.Call) and dotted(iterable.func) == "range"):
        return None
    args = [arg for arg in iterable.args if arg.keyword is None and not arg.star]
    if len(args) == 1:
        return args[0].value
    if len(args) >= 2 and literal(args[0].value) == 0:
        return args[1].value
    return None


def _returns(function: cst.FunctionDef) -> list[cst.BaseExpression]:
    return [
        node.value
        for node in find_all(function.body, (cst.Return, cst.Yield))
        if isinstance(node, cst.Return | cst.Yield) and isinstance(node.value, cst.BaseExpression)
    ]


def _local_assignment(function: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    for node in find_all(function.body, cst.Assign):
        if any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets):
            return node.value
    return None


def _parameter_default(function: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name and param.default is not None:
            return param.default
    return None


def _has_parameter(function: cst.FunctionDef, name: str) -> bool:
    params = function.params
    return any(
        param.name.value == name
        for param in (*params.posonly_params, *params.params, *params.kwonly_params)
    )
