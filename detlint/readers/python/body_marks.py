"""Knobs code applies while it runs: in a test's body, a fixture it uses, or a hook.

``pytest.skip()``, ``pytest.xfail()``, unittest's ``self.skipTest()`` and
``SkipTest``, and marks added late with ``request.applymarker(...)``,
``request.node.add_marker(...)`` or, in a collection hook, ``item.add_marker(...)``.
Each keeps the guards on the path to it (see ``guards``): real suites put nearly
all of them under an ``if``, and only a call every path reaches applies wherever
the test runs.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from typing import Literal, TypedDict

from detlint.readers.python.check_order import check_order
from detlint.readers.python.facts import Mark, MarkKind, Scope
from detlint.readers.python.fixtures import (
    AUTOUSE,
    FixtureMarksLookup,
    fixtures_of,
    is_autouse,
)
from detlint.readers.python.guards import GuardedWalk, handlers_around
from detlint.readers.python.locations import call_args
from detlint.readers.python.marks import MarkResolver
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted
from detlint.readers.python.prefilter import IMPERATIVE_TOKENS
from detlint.readers.python.retry_libraries import catches_assertion
from detlint.readers.python.trial_checks import TrialChecks

IMPERATIVE: dict[str, MarkKind] = {
    "pytest.xfail": "xfail-call",
    "pytest.skip": "skip-call",
    # Raising unittest's or pytest's skip exception skips as pytest.skip() does.
    "unittest.SkipTest": "skip-call",
    "unittest.case.SkipTest": "skip-call",
    "pytest.skip.Exception": "skip-call",
}
# What marks a test can add to itself as it runs: only the gates, which pytest
# evaluates when it makes the report; a rerun marker added this late may come after
# the plugin read the test's markers (pytest-rerunfailures decides before it runs).
LATE_MARK_KINDS = frozenset({"xfail", "skip", "skipif"})
# Tokens of a module that can hold an imperative knob (a cheap check before the walk).
_TOKENS = tuple(token.decode() for token in IMPERATIVE_TOKENS)
# Fixtures a test names that are pytest's own: they apply no knob.
_BUILTIN_FIXTURES = frozenset({"self", "cls", "request"})


class _Order(TypedDict):
    among_checks: Literal["", "first", "last"]
    checks_before: tuple[int, ...]


def _surely_checks(checks: TrialChecks) -> Callable[[ast.AST], bool]:
    """A check a message names: a bare ``raise`` passes on an error, it checks nothing."""
    return lambda node: (
        checks.checks(node) and not (isinstance(node, ast.Raise) and node.exc is None)
    )


def _has_args(call: ast.Call) -> bool:
    return bool(call.args or call.keywords)


def _caught(function: Function, call: ast.Call, text: Callable[[ast.AST], str]) -> str:
    """The exception types of the ``except`` clauses a skip is reached through, when
    every clause names only exceptions no AssertionError is (``except OSError:``): the
    skip then runs only after such an error left the checks, and hides no assertion
    failure. "" when it is in no clause, or one that is bare, takes ``Exception``,
    ``AssertionError`` or a class detlint cannot tell (``MyError``, ``socket.timeout``)."""
    handlers = handlers_around(function.body, call)
    if not handlers or any(handler.type is None for handler in handlers):
        return ""
    types = [handler.type for handler in handlers if handler.type is not None]
    names = [name for node in types for name in (dotted(item) for item in _listed(node))]
    if not names or any(name is None or name.endswith("failureException") for name in names):
        return ""
    if catches_assertion(name for name in names if name is not None) is not False:
        return ""
    return ", ".join(_written(node, text) for node in types)


def _listed(node: ast.expr) -> list[ast.expr]:
    return list(node.elts) if isinstance(node, ast.Tuple) else [node]


def _written(node: ast.expr, text: Callable[[ast.AST], str]) -> str:
    """An except clause's types as written there, a tuple in its parentheses."""
    code = " ".join(text(node).split())
    return f"({code})" if isinstance(node, ast.Tuple) and not code.startswith("(") else code


