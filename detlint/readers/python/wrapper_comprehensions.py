"""Comprehensions in a decorator's code, read over the values they iterate.

A retry decorator often derives what it catches from its arguments:
``retriable = {error for error in errors if not isinstance(error, ErrorCondition)}``
then ``except tuple(retriable)``, or ``any(isinstance(e, error) for error in errors)``
in the handler. With ``errors`` known at the call (``errors=[URLError]``) the
comprehension is a tuple of those values, and the except clause names them. One whose
iterable or condition is code not evaluated is that code (``Unknown``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Protocol

from detlint.readers.python.wrapper_values import Scope, Unknown, Value


class Reader(Protocol):
    """What a comprehension is read with: the expression reader's values and text."""

    def value(self, expression: ast.expr, scope: Scope) -> Value: ...

    def text(self, node: ast.AST) -> str: ...


Comprehension = ast.ListComp | ast.SetComp | ast.GeneratorExp

# More items than a decorator's own lists hold: the read gives up on such a loop.
_MOST_ITEMS = 1000


def comprehension(
    reader: Reader,
    expression: Comprehension,
    scope: Scope,
    truth: Callable[[Value], bool | None],
) -> Value:
    """The items a one-clause comprehension over a known tuple yields, in order (a set's
    order does not matter to what is read from it: membership, truth, length);
    ``truth`` is the reader's ``bool()``."""
    unread = Unknown(reader.text(expression))
    if len(expression.generators) != 1:
        return unread
    clause = expression.generators[0]
    if clause.is_async or not isinstance(clause.target, ast.Name):
        return unread
    items = reader.value(clause.iter, scope)
    if not isinstance(items, tuple) or len(items) > _MOST_ITEMS:
        return unread
    found: list[Value] = []
    inner = Scope(parent=scope)
    for item in items:
        inner.names[clause.target.id] = item
        kept = [truth(reader.value(condition, inner)) for condition in clause.ifs]
        if None in kept:
            return unread
        if all(kept):
            found.append(reader.value(expression.elt, inner))
    return tuple(found)
