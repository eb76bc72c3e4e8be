"""What a ``pytest_generate_tests`` hook parametrizes, and how far detlint can count it.

A hook in a test module or a conftest.py that reaches it runs ``metafunc.parametrize``
for the tests it picks: a test that requests one of the names it parametrizes
(directly or through the fixtures it uses) runs once per value. Hooks choose their
values as they run (what is installed, which fixture the test uses: cudf_polars gives
``_engine_param`` a different list per engine fixture), so a table counts only where
it is a literal and the call is reached whenever the name is requested: under no
condition but ``"name" in metafunc.fixturenames``. A call whose names detlint cannot
read may parametrize any test.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from detlint.readers.python.locations import call_args
from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.parametrize import argnames
from detlint.readers.python.walk import find_all

HOOK = "pytest_generate_tests"


@dataclass(frozen=True)
class HookTable:
    """One ``metafunc.parametrize(...)`` of a hook."""

    names: tuple[str, ...] | None  # None: names detlint cannot read (any test may get it)
    size: int | None  # values, where a literal table the hook always gives; else None
    # The marker whose presence the call is under (``if metafunc.definition.
    # get_closest_marker("subprocess"):``): only tests that carry it get the table.
    marker: str | None = None


def hook_tables(index: ModuleIndex) -> tuple[HookTable, ...]:
    """The ``metafunc.parametrize`` calls of the module's ``pytest_generate_tests``."""
    hook = index.functions.get(HOOK)
    if hook is None or not hook.args.args:
        return ()
    metafunc = hook.args.args[0].arg
    markers = _markers_read(hook)
    marker = markers[0] if len(markers) == 1 else None
    found: list[HookTable] = []
    for call in find_all(hook, ast.Call):
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "parametrize"
            and isinstance(func.value, ast.Name)
            and func.value.id == metafunc
        ):
            continue
        args = call_args(call)
        values = [arg.value for arg in args if arg.keyword is None]
        first = values[:1] or [arg.value for arg in args if arg.keyword == "argnames"]
        table = values[1:2] or [arg.value for arg in args if arg.keyword == "argvalues"]
        names = argnames(first[0]) if first else None
        size = _literal_size(table[0]) if table and _always(hook, call, metafunc) else None
        under = marker if marker is not None and _under_if(hook, call) else None
        found.append(HookTable(None if names is None else tuple(names), size, under))
    return tuple(found)


def _markers_read(hook: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The marker names the hook looks up (``get_closest_marker("x")``, ``iter_markers``)."""
    found: list[str] = []
    for call in find_all(hook, ast.Call):
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in ("get_closest_marker", "iter_markers"):
            for arg in call_args(call):
                value = arg.value.value if isinstance(arg.value, ast.Constant) else None
                if arg.keyword in (None, "name") and isinstance(value, str) and value not in found:
                    found.append(value)
    return found


def _under_if(hook: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> bool:
    return any(
        isinstance(node, ast.If) and any(inner is call for s in node.body for inner in ast.walk(s))
        for node in ast.walk(hook)
    )


def _literal_size(node: ast.expr) -> int | None:
    if isinstance(node, ast.List | ast.Tuple) and not any(
        isinstance(element, ast.Starred) for element in node.elts
    ):
        return len(node.elts)
    return None


def _always(hook: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, metafunc: str) -> bool:
    """Whether the call is reached whenever the test requests the names: it stands in
    the hook's body or under ``if "name" in metafunc.fixturenames:`` alone, after no
    statement that can leave but ``if "name" not in metafunc.fixturenames: return``."""
    body: list[ast.stmt] = hook.body
    while True:
        for statement in body:
            if any(node is call for node in ast.walk(statement)):
                break
            leaves = any(isinstance(n, ast.Return | ast.Raise) for n in ast.walk(statement))
            if leaves and not (
                isinstance(statement, ast.If) and _requested(statement.test, metafunc)
            ):
                return False
        else:
            return False
        if isinstance(statement, ast.Expr):
            return True
        if (
            isinstance(statement, ast.If)
            and _requested(statement.test, metafunc)
            and any(node is call for s in statement.body for node in ast.walk(s))
        ):
            body = statement.body
            continue
        return False


def _requested(test: ast.expr, metafunc: str) -> bool:
    """``"name" in metafunc.fixturenames`` (or ``not in``)."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.In | ast.NotIn)
        and isinstance(test.left, ast.Constant)
        and isinstance(test.comparators[0], ast.Attribute)
        and test.comparators[0].attr == "fixturenames"
        and isinstance(test.comparators[0].value, ast.Name)
        and test.comparators[0].value.id == metafunc
    )
