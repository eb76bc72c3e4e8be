"""A decorator factory applied without a call, whose inner decorator runs no test.

``@is_flaky`` where ``@is_flaky()`` was meant (transformers' and diffusers' helper):
Python calls the factory with the test as its first parameter (``max_attempts``), and
the name of the test is bound to what the factory returns, its inner ``decorator``.
The runner then calls that inner function as the test: for a method, with the test's
instance as its argument. When the inner function's own body never calls its
parameter (it only wraps it, ``functools.wraps(obj)``, checks ``inspect.isclass(obj)``
or sets attributes on it), it returns without running the test's body, and the test
passes whatever it asserts. A test function (no instance) asks pytest for a fixture
named after the parameter and errors on every run instead.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from detlint.readers.python.module_index import Function
from detlint.readers.python.names import literal
from detlint.readers.python.trial_checks import own_nodes
from detlint.readers.python.walk import SCOPES as _NESTED

# The shape of the reading of such a factory: the test never runs.
NEVER_RUNS = "never runs the test"
# What the inner function may hand its parameter to without running it.
_INERT = frozenset(
    {
        "wraps",
        "update_wrapper",
        "isclass",
        "isfunction",
        "ismethod",
        "isinstance",
        "issubclass",
        "callable",
        "getattr",
        "setattr",
        "hasattr",
        "type",
        "id",
        "repr",
        "str",
        "vars",
        "dir",
    }
)


@dataclass(frozen=True)
class BareFactory:
    """The factory's parameter that takes the test, and the inner function left in the
    test's place with the name of its own parameter."""

    taken: str
    inner: str
    parameter: str


def taken_parameter(function: Function) -> str | None:
    """The parameter a decorator factory applied bare (``@is_flaky``, not
    ``@is_flaky()``) takes the test as, when that one defaults to a number: the factory
    was meant to be called (one defaulting to None may be meant for the function)."""
    positional = [*function.args.posonlyargs, *function.args.args]
    if not positional or len(function.args.defaults) != len(positional):
        return None
    default = literal(function.args.defaults[0])
    return positional[0].arg if isinstance(default, int | float) else None


def bare_factory(function: Function) -> BareFactory | None:
    """``function`` applied bare as a factory whose returned inner function never calls
    the argument it is given (the module docstring's case), or None."""
    taken = taken_parameter(function)
    if taken is None:
        return None
    inner = _returned_inner(function)
    if inner is None or len(inner.args.args) != 1 or inner.args.vararg is not None:
        return None
    parameter = inner.args.args[0].arg
    if any(_runs(call, parameter, inner.name) for call in _own_calls(inner)):
        return None
    return BareFactory(taken, inner.name, parameter)


def _returned_inner(function: Function) -> ast.FunctionDef | None:
    """The function defined in ``function``'s body that every ``return`` of it returns."""
    inner = {
        statement.name: statement
        for statement in function.body
        if isinstance(statement, ast.FunctionDef)
    }
    returned = [node.value for node in _own_nodes(function.body) if isinstance(node, ast.Return)]
    if not returned or not all(isinstance(value, ast.Name) for value in returned):
        return None
    names = {value.id for value in returned if isinstance(value, ast.Name)}
    return inner.get(names.pop()) if len(names) == 1 else None


def _own_nodes(body: list[ast.stmt]) -> tuple[ast.AST, ...]:
    """The nodes of ``body``, not those of the functions and classes it defines, nor
    those it defines at its top level (``own_nodes`` walks into those)."""
    return own_nodes([node for node in body if not isinstance(node, _NESTED)])


def _own_calls(inner: ast.FunctionDef) -> Iterator[ast.Call]:
    return (node for node in _own_nodes(inner.body) if isinstance(node, ast.Call))


def _runs(call: ast.Call, parameter: str, inner: str) -> bool:
    """Whether ``call`` may run the argument: calls it, or hands it as it is to a
    function other than an inert one or the inner function itself (a class's methods,
    recursively). What it reads of the argument (``obj.__dict__``) runs nothing."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == parameter:
        return True
    handed = any(
        isinstance(argument, ast.Name) and argument.id == parameter
        for argument in (*call.args, *(keyword.value for keyword in call.keywords))
    )
    if not handed:
        return False
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return name not in _INERT and name != inner
