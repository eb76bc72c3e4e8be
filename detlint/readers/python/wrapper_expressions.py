"""Expressions of a decorator's code, evaluated over ``wrapper_values``.

What is evaluated: constants, names (the running functions' scopes, then the
module's functions, constants and imports, then Python's builtins), arithmetic and
comparisons of known numbers, ``and``/``or``/``not``, conditional expressions,
tuples, lambdas, and calls (``calls`` on the run). Anything else is ``Unknown`` with its
code, and a condition that is unknown is decided by the run (``decide``).
"""

from __future__ import annotations

import ast
import builtins
import operator
from collections.abc import Callable
from typing import Any

from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.names import COMPARISONS, literal
from detlint.readers.python.retry_libraries import EXCEPTION_NAME
from detlint.readers.python.wrapper_comprehensions import Comprehension, comprehension
from detlint.readers.python.wrapper_values import (
    TEST,
    Caught,
    Closure,
    ExceptionClass,
    GiveUp,
    Identity,
    Library,
    Missing,
    Number,
    Partial,
    Qualified,
    Scope,
    Unknown,
    Value,
)

_BUILTINS = frozenset(vars(builtins))
_OTHER_EXCEPTIONS = frozenset({"StopIteration", "StopAsyncIteration", "timeout"})
_ARITHMETIC: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Div: operator.truediv,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    **COMPARISONS,
    ast.In: lambda left, right: operator.contains(right, left),
    ast.NotIn: lambda left, right: not operator.contains(right, left),
}
_PLAIN = (int, float, str, bool, type(None), tuple)


def plain(value: Value) -> object:
    """A value as Python's own, for arithmetic and comparisons (a Number as its int)."""
    if isinstance(value, Number):
        return value.value
    if isinstance(value, tuple):
        return tuple(plain(item) for item in value)
    return value


def known(value: Value) -> bool:
    """Whether a value is one Python's own operators can take."""
    if isinstance(value, tuple):
        return all(known(item) for item in value)
    return isinstance(value, (Number, *_PLAIN))


def truth(value: Value) -> bool | None:
    """What ``bool(value)`` gives, or None when the value is code not evaluated."""
    if isinstance(value, Unknown):
        return None
    if isinstance(value, tuple) and not value:
        return False
    if known(value):
        return bool(plain(value))
    return True  # functions, classes and the test itself are true


def origins(*values: Value) -> frozenset[str]:
    found: frozenset[str] = frozenset()
    for value in values:
        if isinstance(value, Number):
            found |= value.origins
    return found


