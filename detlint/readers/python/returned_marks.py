"""What a mark wrapper or a mark factory returns, as expressions to resolve.

A mark factory returns the mark (``return pytest.mark.flaky(reruns=2)``); a decorator
applies marks or other wrappers to the function it is given (``return
pytest.mark.flaky(reruns=2)(fn)``, ``return with_timeout(rerun_mark(fn))``, ``fn =
gpu_flaky(fn)``). ``marks.MarkResolver`` resolves what this module finds.
"""

from __future__ import annotations

import ast

from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted


def returned_expressions(index: ModuleIndex, function: Function) -> list[ast.expr]:
    """The marks a wrapper applies, as expressions to resolve.

    A mark factory returns the mark (``return pytest.mark.flaky(reruns=2)``); a
    decorator applies marks or other wrappers to the function it is given
    (``return pytest.mark.flaky(reruns=2)(fn)``, ``return with_timeout(rerun_mark(fn))``,
    ``fn = gpu_flaky(fn)``). Only the function's own top-level statements are read,
    and a local name bound to a mark in them is followed.
    """
    found: list[ast.expr] = []
    if not index.is_block(function.body):
        return found
    parameters = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
    wrapped = parameters[0] if parameters else None
    local: dict[str, ast.expr] = {}
    for statement in function.body:
        if isinstance(statement, ast.Assign):
            targets = [t.id for t in statement.targets if isinstance(t, ast.Name)]
            if wrapped in targets:
                found += _applied_to(statement.value, wrapped, local)
            for target in targets:
                local[target] = statement.value
        elif isinstance(statement, ast.Expr):
            found += _applied_to(statement.value, wrapped, local)
        elif isinstance(statement, ast.Return) and statement.value is not None:
            applied = _applied_to(statement.value, wrapped, local)
            found += applied or [_local(statement.value, local)]
    return found


def _local(value: ast.expr, local: dict[str, ast.expr]) -> ast.expr:
    if isinstance(value, ast.Name) and value.id in local:
        return local[value.id]
    return value


def _applied_to(value: ast.expr, wrapped: str | None, local: dict[str, ast.expr]) -> list[ast.expr]:
    """The callees of a chain of calls that ends in the wrapped function:
    ``a(b(fn))`` -> [a, b]; ``pytest.mark.x(...)(fn)`` -> [pytest.mark.x(...)]."""
    found: list[ast.expr] = []
    while isinstance(value, ast.Call) and wrapped is not None:
        positional = [arg for arg in value.args if not isinstance(arg, ast.Starred)]
        if not positional or "mark" in (dotted(value.func) or "").split("."):
            # `pytest.mark.skipif(condition)` in a factory configures the mark; a
            # decorator applies one already configured: `pytest.mark.skipif(...)(fn)`.
            return []
        found.append(_local(value.func, local))
        value = positional[0]
    if isinstance(value, ast.Name) and value.id == wrapped:
        return found
    return []
