"""Where in a function body a call runs: on every path, or only under a guard.

A ``pytest.skip()`` under ``if current_platform.is_rocm():`` skips the test on
ROCm only; taken for an unconditional skip it would zero every number of a test
that runs, and reports, everywhere else. Real suites put nearly every imperative
skip and xfail under such a guard, so each call found in a test body comes with
the guards the path to it passes: the ``if`` (or the ``not`` of it, in an
``else``), an ``except`` clause, a ``with`` or a loop, or an earlier statement
that can return first. Only a call with no guard runs wherever the test does.

The guards are phrases that quote the code (``"`is_rocm()`"``, ``"not `HAS_GPU`"``,
``"`ImportError` is raised"``), never evaluated: detlint does not know the
platform a test runs on, and says where each knob applies instead.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator

from detlint.readers.python.walk import SCOPES as _NESTED

Text = Callable[[ast.AST], str]
Guards = tuple[str, ...]

_SPACE = re.compile(r"\s+")
LONGEST = 100  # characters of code quoted in a guard, before it is cut with "..."
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
# Calls that leave the test at once, as a `return` does (they raise pytest's outcomes).
EXITING_CALLS = frozenset({"skip", "xfail", "fail", "exit", "skipTest"})


def quoted(code: str) -> str:
    """Code as a message quotes it: on one line, cut when long, in backquotes."""
    one_line = _SPACE.sub(" ", code).strip()
    if len(one_line) > LONGEST:
        one_line = one_line[: LONGEST - 3].rstrip() + "..."
    return f"`{one_line}`"


def negated(code: str) -> str:
    return f"not {quoted(code)}"


class GuardedWalk:
    """The calls below some statements, each with the guards on the way to it.

    Nested functions, lambdas and classes are not entered: their code runs
    when (and if) something calls it, not as part of the body being read.
    """

    def __init__(
        self,
        text: Text,
        line: Callable[[int], int] = lambda number: number,
        known: Callable[[ast.expr], bool | None] = lambda test: None,
    ) -> None:
        self.text = text
        self.line = line  # a parsed line's number in the file (narrowing drops lines)
        # Whether a condition holds, where the module's constants decide it: then only
        # the branch that runs is read, with no guard (``if IS_CI: pytest.skip()``).
        self.known = known

    def calls(self, body: list[ast.stmt]) -> Iterator[tuple[ast.Call, Guards]]:
        yield from self._statements(body, ())

    def _statements(
        self, body: list[ast.stmt], guards: Guards
    ) -> Iterator[tuple[ast.Call, Guards]]:
        for statement in body:
            yield from self._statement(statement, guards)
            after = self._past(statement)
            if after is not None:
                guards = adding(guards, after)

    def _past(self, statement: ast.stmt) -> str | None:
        """The guard on the statements after ``statement``, when it can leave first.

        ``if C: return`` leaves exactly where ``C`` holds, so what follows runs
        where it does not; any other statement that can return, raise or skip on
        some path leaves the rest behind that line.
        """
        if isinstance(statement, ast.If) and not statement.orelse and _leaves(statement.body):
            if self.known(statement.test) is False:
                return None
            return negated(self.text(statement.test))
        if not isinstance(statement, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign) and (
            _may_leave(statement)
        ):
            return f"the test gets past line {self.line(statement.lineno)}"
        return None

    def _statement(self, node: ast.stmt, guards: Guards) -> Iterator[tuple[ast.Call, Guards]]:
        text = self.text
        if isinstance(node, _NESTED):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for decorator in node.decorator_list:
                    yield from self._expression(decorator, guards)
            return
        if isinstance(node, ast.If):
            yield from self._expression(node.test, guards)
            known = self.known(node.test)
            if known is None:
                yield from self._statements(node.body, adding(guards, quoted(text(node.test))))
                yield from self._statements(node.orelse, adding(guards, negated(text(node.test))))
            else:
                yield from self._statements(node.body if known else node.orelse, guards)
        elif isinstance(node, ast.For | ast.AsyncFor):
            yield from self._expression(node.iter, guards)
            header = f"for {_one_line(text(node.target))} in {_one_line(text(node.iter))}:"
            yield from self._statements(node.body, adding(guards, f"inside `{header}`"))
            yield from self._statements(node.orelse, _after_loop(node, header, guards))
        elif isinstance(node, ast.While):
            yield from self._expression(node.test, guards)
            header = f"while {_one_line(text(node.test))}:"
            yield from self._statements(node.body, adding(guards, f"inside `{header}`"))
            yield from self._statements(node.orelse, _after_loop(node, header, guards))
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                yield from self._expression(item.context_expr, guards)
            items = ", ".join(_one_line(text(item.context_expr)) for item in node.items)
            yield from self._statements(node.body, adding(guards, f"inside `with {items}:`"))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            yield from self._statements(node.body, guards)  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                raised = (
                    f"{quoted(text(handler.type))} is raised"
                    if handler.type is not None
                    else "an exception is raised"
                )
                yield from self._statements(handler.body, adding(guards, raised))
            # `else:` runs only when the `try:` body raised nothing a handler caught.
            orelse = node.orelse  # type: ignore[attr-defined]
            if orelse and node.handlers:  # type: ignore[attr-defined]
                line = self.line(node.lineno)
                raised_nothing = f"the `try:` on line {line} raises nothing"
                yield from self._statements(orelse, adding(guards, raised_nothing))
            else:
                yield from self._statements(orelse, guards)
            yield from self._statements(node.finalbody, guards)  # type: ignore[attr-defined]
        elif isinstance(node, ast.Match):
            yield from self._expression(node.subject, guards)
            for case in node.cases:
                matched = f"`case {_one_line(text(case.pattern))}:` matches"
                yield from self._statements(case.body, adding(guards, matched))
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    yield from self._expression(child, guards)

    def _expression(self, node: ast.expr, guards: Guards) -> Iterator[tuple[ast.Call, Guards]]:
        text = self.text
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.IfExp):
            yield from self._expression(node.test, guards)
            yield from self._expression(node.body, adding(guards, quoted(text(node.test))))
            yield from self._expression(node.orelse, adding(guards, negated(text(node.test))))
            return
        if isinstance(node, ast.BoolOp):
            first, *rest = node.values
            yield from self._expression(first, guards)
            for previous, value in zip(node.values, rest, strict=False):
                clause = (
                    quoted(text(previous))
                    if isinstance(node.op, ast.And)
                    else negated(text(previous))
                )
                guards = adding(guards, clause)
                yield from self._expression(value, guards)
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            inside = f"inside a comprehension over {quoted(text(node.generators[0].iter))}"
            for child in ast.iter_child_nodes(node):
                for inner in ast.walk(child):
                    if isinstance(inner, ast.Call):
                        yield inner, adding(guards, inside)
            return
        if isinstance(node, ast.Call):
            yield node, guards
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                yield from self._expression(child, guards)
            elif isinstance(child, ast.keyword):
                yield from self._expression(child.value, guards)


def _after_loop(node: ast.For | ast.AsyncFor | ast.While, header: str, guards: Guards) -> Guards:
    """The guards on a loop's ``else:``: it runs only when no ``break`` left the loop,
    so a loop that can break makes it conditional; one that cannot runs it always."""
    if _breaks(node.body):
        return adding(guards, f"`{header}` ends without `break`")
    return guards


def _breaks(body: list[ast.stmt]) -> bool:
    """Whether a ``break`` in ``body`` leaves this loop (not a nested one or function)."""
    for statement in body:
        if isinstance(statement, ast.Break):
            return True
        if isinstance(statement, ast.For | ast.AsyncFor | ast.While):
            if _breaks(statement.orelse):
                return True
            continue
        if isinstance(statement, _NESTED):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and inner:
                blocks = (
                    [part.body for part in inner] if not isinstance(inner[0], ast.stmt) else [inner]
                )
                if any(_breaks(block) for block in blocks):
                    return True
    return False


def adding(guards: Guards, clause: str) -> Guards:
    """``guards`` and ``clause``, where a clause replaces its own negation: after
    ``if C: pytest.skip()``, a later ``if C:`` meets a ``C`` the code has changed
    since (``stderr = run(...)`` again), so only the later test holds there."""
    opposite = clause[len("not ") :] if clause.startswith("not `") else f"not {clause}"
    return (*(guard for guard in guards if guard != opposite), clause)


def _one_line(code: str) -> str:
    return _SPACE.sub(" ", code).strip()


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr
        if isinstance(func, ast.Name):
            return func.id
    return None


def _leaves(body: list[ast.stmt]) -> bool:
    """Whether a block always leaves the function: it ends in a return, a raise,
    or a call such as ``pytest.skip()`` that raises."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, _EXITS):
        return True
    return isinstance(last, ast.Expr) and _call_name(last.value) in EXITING_CALLS


def _may_leave(statement: ast.stmt) -> bool:
    """Whether some path through a compound statement returns, raises or skips."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if node is not statement and isinstance(node, _NESTED):
            continue
        if isinstance(node, ast.Return | ast.Raise):
            return True
        if isinstance(node, ast.Expr) and _call_name(node.value) in EXITING_CALLS:
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def handlers_around(body: list[ast.stmt], target: ast.AST) -> list[ast.ExceptHandler] | None:
    """The ``except`` clauses ``target`` sits in, outermost first (an empty list when it
    is in none), or None when it is not in ``body`` outside nested functions.

    A call in a handler runs only after the ``try:`` body raised what that clause
    catches: a skip there is reached through that exception alone (``guards`` quotes it
    as a phrase; this keeps the clauses themselves, to read the types they name).
    """
    stack: list[tuple[ast.AST, tuple[ast.ExceptHandler, ...]]] = [
        (statement, ()) for statement in body
    ]
    while stack:
        node, handlers = stack.pop()
        if node is target:
            return list(handlers)
        if isinstance(node, _NESTED):
            continue
        inside = (*handlers, node) if isinstance(node, ast.ExceptHandler) else handlers
        stack.extend((child, inside) for child in ast.iter_child_nodes(node))
    return None
