"""What a mark wrapper or a mark factory returns, as expressions to resolve.

A mark factory returns the mark (``return pytest.mark.flaky(reruns=2)``); a decorator
applies marks or other wrappers to the function it is given (``return
pytest.mark.flaky(reruns=2)(fn)``, ``return with_timeout(rerun_mark(fn))``, ``fn =
gpu_flaky(fn)``). ``marks.MarkResolver`` resolves what this module finds.
"""

from __future__ import annotations

import ast
import copy
import re

from detlint.readers.python.facts import Dynamic, Mark
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted

# A returned expression, and the defaults of the decorator's parameters it was read
# with (``("extended=False",)``): a bare use leaves them so, a call may not.
Returned = tuple[ast.expr, tuple[str, ...]]


def returned_expressions(index: ModuleIndex, function: Function) -> list[Returned]:
    """The marks a wrapper applies, as expressions to resolve.

    A mark factory returns the mark (``return pytest.mark.flaky(reruns=2)``); a
    decorator applies marks or other wrappers to the function it is given
    (``return pytest.mark.flaky(reruns=2)(fn)``, ``return with_timeout(rerun_mark(fn))``,
    ``fn = gpu_flaky(fn)``), or returns a wrapper it decorates with one (``@flaky(
    max_runs=5) @wraps(fn) def wrapper(...)``, built in a nested function it calls).
    Only the function's own top-level statements are read, and a local name bound to
    a mark in them is followed.
    """
    if not index.is_block(function.body):
        return []
    parameters = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
    wrapped = parameters[0] if parameters else None
    defaults = _defaults(function, wrapped)
    return [
        (expression, tuple(f"{n}={index.text(defaults[n])}" for n in sorted(used) if n in defaults))
        for expression, used in _returned_by(function, wrapped, defaults, 0)
    ]


def _returned_by(
    function: Function, wrapped: str | None, known: dict[str, ast.expr], depth: int
) -> list[tuple[ast.expr, set[str]]]:
    """What ``function`` returns or applies, each with the bound names read into it."""
    found: list[ast.expr] = []
    local: dict[str, ast.expr] = {}
    nested: dict[str, Function] = {}
    for statement in function.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            nested[statement.name] = statement
        if isinstance(statement, ast.Assign):
            targets = [t.id for t in statement.targets if isinstance(t, ast.Name)]
            if wrapped in targets:
                found += _applied_to(statement.value, wrapped, local)
            for target in targets:
                local[target] = statement.value
        elif isinstance(statement, ast.Expr):
            found += _applied_to(statement.value, wrapped, local)
        elif isinstance(statement, ast.Return) and statement.value is not None:
            value = _chosen(statement.value, wrapped)
            applied = _applied_to(value, wrapped, local)
            if applied:
                found += applied
                continue
            inner = _wrapper_marks(value, wrapped, nested, {**known, **local}, depth)
            if inner:
                return [(expression, set[str]()) for expression in found] + inner
            found.append(_local(value, local))
    return [(expression, set()) for expression in found]


def _defaults(function: Function, wrapped: str | None) -> dict[str, ast.expr]:
    """The parameters a bare decorator leaves at their defaults: ``@retry_failed`` is
    ``retry_failed(fn)``, so ``extended=False`` holds inside it."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaulted = positional[len(positional) - len(arguments.defaults) :]
    pairs = list(zip(defaulted, arguments.defaults, strict=True))
    pairs += [
        (arg, default)
        for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if default is not None
    ]
    return {arg.arg: default for arg, default in pairs if arg.arg != wrapped}


def _chosen(value: ast.expr, wrapped: str | None) -> ast.expr:
    """``decorate() if fn else decorate``: applied bare, the function is given."""
    if isinstance(value, ast.IfExp) and isinstance(value.test, ast.Name) and wrapped is not None:
        return value.body if value.test.id == wrapped else value
    return value


def _wrapper_marks(
    value: ast.expr,
    wrapped: str | None,
    nested: dict[str, Function],
    known: dict[str, ast.expr],
    depth: int,
) -> list[tuple[ast.expr, set[str]]]:
    """The decorators of a wrapper the function returns (``return wrapper``), or of one
    a nested function it calls builds (``return decorate()``), with the names they use
    replaced by what the enclosing functions bind (``max_runs=limit``, ``limit = 20 if
    extended else 5``, ``extended`` left at its default)."""
    if depth > 2 or wrapped is None:
        return []
    if isinstance(value, ast.Call) and not value.args and not value.keywords:
        callee = nested.get(value.func.id) if isinstance(value.func, ast.Name) else None
        return [] if callee is None else _returned_by(callee, wrapped, known, depth + 1)
    if not isinstance(value, ast.Name) or value.id not in nested:
        return []
    wrapper = nested[value.id]
    if not any(_calls(node, wrapped) for node in ast.walk(wrapper)):
        return []
    found: list[tuple[ast.expr, set[str]]] = []
    for decorator in wrapper.decorator_list:
        if (dotted(_callee(decorator)) or "").rsplit(".", 1)[-1] == "wraps":
            continue
        substituted = _Substituted(known)
        found.append((substituted.visit(copy.deepcopy(decorator)), substituted.used))
    return found


def _callee(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


def _calls(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


class _Substituted(ast.NodeTransformer):
    """Names replaced by the expressions bound to them, a conditional expression whose
    test is then a constant folded to its branch."""

    def __init__(self, known: dict[str, ast.expr]) -> None:
        self.known = known
        self.seen: set[str] = set()
        self.used: set[str] = set()  # every name replaced

    def visit_Name(self, node: ast.Name) -> ast.AST:
        bound = self.known.get(node.id)
        if bound is None or node.id in self.seen or not isinstance(node.ctx, ast.Load):
            return node
        self.seen.add(node.id)
        self.used.add(node.id)
        replaced = self.visit(copy.deepcopy(bound))
        self.seen.discard(node.id)
        return replaced if isinstance(replaced, ast.expr) else node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node


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


def factory_names(function: Function) -> set[str]:
    """The parameters and local names of a mark factory (``RunIf(**kwargs)``)."""
    arguments = function.args
    names = {arg.arg for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    names |= {arg.arg for arg in (arguments.vararg, arguments.kwarg) if arg is not None}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


_WORD = re.compile(r"[A-Za-z_]\w*")


def mentions(mark: Mark, names: set[str]) -> bool:
    """Whether a mark's arguments use names bound inside the factory that made it:
    its condition then says nothing at the use site (``len(reasons) > 0``)."""
    return any(
        isinstance(argument.value, Dynamic)
        and names.intersection(_WORD.findall(argument.value.source))
        for argument in mark.arguments
    )
