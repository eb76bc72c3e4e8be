"""Skips a test module applies to itself from its top level, as pytest imports it.

``pytest.skip("flaky on macOS", allow_module_level=True)`` or ``raise unittest.SkipTest(
"...")`` written at the top level (or in a top-level ``if``/``try``/``with`` block) ends the
import: pytest reports the module as skipped and runs none of its tests, wherever they are
written in the file. Such a statement is a skip of every test the module holds, read as a
``pytestmark = pytest.mark.skip(...)`` is, with the guards on the path to it (the ``if``
around it, the ``not`` of it in an ``else``, an ``except ImportError:`` clause).

``pytest.skip()`` (and raising ``pytest.skip.Exception``) without ``allow_module_level=True``
is no skip: pytest turns it into a collection error, which fails the run visibly.
``pytest.importorskip()`` skips for a missing dependency and is no knob at all.
"""

from __future__ import annotations

import ast

from detlint.readers.python.body_marks import IMPERATIVE
from detlint.readers.python.facts import Mark
from detlint.readers.python.guards import GuardedWalk
from detlint.readers.python.marks import MarkResolver
from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.walk import SCOPES

# What a module that can skip itself holds (a cheap check before the walk).
_TOKENS = ("allow_module_level", "SkipTest")
# Names that raise pytest's skip outcome: a collection error without allow_module_level.
_PYTEST_SKIPS = frozenset({"pytest.skip", "pytest.skip.Exception"})
# The guard a statement that can end the import puts on what follows it (``guards`` words
# it for a test body).
_PAST_TEST = "the test gets past line"
_PAST_MODULE = "the module's import gets past line"


def module_skips(index: ModuleIndex, resolver: MarkResolver) -> list[Mark]:
    """The skips the top level of a module applies to all its tests, with their guards."""
    if not any(token in index.source for token in _TOKENS):
        return []
    raised = {id(node.exc) for node in _top_level(index.module.body) if isinstance(node, ast.Raise)}
    walk = GuardedWalk(index.text, index.original_line, lambda test: _known(index, test))
    marks: list[Mark] = []
    for call, guards in walk.calls(index.module.body):
        name = resolver.qualify(call.func) or ""
        if IMPERATIVE.get(name) != "skip-call":
            continue
        if name != "pytest.skip" and id(call) not in raised:
            continue  # an exception class is a skip only where it is raised
        span = index.span(call)
        mark = Mark(
            "skip-call",
            name,
            resolver.arguments(call),
            False,
            span,
            "module",
            comment=index.comment_on(span.line),
            guards=tuple(guard.replace(_PAST_TEST, _PAST_MODULE) for guard in guards),
        )
        if name in _PYTEST_SKIPS and mark.keyword("allow_module_level") is not True:
            continue  # pytest reports a collection error: the run fails where it is reached
        marks.append(mark)
    return marks


def _known(index: ModuleIndex, test: ast.expr) -> bool | None:
    """Whether a top-level condition holds under pytest: ``__name__ == "__main__"`` never
    does (pytest imports the module); otherwise where the module's constants decide it."""
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    ):
        return False
    return index.constants.truth(test)


def _top_level(body: list[ast.stmt]) -> list[ast.AST]:
    """The nodes the import runs, outside functions and classes."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, SCOPES):
            continue
        found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found
