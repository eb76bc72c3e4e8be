"""Checks a test makes at setup, in a fixture it requests, rather than in its body.

A rerun plugin replays what it reruns: pytest-rerunfailures and flaky rerun a failed
setup, but pytest-retry 1.7.0 retries the call phase only, so a violation a fixture
raises on the first attempt is reported at once (measured: a fixture that always
fails ran once under ``flaky(retries=2)``). Which tests carry such checks, and whether
their body checks anything besides, is read here.

Read: the fixtures the test names as arguments, those ``usefixtures`` applies, and
the autouse fixtures of its module and class, where the module or class defines them;
a fixture it requests that neither defines is looked up in the conftest.py files that
reach it, nearest first (``checking_conftests``). Not read: autouse fixtures of a
conftest.py, fixtures of other modules and fixtures a fixture requests (a test using
one is taken as checking in its body alone), and checks in helpers a fixture calls.

A function-scoped fixture runs again on each attempt of a plugin that reruns setup, so
its trial loop is the trial loop of a test whose body checks nothing (pytest-retry
retries no setup: its layer is dropped for such a test, and the loop's trials are
those of its one attempt). A test whose body checks too keeps its body's trial count:
the trials then add up under the plugins that rerun setup but not under pytest-retry.
"""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from collections.abc import Callable, Sequence

from detlint.readers.python.checking_conftests import ConftestFixture
from detlint.readers.python.facts import SetupChecks, TrialCount
from detlint.readers.python.fixtures import FIXTURE_DECORATORS, fixtures_of, is_autouse
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.trials import TrialResolver

_FAIL_CALLS = frozenset({"pytest.fail"})


def setup_checks(
    trials: TrialResolver,
    function: Function,
    lineage: Sequence[ast.ClassDef],
    used: Sequence[str],
    conftest: Callable[[str], ConftestFixture | None],
) -> SetupChecks | None:
    """The first fixture the test requests that can fail a check, with whether the body
    can fail too and the fixture's trial loop; None when no such fixture is found.
    ``lineage``: the test's class and its bases of this module, closest first (a class's
    own fixture hides a base's, and both the module's); ``used``: the fixtures
    ``usefixtures`` requests; ``trials``: the trial reader of the test's module;
    ``conftest``: the conftest.py definition of a fixture the module does not define."""
    index = trials.index
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
        found = None
        if fixture is not None:
            found = ConftestFixture(index, fixture, trials)
        else:  # the module's text is searched only for a name a conftest.py can check in
            found = conftest(name)
            found = None if found is None or _defines(index, name) else found
        if found is not None and _checks(found.index, found.function.body):
            body = _body_can_fail(_original_body(index, function))
            span = found.index.name_span(found.function)
            return SetupChecks(name, span, body, _fixture_trials(found))
    return None


def test_trials(trials: TrialCount, checks: SetupChecks | None, path: str) -> TrialCount:
    """A test's trial count: its body's, or the trial loop of the fixture that makes
    its checks when the body checks nothing and has no trial loop (named with the
    fixture, and its file when that is not the test's, ``path``)."""
    if checks is None or checks.body or checks.trials is None:
        return trials
    if trials.span is not None or trials.uncounted is not None:
        return trials
    where = f" of {checks.span.path}" if checks.span.path != path else ""
    origin = f"{checks.trials.origin} in fixture `{checks.fixture}`{where}"
    return dataclasses.replace(checks.trials, origin=origin)


def _defines(index: ModuleIndex, name: str) -> bool:
    """Whether the module's text defines a function ``name``: one a narrowed parse left
    out (it checks nothing) still hides a conftest.py fixture of that name."""
    return name in index.defined_names


def _fixture_trials(found: ConftestFixture) -> TrialCount | None:
    """The trial loop of a function-scoped fixture (one of a wider scope runs once for
    many tests and attempts, and is not claimed); None without one."""
    if _wider_scope(found.index, found.function):
        return None
    count = found.trials.trials_of(found.function)
    return count if count.span is not None and count.uncounted is None else None


def _wider_scope(index: ModuleIndex, function: Function) -> bool:
    """Whether the fixture decorator names a scope other than ``function``."""
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and index.imports.qualify(decorator.func) in (
            FIXTURE_DECORATORS
        ):
            for keyword in decorator.keywords:
                if keyword.arg == "scope":
                    value = keyword.value
                    return not (isinstance(value, ast.Constant) and value.value == "function")
    return False


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
