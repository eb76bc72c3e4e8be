"""What a name of a module stands for as marks, to a module that imports it.

``from tests.helpers import skip_on_win`` then ``@skip_on_win`` (or
``@parametrize_impl``, any mark at all): the helper's assignment (an alias), its
function (a wrapper or a mark factory), or each of its definitions in the branches
of an ``if`` (``skip_on_win = pytest.mark.skip(...)`` on Windows, ``lambda f: f``
elsewhere), under its branch's guard.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from detlint.readers.python.facts import Mark
from detlint.readers.python.marks import MarkResolver
from detlint.readers.python.module_index import Function


def marks_named(resolver: MarkResolver, name: str) -> list[Mark]:
    """The marks ``name`` of the resolver's module stands for. A name defined in several
    branches stands for each branch's marks under its guard; one defined in a single
    branch makes an importer fail where it is missing, so its marks apply wherever a
    test that uses it runs."""
    if name == "pytestmark":
        return []
    index = resolver.index
    alternatives = index.alternatives.get(name, [])
    if len(alternatives) > 1:
        return [
            replace(mark, guards=(*mark.guards, guard))
            for value, guard in alternatives
            for mark in _defined_marks(resolver, name, value)
        ]
    defined: ast.expr | Function | None = index.assignments.get(name)
    if defined is None:
        defined = index.functions.get(name)
    return [] if defined is None else _defined_marks(resolver, name, defined)


def _defined_marks(resolver: MarkResolver, name: str, value: ast.expr | Function) -> list[Mark]:
    if isinstance(value, ast.expr):
        return resolver.applied(value, "function")
    if value.decorator_list or name.startswith("test"):
        return []
    return resolver.factory_marks(value, "function", resolver.index.name_span(value))
