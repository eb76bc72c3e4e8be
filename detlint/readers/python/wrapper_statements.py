"""Statements of a decorator's code, run over ``wrapper_values``.

``if`` takes the branch its condition decides; ``for`` goes over a tuple (a
``range`` of known bounds, a literal list); ``while`` runs while its condition is
known to hold; ``try`` catches what its clauses name (an AssertionError is caught by
``AssertionError``, ``Exception`` and ``BaseException``, and not by other exception
classes); ``raise``, ``return``, ``break`` and ``continue`` leave as Python's do; ``class``
defines a class and ``x.name = ...`` sets an attribute (``wrapper_classes``). A
loop whose bound or condition is code detlint does not evaluate ends the read, and so
does any statement not listed here.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable

from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.retry_libraries import ASSERTION, catches_assertion
from detlint.readers.python.wrapper_expressions import Expressions, truth
from detlint.readers.python.wrapper_values import (
    Break,
    Caught,
    Continue,
    ExceptionClass,
    GiveUp,
    Qualified,
    Raised,
    Returned,
    Scope,
    Unknown,
    Value,
)

ANY = "*"  # a failure every except clause takes: what a decorator retries at all
# Rounds of a loop whose bound is code not evaluated: enough to see the test called again.
UNKNOWN_ROUNDS = 3
_COUNTING = ("itertools.count",)


class Statements(Expressions):
    """The statements of a read; ``Run`` adds calls, functions and decisions."""

    def __init__(self, index: ModuleIndex, failure: str) -> None:
        super().__init__(index)
        self.failure = failure  # what a call of the test raises
        self.handling: list[Raised] = []  # the exceptions being handled, innermost last
        self.loops: list[str] = []  # the loops running, innermost last
        self.caught_by: list[str] = []  # the except clauses that took the failure
        self.bounds: list[str] = []  # each running loop's bound, when it is code not evaluated

    def define(self, function: Function, scope: Scope) -> Value:
        raise NotImplementedError

    def define_class(self, node: ast.ClassDef, scope: Scope) -> Value:
        raise NotImplementedError

    def set_attribute(self, base: Value, name: str, value: Value) -> None:
        raise NotImplementedError

    def deciding_retries(self) -> bool:
        """Conditions in a loop or an except clause decide whether the test runs again;
        one the decorator reads before (a check of its delay) does not."""
        return bool(self.loops or self.handling)

    def statements(self, body: Iterable[ast.stmt], scope: Scope) -> None:
        for statement in body:
            self.step()
            self.statement(statement, scope)

    def statement(self, statement: ast.stmt, scope: Scope) -> None:
        if isinstance(statement, ast.Expr):
            self.value(statement.value, scope)
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            self.assignment(statement, scope)
        elif isinstance(statement, ast.If):
            chosen = statement.body if self.condition(statement.test, scope) else statement.orelse
            self.statements(chosen, scope)
        elif isinstance(statement, ast.For | ast.AsyncFor):
            self.loop(statement, scope)
        elif isinstance(statement, ast.While):
            self.loop_while(statement, scope)
        elif isinstance(statement, ast.Try):
            self.attempt(statement, scope)
        elif isinstance(statement, ast.Raise):
            self.raising(statement, scope)
        elif isinstance(statement, ast.Return):
            raise Returned(self.value(statement.value, scope) if statement.value else None)
        elif isinstance(statement, ast.Break | ast.Continue):
            raise Break() if isinstance(statement, ast.Break) else Continue()
        elif isinstance(statement, ast.Global | ast.Nonlocal):
            scope.shared.update(statement.names)
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            scope.names[statement.name] = self.define(statement, scope)
        elif isinstance(statement, ast.ClassDef):
            scope.names[statement.name] = self.define_class(statement, scope)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            for item in statement.items:
                self.value(item.context_expr, scope)
                if item.optional_vars is not None:
                    self.bind_target(item.optional_vars, Unknown("with"), scope)
            self.statements(statement.body, scope)
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            self.imports(statement, scope)
        elif isinstance(statement, ast.Assert):
            # An assert states what the decorator's author expects to hold (the types of
            # its arguments, the message of a failure it handles): where it is code not
            # evaluated, the read goes on as if it holds, neither a condition to decide
            # nor a retry's bound.
            if truth(self.value(statement.test, scope)) is False:
                raise Raised(ASSERTION)
        elif not isinstance(statement, ast.Pass | ast.Delete):
            raise GiveUp(f"`{self.text(statement)}`")

    def assignment(
        self, statement: ast.Assign | ast.AnnAssign | ast.AugAssign, scope: Scope
    ) -> None:
        if isinstance(statement, ast.AugAssign):
            target = statement.target
            left: ast.expr = target
            if isinstance(target, ast.Name):
                left = ast.copy_location(ast.Name(target.id, ast.Load()), target)
            operation = ast.copy_location(ast.BinOp(left, statement.op, statement.value), statement)
            self.bind_target(target, self.arithmetic(operation, scope), scope)
            return
        if statement.value is None:
            return
        found = self.value(statement.value, scope)
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for written in targets:
            self.bind_target(written, found, scope)

    def bind_target(self, target: ast.expr, value: Value, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            scope.assign(target.id, value)
        elif isinstance(target, ast.Attribute):
            self.set_attribute(self.value(target.value, scope), target.attr, value)
        elif isinstance(target, ast.Tuple | ast.List):
            items = value if isinstance(value, tuple) else ()
            for place, element in enumerate(target.elts):
                item = items[place] if len(items) == len(target.elts) else Unknown("unpacked")
                self.bind_target(element, item, scope)

    def imports(self, statement: ast.Import | ast.ImportFrom, scope: Scope) -> None:
        for alias in statement.names:
            if isinstance(statement, ast.Import):
                local = alias.asname or alias.name.split(".")[0]
                full = alias.name if alias.asname else local
            else:
                local = alias.asname or alias.name
                full = f"{statement.module or ''}.{alias.name}"
            scope.names[local] = Qualified(full)

    def loop(self, statement: ast.For | ast.AsyncFor, scope: Scope) -> None:
        items, bound = self.iterable(statement.iter, scope)
        self.loops.append("a loop")
        self.bounds.append(bound)
        try:
            for item in items:
                self.bind_target(statement.target, item, scope)
                try:
                    self.statements(statement.body, scope)
                except Break:
                    break
                except Continue:
                    continue
            else:
                self.statements(statement.orelse, scope)
        finally:
            self.loops.pop()
            self.bounds.pop()

    def iterable(self, expression: ast.expr, scope: Scope) -> tuple[Iterable[Value], str]:
        """What a ``for`` goes over, and its bound when that is code not evaluated (the
        loop then goes round a few times, and a second call of the test in it makes it
        a retry whose limit is that code)."""
        if self.index.imports.qualify(getattr(expression, "func", expression)) in _COUNTING:
            return itertools.count(), ""
        previous, self.counting = self.counting, True
        try:
            found = self.value(expression, scope)
        finally:
            self.counting = previous
        if isinstance(found, tuple):
            return found, ""
        bound = f"`{self.text(expression)}`"
        return itertools.repeat(Unknown("an item"), UNKNOWN_ROUNDS), bound

    def loop_while(self, statement: ast.While, scope: Scope) -> None:
        self.loops.append("a while loop")
        self.bounds.append("")
        rounds = 0
        try:
            while True:
                try:
                    holds = self.condition(statement.test, scope, decides=False)
                except GiveUp as unknown:
                    self.bounds[-1] = unknown.reason
                    rounds += 1
                    holds = rounds <= UNKNOWN_ROUNDS
                if not holds:
                    self.statements(statement.orelse, scope)
                    return
                try:
                    self.statements(statement.body, scope)
                except Break:
                    return
                except Continue:
                    continue
        finally:
            self.loops.pop()
            self.bounds.pop()

    def attempt(self, statement: ast.Try, scope: Scope) -> None:
        try:
            try:
                self.statements(statement.body, scope)
            except Raised as raised:
                handler = self.handler(statement.handlers, raised, scope)
                if handler is None:
                    raise
                if handler.name:
                    scope.assign(handler.name, Caught(raised.name))
                self.handling.append(raised)
                try:
                    self.statements(handler.body, scope)
                finally:
                    self.handling.pop()
            else:
                self.statements(statement.orelse, scope)
        finally:
            self.statements(statement.finalbody, scope)

    def handler(
        self, handlers: list[ast.ExceptHandler], raised: Raised, scope: Scope
    ) -> ast.ExceptHandler | None:
        """The first clause that takes ``raised``; one that names code detlint does not
        evaluate is decided as a condition that decides what is retried."""
        for handler in handlers:
            if handler.type is None or raised.name == ANY:
                caught: bool | None = True
            else:
                names = self.exception_names(handler.type, scope)
                caught = None
                if names is not None and raised.name == ASSERTION:
                    caught = catches_assertion(names)
                elif names is not None:
                    caught = raised.name in names or "Exception" in names
                if caught is None:
                    caught = self.decide(handler.type, scope, filters=True)
            if caught:
                if raised.name == self.failure:
                    self.caught_by.append(self.clause_text(handler.type, scope))
                return handler
        return None

    def clause_text(self, written: ast.expr | None, scope: Scope) -> str:
        """An except clause as quoted, with the classes it names where code computes them
        (``tuple(retriable) = (URLError, RuntimeError)``)."""
        if written is None:
            return "everything"
        text = self.text(written)
        names = self.exception_names(written, scope)
        if names is None or text.strip("()[] ").replace(" ", "") == ",".join(names):
            return text
        listed = names[0] if len(names) == 1 else f"({', '.join(names)})"
        return f"{text} = {listed}"

    def raising(self, statement: ast.Raise, scope: Scope) -> None:
        if statement.exc is None:
            if not self.handling:
                raise GiveUp("`raise` outside an except clause")
            raise Raised(self.handling[-1].name)
        found = self.value(statement.exc, scope)
        if statement.cause is not None:
            self.value(statement.cause, scope)
        if isinstance(found, Caught | ExceptionClass):
            raise Raised(found.name)
        raise Raised(self.text(statement.exc))
