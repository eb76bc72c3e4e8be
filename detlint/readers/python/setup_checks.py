"""Checks a test makes at setup, in a fixture it requests, rather than in its body.

A rerun plugin replays what it reruns: pytest-rerunfailures and flaky rerun a failed
setup, but pytest-retry 1.7.0 retries the call phase only, so a violation a fixture
raises on the first attempt is reported at once (measured: a fixture that always
fails ran once under ``flaky(retries=2)``). Which tests carry such checks, and whether
their body checks anything besides, is read here.

Read: the fixtures the test names as arguments, those ``usefixtures`` applies, and
the autouse fixtures of its module and class, where the module or class defines them.
Not read: conftest.py fixtures and fixtures of other modules (a test using one is
taken as checking in its body alone), and checks in helpers a fixture calls.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence

from detlint.readers.python.facts import SetupChecks
from detlint.readers.python.fixtures import fixtures_of, is_autouse
from detlint.readers.python.module_index import Function, ModuleIndex

_FAIL_CALLS = frozenset({"pytest.fail"})


def setup_checks(
    index: ModuleIndex,
    function: Function,
    lineage: Sequence[ast.ClassDef],
    used: Sequence[str],
) -> SetupChecks | None:
    """The first fixture of the test's module or classes that can fail a check, with
    whether the body can fail too; None when no such fixture is found. ``lineage``: the
    test's class and its bases of this module, closest first (a class's own fixture hides
    a base's, and both the module's); ``used``: the fixtures ``usefixtures`` requests."""
    fixtures = dict(fixtures_of(index, None))
    for klass in reversed(lineage):
        fixtures.update((n, f) for n, f in fixtures_of(index, klass) if f in klass.body)
    arguments = function.args
    names = [
        *(name for name, fixture in fixtures.items() if is_autouse(index, fixture)),
        *(arg.arg for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)),
        *used,
    ]
    for name in dict.fromkeys(names):
        fixture = fixtures.get(name)
        if fixture is not None and _checks(index, fixture.body):
            return SetupChecks(
                name, index.name_span(fixture), _body_can_fail(_original_body(index, function))
            )
    return None


def _checks(index: ModuleIndex, body: Sequence[ast.stmt]) -> bool:
    """Whether a fixture's code fails a check somewhere: an ``assert``, a ``raise`` or
    ``pytest.fail`` (a call into other code may fail too; it is not claimed)."""
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Assert | ast.Raise):
                return True
            if isinstance(node, ast.Call) and index.imports.qualify(node.func) in _FAIL_CALLS:
                return True
    return False


def _original_body(index: ModuleIndex, function: Function) -> Sequence[ast.stmt]:
    """The test's body as the file writes it. A narrowed parse stubs a body nothing else
    reads with ``pass`` (``body_stubs``), so a lone ``pass`` is read again from the whole
    file; a body that cannot be cut out cleanly counts as one that may fail."""
    body = function.body
    narrowed = index.narrowed
    if narrowed is None or len(body) != 1 or not isinstance(body[0], ast.Pass):
        return body
    lines = index.source.splitlines()
    start = narrowed.original_line(function.lineno) - 1
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines):
        line = lines[end]
        stripped = line.strip()
        if stripped and len(line) - len(stripped) <= indent and stripped[0] not in ")]":
            break
        end += 1
    try:
        tree = ast.parse(textwrap.dedent("\n".join(lines[start:end])))
    except SyntaxError:
        return [ast.Expr(ast.Name("unknown"))]
    first = tree.body[0] if tree.body else None
    return first.body if isinstance(first, Function) else [ast.Expr(ast.Name("unknown"))]


def _body_can_fail(body: Sequence[ast.stmt]) -> bool:
    """Whether a test's body may fail: anything but ``pass``, a docstring or ``...``
    (any call it makes may raise)."""
    return any(
        not isinstance(statement, ast.Pass)
        and not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))
        for statement in body
    )
