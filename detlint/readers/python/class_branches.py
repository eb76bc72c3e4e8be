"""The ``if`` branches a module's classes are defined in.

A suite defines the classes that run a mixin's tests per platform (``if
sys.platform != 'win32': class EPollTests(Mixin, TestCase)`` and, under ``else:``,
``class ProactorTests(Mixin, TestCase)``): a class exists only where its branch's
conditions hold, so a knob whose own condition rules them out reaches none of its
tests. The conditions are kept as code; the rules decide them against the knob's.
"""

from __future__ import annotations

import ast

from detlint.readers.python.facts import Branch
from detlint.readers.python.module_index import ModuleIndex


def class_branches(index: ModuleIndex) -> dict[int, tuple[Branch, ...]]:
    """The branches each class of the module's top level is defined in (by ``id`` of
    its node); a class defined outside any ``if`` is not listed. The body of a
    ``try:`` or ``with`` is taken to run, as the index reads it."""
    found: dict[int, tuple[Branch, ...]] = {}
    _walk(index, index.module.body, (), found)
    return found


def _walk(
    index: ModuleIndex,
    body: list[ast.stmt],
    outer: tuple[Branch, ...],
    found: dict[int, tuple[Branch, ...]],
) -> None:
    for statement in body:
        if isinstance(statement, ast.ClassDef):
            if outer:
                found[id(statement)] = outer
        elif isinstance(statement, ast.If):
            known = index.constants.truth(statement.test)
            code = index.text(statement.test)
            if known is not False:
                inner = outer if known else (*outer, Branch(code, True))
                _walk(index, statement.body, inner, found)
            if known is not True:
                inner = outer if known is False else (*outer, Branch(code, False))
                _walk(index, statement.orelse, inner, found)
        elif isinstance(statement, ast.Try):
            for block in (statement.body, *(h.body for h in statement.handlers)):
                _walk(index, block, outer, found)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            _walk(index, statement.body, outer, found)