class BodyMarks:
    """The knobs the functions of one module apply while they run."""

    def __init__(
        self, index: ModuleIndex, resolver: MarkResolver, fixture_marks: FixtureMarksLookup
    ) -> None:
        self.index = index
        self.resolver = resolver
        self.fixture_marks = fixture_marks
        self.walk = GuardedWalk(index.text, index.original_line, index.constants.truth)
        # Walking every body for calls is the costliest search; most modules have
        # no imperative skip or xfail at all.
        self.any = any(token in index.source for token in _TOKENS)
        self._of_fixture: dict[str, list[Mark]] = {}
        self._fixtures: dict[int, tuple[dict[str, Function], list[str]]] = {}

    def of(self, function: Function, scope: Scope = "body") -> list[Mark]:
        """The skips and xfails in one function's body, each with its guards."""
        marks: list[Mark] = []
        if not self.any or not self.index.is_block(function.body):
            return marks
        # The walk with guards is the costly part; most functions of a module that
        # skips somewhere do not, and their text says so.
        code = self.index.code
        text = code.text[code.start(function) : code.end(function)]
        if not any(token in text for token in _TOKENS):
            return marks
        for call, guards in self.walk.calls(function.body):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in ("applymarker", "add_marker"):
                if _has_args(call):
                    marks += [
                        replace(mark, guards=(*mark.guards, *guards))
                        for mark in self.resolver.resolve(call_args(call)[0].value, scope)
                        if mark.kind in LATE_MARK_KINDS
                    ]
                continue
            if isinstance(func, ast.Attribute) and func.attr == "skipTest":
                kind: MarkKind | None = "skip-call"
                name = f"{dotted(func.value) or 'self'}.skipTest"
            else:
                name = self.resolver.qualify(func) or ""
                kind = IMPERATIVE.get(name)
            if kind is None:
                continue
            span = self.index.span(call)
            marks.append(
                Mark(
                    kind,
                    name,
                    self.resolver.arguments(call),
                    False,
                    span,
                    scope,
                    comment=self.index.comment_on(span.line),
                    guards=guards,
                    **self._order(function, call, scope),
                    caught=_caught(function, call, self.index.text) if kind == "skip-call" else "",
                )
            )
        return marks

    def _order(self, function: Function, call: ast.Call, scope: Scope) -> _Order:
        """Where an imperative skip or xfail stands among the checks of the function it
        is in, in execution order (``check_order``): a check is an ``assert``, a
        ``raise``, an assertion helper, or a call of a function of this module (which
        may assert; the lines a message names are of those that surely check). In a
        fixture the test's own checks all come after it."""
        order = check_order(
            function.body,
            call,
            _surely_checks(TrialChecks(self.index, function)),
            self._may_check,
            self.index.original_line,
        )
        if order is None:
            return {"among_checks": "", "checks_before": ()}
        among: Literal["", "first", "last"] = (
            "first"
            if not order.ran_before
            else "last"
            if not order.after and scope == "body"
            else ""
        )
        return {"among_checks": among, "checks_before": order.failing_before}

    def _may_check(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Raise):
            return node.exc is not None  # a bare `raise` passes on an error: no check
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        name = (
            func.attr
            if isinstance(func, ast.Attribute)
            else func.id
            if isinstance(func, ast.Name)
            else ""
        )
        if name.startswith(("assert", "fail")):
            return True
        return isinstance(func, ast.Name) and name in self.index.functions

    def of_fixtures(self, function: Function, class_node: ast.ClassDef | None) -> list[Mark]:
        """Skips and xfails in the fixtures a test uses: those it names and the
        autouse ones of its module and class, here or in a conftest.py."""
        arguments = function.args
        names = [arg.arg for arg in (*arguments.posonlyargs, *arguments.args)]
        names += [arg.arg for arg in arguments.kwonlyargs]
        local, autouse = self._local_fixtures(class_node)
        marks: list[Mark] = []
        seen: set[str] = set()
        for name in [*names, *autouse]:
            if name in seen or name in _BUILTIN_FIXTURES:
                continue
            seen.add(name)
            fixture = local.get(name)
            if fixture is not None:
                marks += self.of_fixture(name, fixture)
            else:
                marks += self.fixture_marks(name)
        marks += self.fixture_marks(AUTOUSE)
        return marks

    def _local_fixtures(
        self, class_node: ast.ClassDef | None
    ) -> tuple[dict[str, Function], list[str]]:
        """The fixtures of the module (and class), and the autouse ones among them:
        the same for every test of a class, so worked out once per class."""
        key = id(class_node)
        found = self._fixtures.get(key)
        if found is None:
            local = dict(fixtures_of(self.index, class_node))
            autouse = [name for name, fixture in local.items() if is_autouse(self.index, fixture)]
            found = self._fixtures[key] = (local, autouse)
        return found

    def of_fixture(self, name: str, fixture: Function) -> list[Mark]:
        """The skips and xfails one fixture applies to every test that uses it."""
        found = self._of_fixture.get(name)
        if found is None:
            found = self._of_fixture[name] = [
                replace(mark, via=(f"fixture {name}", *mark.via))
                for mark in self.of(fixture, "fixture")
            ]
        return found

    def in_hooks(self) -> list[Mark]:
        """Marks added by ``item.add_marker(...)`` in pytest's hooks (``pytest_*``
        functions, in conftest.py or a plugin): they reach the tests the hook picks, so
        each keeps the guards on its path and names the hook it is in."""
        marks: list[Mark] = []
        if "add_marker" not in self.index.source:
            return marks
        for name, function in self.index.functions.items():
            if not name.startswith("pytest_") or not self.index.is_block(function.body):
                continue
            for call, guards in self.walk.calls(function.body):
                func = call.func
                if not (
                    isinstance(func, ast.Attribute)
                    and func.attr == "add_marker"
                    and _has_args(call)
                ):
                    continue
                # A hook loops over the items it marks: the loop is no condition.
                chosen = tuple(g for g in guards if not g.startswith("inside `for "))
                marks += [
                    replace(mark, via=(f"hook {name}", *mark.via), guards=(*mark.guards, *chosen))
                    for mark in self.resolver.resolve(call_args(call)[0].value, "hook")
                ]
        return marks
