"""Hooks that skip a marker's tests unless a command-line option is given.

pytest's documentation teaches the idiom ("Control skipping of tests according to
command line option"), and suites copy it for their flaky and slow tests::

    def pytest_runtest_setup(item):
        if "flaky" in item.keywords and not item.config.getoption("--run-flaky"):
            pytest.skip("set --run-flaky option to run flaky tests")

    def pytest_collection_modifyitems(config, items):
        if config.getoption("--runslow"):
            return
        skip_slow = pytest.mark.skip(reason="need --runslow option to run")
        for item in items:
            if "slow" in item.keywords:
                item.add_marker(skip_slow)

Where a hook has exactly this shape, the marker is a skip of every test that carries
it, applied unless the option is given, with the skip's reason. Any other shape
(an ``else``, another condition, a skip mark built elsewhere) is not read here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from detlint.base.span import Span
from detlint.readers.python.names import dotted

# The hooks that see each test item before it runs.
_HOOKS = frozenset({"pytest_runtest_setup", "pytest_collection_modifyitems"})
_SKIP_CALLS = frozenset({"pytest.skip", "skip"})
_SKIP_MARKS = frozenset({"pytest.mark.skip", "mark.skip"})


@dataclass(frozen=True)
class OptionSkip:
    """A hook skips the tests marked ``name`` unless ``option`` is given."""

    name: str
    option: str  # as the command line writes it, "--run-flaky", where the file says so
    reason: str
    test: Span  # where the hook looks the marker up
    skip: Span  # the pytest.skip() or item.add_marker() call


@dataclass(frozen=True)
class _State:
    """What holds where a statement runs: the option known not given (``""`` when not
    known), and the skip marks bound to names, by name, to their reasons."""

    option: str = ""
    marks: tuple[tuple[str, str], ...] = ()


def option_skips(tree: ast.Module, display: str) -> Iterator[OptionSkip]:
    """Every readable option skip in the module's top-level hooks."""
    flags = _flags(tree)
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef) and statement.name in _HOOKS:
            yield from _block(statement.body, _State(), flags, display)


def _flags(tree: ast.Module) -> dict[str, str]:
    """The options ``parser.addoption("--run-flaky", ...)`` adds, by their ``dest``
    (``run_flaky``), so that ``getoption("run_flaky")`` is quoted as the flag."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "addoption"
        ):
            continue
        flags = [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
        long = next((f for f in flags if isinstance(f, str) and f.startswith("--")), None)
        if long is None:
            continue
        dest = next((k.value for k in node.keywords if k.arg == "dest"), None)
        name = dest.value if isinstance(dest, ast.Constant) else long[2:].replace("-", "_")
        if isinstance(name, str):
            found[name] = long
    return found


def _block(
    body: list[ast.stmt], state: _State, flags: dict[str, str], display: str
) -> Iterator[OptionSkip]:
    for statement in body:
        if isinstance(statement, ast.For) and not statement.orelse:
            yield from _block(statement.body, state, flags, display)
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, reason = statement.targets[0], _skip_mark(statement.value, state)
            if isinstance(target, ast.Name) and reason is not None:
                state = _State(state.option, (*state.marks, (target.id, reason)))
        elif isinstance(statement, ast.If) and not statement.orelse:
            option = _option(statement.test, flags, negated=False)
            if option is not None and _returns(statement.body):
                state = _State(option, state.marks)  # `if getoption(...): return`
                continue
            negated = _option(statement.test, flags, negated=True)
            if negated is not None:
                yield from _block(statement.body, _State(negated, state.marks), flags, display)
                continue
            yield from _guarded(statement, state, flags, display)


def _guarded(
    statement: ast.If, state: _State, flags: dict[str, str], display: str
) -> Iterator[OptionSkip]:
    """``if <marker test> [and not getoption(...)]: <skip>``."""
    parts = (
        statement.test.values
        if isinstance(statement.test, ast.BoolOp) and isinstance(statement.test.op, ast.And)
        else [statement.test]
    )
    marker = [found for part in parts if (found := _marker_test(part)) is not None]
    options = [o for part in parts if (o := _option(part, flags, negated=True)) is not None]
    if len(marker) != 1 or len(marker) + len(options) != len(parts) or len(options) > 1:
        return
    option = options[0] if options else state.option
    if not option or len(statement.body) != 1 or not isinstance(statement.body[0], ast.Expr):
        return
    call = statement.body[0].value
    reason = _skip_reason(call, state) if isinstance(call, ast.Call) else None
    if reason is not None:
        name, test = marker[0]
        yield OptionSkip(name, option, reason, node_span(display, test), node_span(display, call))


def _marker_test(node: ast.expr) -> tuple[str, ast.expr] | None:
    """``"name" in X.keywords``, ``X.get_closest_marker("name")`` (``is not None``):
    the name, and the expression that looks it up (where ``own_markers`` reads it)."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, op, right = node.left, node.ops[0], node.comparators[0]
        if isinstance(op, ast.In) and isinstance(right, ast.Attribute) and right.attr == "keywords":
            if isinstance(left, ast.Constant) and isinstance(left.value, str):
                return left.value, node
            return None
        if isinstance(op, ast.IsNot) and isinstance(right, ast.Constant) and right.value is None:
            return _marker_test(left)
        return None
    named = _string_argument(node, "get_closest_marker")
    return (named, node) if named is not None else None


def _option(node: ast.expr, flags: dict[str, str], negated: bool) -> str | None:
    """The option of ``X.getoption("--run-flaky")`` (under ``not`` when ``negated``)."""
    if negated:
        if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
            return None
        node = node.operand
    name = _string_argument(node, "getoption")
    return None if name is None else flags.get(name, name)


def _string_argument(node: ast.expr, method: str) -> str | None:
    """``"x"`` of a call ``X.<method>("x")`` with that one literal argument, or None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == method
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def _returns(body: list[ast.stmt]) -> bool:
    return len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is None


def _skip_mark(node: ast.expr, state: _State) -> str | None:
    """The reason of ``pytest.mark.skip(reason=...)`` or of a name bound to one."""
    if isinstance(node, ast.Name):
        return dict(state.marks).get(node.id)
    if not (isinstance(node, ast.Call) and dotted(node.func) in _SKIP_MARKS):
        return None
    return _reason(node)


def _skip_reason(call: ast.Call, state: _State) -> str | None:
    """The reason of ``pytest.skip(reason)`` or ``item.add_marker(<skip mark>)``."""
    if dotted(call.func) in _SKIP_CALLS:
        return _reason(call)
    if (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "add_marker"
        and len(call.args) == 1
        and not call.keywords
    ):
        return _skip_mark(call.args[0], state)
    return None


def _reason(call: ast.Call) -> str | None:
    """The literal reason of a skip call ("" when it gives none), None when it is code."""
    values = [*call.args, *(k.value for k in call.keywords if k.arg in ("reason", "msg"))]
    if len(values) > 1 or any(k.arg not in ("reason", "msg") for k in call.keywords):
        return None
    if not values:
        return ""
    value = values[0]
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None


def node_span(display: str, node: ast.expr) -> Span:
    """Where an expression is, as findings name it."""
    return Span(
        display,
        node.lineno,
        node.col_offset + 1,
        node.end_lineno or node.lineno,
        (node.end_col_offset or node.col_offset) + 1,
    )