class Expressions:
    """The evaluation of expressions; ``Run`` adds statements, calls and decisions."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.module = Scope()
        self.counting = False  # reading a loop bound or a condition: Numbers read count
        self.origins: set[str] = set()
        self._globals: set[str] = set()  # module names being evaluated (no cycles)
        self._lambdas: dict[int, ast.FunctionDef] = {}

    # -- what a run adds ---------------------------------------------------

    def call(self, expression: ast.Call, scope: Scope) -> Value:
        raise NotImplementedError

    def decide(self, expression: ast.expr, scope: Scope, filters: bool = False) -> bool:
        raise NotImplementedError

    def step(self) -> None:
        raise NotImplementedError

    def defined_class(self, name: str) -> Value | None:
        """A class the module defines, by name (``Classes`` reads them)."""
        return None

    def member(self, base: Value, name: str, text: str) -> Value:
        """An attribute of a value that is not an imported name (``text`` as written)."""
        return Unknown(text)

    def deciding_retries(self) -> bool:
        """Whether a condition read now can decide how many times the test runs (its
        numbers are then quoted as where the count comes from)."""
        return True

    # -- expressions -------------------------------------------------------

    def value(self, expression: ast.expr, scope: Scope) -> Value:
        self.step()
        if isinstance(expression, ast.Constant):
            found = literal(expression)
            if isinstance(found, int | float | str | bool) or found is None:
                return found
            return Unknown(self.text(expression))
        if isinstance(expression, ast.Name):
            return self.name(expression.id, scope)
        if isinstance(expression, ast.Call):
            return self.call(expression, scope)
        if isinstance(expression, ast.Await):
            return self.value(expression.value, scope)
        method = _EXPRESSIONS.get(type(expression))
        if method is None:
            return Unknown(self.text(expression))
        return method(self, expression, scope)

    def text(self, node: ast.AST) -> str:
        return self.index.text(node)

    def name(self, name: str, scope: Scope) -> Value:
        bound = scope.lookup(name)
        found = self.global_value(name) if isinstance(bound, Missing) else bound
        if self.counting and isinstance(found, Number):
            self.origins |= found.origins
        return found

    def global_value(self, name: str) -> Value:
        """A module-level name: a function, a constant, an import, or a builtin."""
        if name in self.module.names:
            return self.module.names[name]
        index = self.index
        found: Value = Unknown(name)
        if name in index.functions and name not in index.alternatives:
            found = Closure(index.functions[name], self.module)
        elif name in index.assignments and name not in index.alternatives:
            if name in self._globals:
                return Unknown(name)
            self._globals.add(name)
            try:
                found = self.value(index.assignments[name], self.module)
            finally:
                self._globals.discard(name)
            if isinstance(found, int) and not isinstance(found, bool):
                found = Number(found, frozenset({f"{name} = {found}"}))
            elif isinstance(found, Unknown):
                found = Unknown(name)
        elif name in index.imports.names:
            found = Qualified(index.imports.names[name])
        elif (klass := self.defined_class(name)) is not None:
            found = klass
        elif EXCEPTION_NAME.fullmatch(name) or name in _OTHER_EXCEPTIONS:
            found = ExceptionClass(name)
        elif name in _BUILTINS:
            found = Qualified(f"builtins.{name}")
        self.module.names[name] = found
        return found

    def attribute(self, expression: ast.Attribute, scope: Scope) -> Value:
        base = self.value(expression.value, scope)
        if isinstance(base, Qualified):
            return Qualified(f"{base.name}.{expression.attr}")
        if EXCEPTION_NAME.fullmatch(expression.attr):
            return ExceptionClass(expression.attr)
        found = self.member(base, expression.attr, self.text(expression))
        if self.counting and isinstance(found, Number):
            self.origins |= found.origins  # `range(self.times)`: the count kept on an object
        return found

    def arithmetic(self, expression: ast.BinOp, scope: Scope) -> Value:
        left, right = self.value(expression.left, scope), self.value(expression.right, scope)
        method = _ARITHMETIC.get(type(expression.op))
        a, b = plain(left), plain(right)
        numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
        if method is None or not numbers:
            return Unknown(self.text(expression))
        try:
            result = method(a, b)  # type: ignore[arg-type]
        except ArithmeticError:
            return Unknown(self.text(expression))
        where = origins(left, right)
        if isinstance(result, int) and where:
            return Number(result, where)
        return result

    def compare(self, expression: ast.Compare, scope: Scope) -> Value:
        left = self.value(expression.left, scope)
        for op, comparator in zip(expression.ops, expression.comparators, strict=True):
            right = self.value(comparator, scope)
            identity = isinstance(op, ast.Is | ast.IsNot) and None in (left, right)
            if identity and not isinstance(left, Unknown) and not isinstance(right, Unknown):
                # `func is None`: a function, the test or a class is not None
                if (left is right) == isinstance(op, ast.IsNot):
                    return False
                left = right
                continue
            if not (known(left) and known(right)):
                return Unknown(self.text(expression))
            try:
                result = _COMPARE[type(op)](plain(left), plain(right))
            except TypeError:
                return Unknown(self.text(expression))
            if not result:
                return False
            left = right
        return True

    def boolean(self, expression: ast.BoolOp, scope: Scope) -> Value:
        last: Value = None
        for operand in expression.values:
            last = self.value(operand, scope)
            decided = truth(last)
            if decided is None:
                return Unknown(self.text(expression))
            if decided == isinstance(expression.op, ast.Or):
                return last
        return last

    def unary(self, expression: ast.UnaryOp, scope: Scope) -> Value:
        operand = self.value(expression.operand, scope)
        if isinstance(expression.op, ast.Not):
            decided = truth(operand)
            return Unknown(self.text(expression)) if decided is None else not decided
        number = plain(operand)
        if isinstance(number, int | float) and not isinstance(number, bool):
            result = -number if isinstance(expression.op, ast.USub) else number
            where = origins(operand)
            return Number(result, where) if isinstance(result, int) and where else result
        return Unknown(self.text(expression))

    def choice(self, expression: ast.IfExp, scope: Scope) -> Value:
        chosen = expression.body if self.condition(expression.test, scope) else expression.orelse
        return self.value(chosen, scope)

    def sequence(self, expression: ast.Tuple | ast.List | ast.Set, scope: Scope) -> Value:
        if any(isinstance(item, ast.Starred) for item in expression.elts):
            return Unknown(self.text(expression))
        return tuple(self.value(item, scope) for item in expression.elts)

    def subscript(self, expression: ast.Subscript, scope: Scope) -> Value:
        base = self.value(expression.value, scope)
        key = plain(self.value(expression.slice, scope))
        if isinstance(base, tuple) and isinstance(key, int) and -len(base) <= key < len(base):
            return base[key]
        return Unknown(self.text(expression))

    def anonymous(self, expression: ast.Lambda, scope: Scope) -> Value:
        """A lambda, as the function ``def <lambda>(...): return body`` (made once per
        lambda, so that a recursion through it is seen)."""
        function = self._lambdas.get(id(expression))
        if function is None:
            body = ast.copy_location(ast.Return(expression.body), expression.body)
            function = ast.copy_location(
                ast.FunctionDef(
                    name="<lambda>", args=expression.args, body=[body], decorator_list=[]
                ),
                expression,
            )
            self._lambdas[id(expression)] = function
        return Closure(function, scope)

    def comprehension(self, expression: Comprehension, scope: Scope) -> Value:
        return comprehension(self, expression, scope, truth)

    def assigned(self, expression: ast.NamedExpr, scope: Scope) -> Value:
        found = self.value(expression.value, scope)
        scope.assign(expression.target.id, found)
        return found

    # -- conditions --------------------------------------------------------

    def condition(self, expression: ast.expr, scope: Scope, decides: bool = True) -> bool:
        """Whether a condition holds; code not evaluated is decided by the run (or,
        where ``decides`` is off, ends the read: a loop's condition)."""
        if isinstance(expression, ast.UnaryOp) and isinstance(expression.op, ast.Not):
            return not self.condition(expression.operand, scope, decides)
        if isinstance(expression, ast.BoolOp):
            wanted = isinstance(expression.op, ast.Or)
            for operand in expression.values:
                if self.condition(operand, scope, decides) == wanted:
                    return wanted
            return not wanted
        previous, self.counting = self.counting, self.deciding_retries()
        try:
            decided = truth(self.value(expression, scope))
        finally:
            self.counting = previous
        if decided is not None:
            return decided
        if not decides:
            raise GiveUp(f"`{self.text(expression)}`", loop=True)
        return self.decide(expression, scope)

    def exception_names(self, expression: ast.expr, scope: Scope) -> list[str] | None:
        """The exception classes an ``except`` clause names, or None when they are code.
        A module name defined in several branches (``if HAS_PYTEST: SKIPS = (...) else:
        SKIPS = (...)``) names the classes of them all, when each is known."""
        found = _names(self.value(expression, scope))
        if found is not None or not isinstance(expression, ast.Name):
            return found
        branches = self.index.alternatives.get(expression.id)
        bound = scope.lookup(expression.id)  # a module name's reading is kept at module scope
        if not branches or not (
            isinstance(bound, Missing) or self.module.names.get(expression.id) is bound
        ):
            return None
        every: list[str] = []
        for value, _ in branches:
            names = (
                None if not isinstance(value, ast.expr) else _names(self.value(value, self.module))
            )
            if names is None:
                return None
            every += names
        return every

    def reads_caught(self, expression: ast.expr, scope: Scope) -> bool:
        """Whether code reads a caught exception (``is_retryable(e)``): it then decides
        what is retried, not where."""
        return any(
            isinstance(node, ast.Name) and isinstance(scope.lookup(node.id), Caught)
            for node in ast.walk(expression)
        )


def _names(value: Value) -> list[str] | None:
    if isinstance(value, ExceptionClass):
        return [value.name]
    if isinstance(value, Qualified):
        return [value.name.rsplit(".", 1)[-1]]
    if isinstance(value, tuple):
        found: list[str] = []
        for item in value:
            names = _names(item)
            if names is None:
                return None
            found += names
        return found
    return None


def is_callable(value: Value) -> bool:
    return value is TEST or isinstance(value, Closure | Library | Partial | Identity)


_Method = Callable[[Expressions, ast.expr, Scope], Value]
_EXPRESSIONS: dict[type[ast.expr], _Method] = {
    ast.Attribute: Expressions.attribute,  # type: ignore[dict-item]
    ast.BinOp: Expressions.arithmetic,  # type: ignore[dict-item]
    ast.Compare: Expressions.compare,  # type: ignore[dict-item]
    ast.BoolOp: Expressions.boolean,  # type: ignore[dict-item]
    ast.UnaryOp: Expressions.unary,  # type: ignore[dict-item]
    ast.IfExp: Expressions.choice,  # type: ignore[dict-item]
    ast.Tuple: Expressions.sequence,  # type: ignore[dict-item]
    ast.List: Expressions.sequence,  # type: ignore[dict-item]
    ast.Set: Expressions.sequence,  # type: ignore[dict-item]
    ast.Subscript: Expressions.subscript,  # type: ignore[dict-item]
    ast.NamedExpr: Expressions.assigned,  # type: ignore[dict-item]
    ast.Lambda: Expressions.anonymous,  # type: ignore[dict-item]
    ast.ListComp: Expressions.comprehension,  # type: ignore[dict-item]
    ast.SetComp: Expressions.comprehension,  # type: ignore[dict-item]
    ast.GeneratorExp: Expressions.comprehension,  # type: ignore[dict-item]
}
