"""Finding nodes of given types under a node, in a fixed order.

Several answers depend on which node comes first (the first trial loop that
reads the environment, the first assignment of a name, the order of marks),
so the walk is depth-first and visits each node's children in one fixed
order: the order the code is written in, except that a function's
parameters and body come before its decorators and return annotation, a
class's body before its bases and decorators, an ``except`` clause's body
before its exception type and a ``case``'s body before its guard. ``ast.walk``
is breadth-first, and ``ast.iter_child_nodes`` keeps a call's keyword
arguments apart from its positional ones.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import TypeVar

from detlint.readers.python.locations import call_args

NodeT = TypeVar("NodeT", bound=ast.AST)

# Fields that hold no node worth visiting: contexts and operators.
_SKIPPED = frozenset({"ctx", "op", "ops"})
_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}

# Nodes that open a scope of their own: a walk of one function's checks or
# loops stops at them, since what they hold runs when they are called, not here.
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _parameters(arguments: ast.arguments) -> list[ast.AST | None]:
    """Annotations and defaults, parameter by parameter: regular, ``*args``,
    keyword-only, ``**kwargs``, then positional-only ones."""
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    default_of = dict(zip(map(id, positional), defaults, strict=True))
    found: list[ast.AST | None] = []
    for arg in arguments.args:
        found += [arg.annotation, default_of[id(arg)]]
    if arguments.vararg is not None:
        found.append(arguments.vararg.annotation)
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        found += [arg.annotation, default]
    if arguments.kwarg is not None:
        found.append(arguments.kwarg.annotation)
    for arg in arguments.posonlyargs:
        found += [arg.annotation, default_of[id(arg)]]
    return found


def _function(node: ast.AST) -> Iterable[ast.AST | None]:
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    return [
        *_parameters(node.args),
        *node.body,
        *node.decorator_list,
        node.returns,
        *getattr(node, "type_params", ()),
    ]


def _lambda(node: ast.AST) -> Iterable[ast.AST | None]:
    assert isinstance(node, ast.Lambda)
    return [*_parameters(node.args), node.body]


def _class(node: ast.AST) -> Iterable[ast.AST | None]:
    assert isinstance(node, ast.ClassDef)
    return [
        *node.body,
        *node.bases,
        *node.keywords,
        *node.decorator_list,
        *getattr(node, "type_params", ()),
    ]


def _handler(node: ast.AST) -> Iterable[ast.AST | None]:
    assert isinstance(node, ast.ExceptHandler)
    return [*node.body, node.type]


def _case(node: ast.AST) -> Iterable[ast.AST | None]:
    assert isinstance(node, ast.match_case)
    return [node.pattern, *node.body, node.guard]


def _call(node: ast.AST) -> Iterable[ast.AST | None]:
    assert isinstance(node, ast.Call)
    return [node.func, *(arg.node for arg in call_args(node))]


def _dict(node: ast.AST) -> Iterable[ast.AST | None]:
    assert isinstance(node, ast.Dict)
    return [item for pair in zip(node.keys, node.values, strict=True) for item in pair]


_ORDERED: dict[type[ast.AST], Callable[[ast.AST], Iterable[ast.AST | None]]] = {
    ast.FunctionDef: _function,
    ast.AsyncFunctionDef: _function,
    ast.Lambda: _lambda,
    ast.ClassDef: _class,
    ast.ExceptHandler: _handler,
    ast.match_case: _case,
    ast.Call: _call,
    ast.Dict: _dict,
}


def _children(node: ast.AST) -> list[ast.AST]:
    ordered = _ORDERED.get(type(node))
    if ordered is not None:
        return [child for child in ordered(node) if child is not None]
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(n for n in node._fields if n not in _SKIPPED)
    children: list[ast.AST] = []
    for name in names:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            children.append(value)
        elif isinstance(value, list):
            children += [item for item in value if isinstance(item, ast.AST)]
    return children


def children(node: ast.AST) -> list[ast.AST]:
    """A node's children in walk order (``ast.iter_child_nodes`` at a fraction of its cost)."""
    return _children(node)


def walk(roots: ast.AST | list[ast.stmt]) -> list[ast.AST]:
    """Every node below ``roots``, and each root itself, in walk order."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(reversed(roots)) if isinstance(roots, list) else [roots]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(_children(node)))
    return found


def of_kind(nodes: list[ast.AST], kinds: type[NodeT] | tuple[type[NodeT], ...]) -> list[NodeT]:
    """The nodes of one of ``kinds``, in the order given."""
    return [node for node in nodes if isinstance(node, kinds)]


def find_all(
    roots: ast.AST | list[ast.stmt], kinds: type[NodeT] | tuple[type[NodeT], ...]
) -> list[NodeT]:
    """Every node below ``roots`` (and each root itself) of one of ``kinds``, in walk order."""
    return of_kind(walk(roots), kinds)
