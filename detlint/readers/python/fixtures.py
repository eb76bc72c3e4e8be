"""Fixtures, as the Python pass reads them: which functions are fixtures, which
run for every test (``autouse``), and how the marks a fixture applies are looked up.

A fixture that calls ``pytest.skip()`` skips every test that uses it, and an
autouse one every test in its scope: where that happens only under a condition
(``if not cuda_available():``), it is another environment of those tests.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from detlint.readers.python.facts import Mark
from detlint.readers.python.module_index import Function, ModuleIndex

FIXTURE_DECORATORS = ("pytest.fixture", "pytest_asyncio.fixture")
# The name a fixture lookup is asked for to get the autouse fixtures' marks.
AUTOUSE = "<autouse>"
# fixture name (or AUTOUSE) -> the skips and xfails it applies, from conftest files.
FixtureMarksLookup = Callable[[str], tuple[Mark, ...]]


def no_fixture_marks(name: str) -> tuple[Mark, ...]:
    return ()


def is_fixture(index: ModuleIndex, function: Function) -> bool:
    for decorator in function.decorator_list:
        target = decorator
        if isinstance(target, ast.Call):
            target = target.func
        if index.imports.qualify(target) in FIXTURE_DECORATORS:
            return True
    return False


def is_autouse(index: ModuleIndex, function: Function) -> bool:
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and index.imports.qualify(decorator.func) in (
            FIXTURE_DECORATORS
        ):
            for keyword in decorator.keywords:
                if keyword.arg == "autouse" and isinstance(keyword.value, ast.Constant):
                    return bool(keyword.value.value)
    return False


def fixtures_of(index: ModuleIndex, class_node: ast.ClassDef | None) -> list[tuple[str, Function]]:
    """The fixtures a test of this module (and class) can use without a conftest.py."""
    if index.fixtures is None:
        index.fixtures = [(n, f) for n, f in index.functions.items() if is_fixture(index, f)]
    found = list(index.fixtures)
    if class_node is not None:
        found += [
            (statement.name, statement)
            for statement in class_node.body
            if isinstance(statement, Function) and is_fixture(index, statement)
        ]
    return found


def used_fixtures(marks: Iterable[Mark]) -> list[str]:
    """Fixture names the ``usefixtures`` marks among ``marks`` request
    (``@pytest.mark.usefixtures("seeded")``, or an alias of it)."""
    return [
        value
        for mark in marks
        if mark.kind == "marker" and mark.name == "usefixtures"
        for value in mark.positional()
        if isinstance(value, str)
    ]
