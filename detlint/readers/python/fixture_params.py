"""How many instances the parametrized fixtures a test requests make of it.

Pytest runs a test once for every combination of the params of the fixtures in its
closure (``@pytest.fixture(params=["synthetic", "constant"])``): the autouse ones that
reach it, those its arguments and ``usefixtures`` marks name, and those these
fixtures request in turn (a conftest.py's ``pytest_plugins`` modules of the repository
included). A name is
looked up as pytest does, from the test whoever requests it: the test's classes, its
module, then the conftest.py files that reach it, nearest first (a conftest fixture
gets the module's override of a name it requests). A name counts once, with the
params of its nearest definition, or of the one further out that an override without
params requests by its own name; a name the test's parametrize gives values to is no
fixture's. Params detlint cannot count (a call, a comprehension) leave the instances
unknown; a fixture it cannot see (a third-party plugin's) is taken to have none, unless
the module or class defines a parametrized fixture the test does not otherwise reach
(the plugin's fixture may request it; pytest's own and a few plugins' known to request
none of a project's cannot). Where nothing in the module requests that fixture, it is
there for a plugin's fixture to request, so the test is parametrized by a count
unknown; where the module's own fixtures or tests request it, the plugin's fixture
only may, and the count is a lower bound. So is it where a conftest.py that reaches
the test cannot be read (syntax of a newer Python): its fixtures may have params.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from detlint.readers.python.fixtures import FIXTURE_DECORATORS, is_autouse
from detlint.readers.python.hook_params import HookTable, hook_tables
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.parametrize import count_values

if TYPE_CHECKING:
    from detlint.readers.python.checking_conftests import ConftestFixture

# (scope, module, fixture): scope 0 is the nearest conftest.py that reaches a module.
Definition = tuple[int, ModuleIndex, Function]
# Fixtures of pytest itself, which request none of a project's.
BUILTIN_FIXTURES = frozenset(
    {
        "request",
        "tmp_path",
        "tmp_path_factory",
        "tmpdir",
        "tmpdir_factory",
        "monkeypatch",
        "capsys",
        "capsysbinary",
        "capfd",
        "capfdbinary",
        "caplog",
        "recwarn",
        "pytestconfig",
        "record_property",
        "record_xml_attribute",
        "record_testsuite_property",
        "cache",
        "doctest_namespace",
        "subtests",
        "pytester",
        "testdir",
    }
)
# Fixtures of widely used plugins that request only pytest's own (pytest-mock's
# `mocker` family requests `pytestconfig`, syrupy's `snapshot` `request`): a test
# that requests one gets none of the module's parametrized fixtures through it.
PLUGIN_FIXTURES = frozenset(
    {"mocker", "class_mocker", "module_mocker", "package_mocker", "session_mocker", "snapshot"}
)
# The fixtures one scope defines: a class (with its bases) or a module, by name.
Scope = dict[str, tuple[ModuleIndex, Function]]
# The instances fixtures make of a test (None: uncounted), and whether that is a lower
# bound (fixtures detlint cannot read may parametrize the test further).
Factor = tuple[int | None, bool]


class ConftestFixtures(Protocol):
    """The fixtures of the conftest.py files that reach a module. They are read only
    where one of them can have params, or ``always`` (the module's own fixtures have
    some, which a conftest fixture may request)."""

    def definitions(self, name: str, always: bool) -> tuple[Definition, ...]:
        """The definitions of fixture ``name``, nearest first."""
        ...

    def autouse(self, always: bool) -> tuple[str, ...]:
        """The names of the autouse fixtures."""
        ...

    def hooks(self, always: bool) -> tuple[HookTable, ...]:
        """What their ``pytest_generate_tests`` hooks parametrize."""
        ...

    def checking(self, name: str) -> ConftestFixture | None:
        """The definition of fixture ``name`` a test gets, when it can fail a check."""
        ...

    def unread(self, always: bool) -> bool:
        """Whether one of them (or a ``pytest_plugins`` module they name) cannot be read."""
        ...


class NoConftests:
    """A module no conftest.py reaches."""

    def definitions(self, name: str, always: bool) -> tuple[Definition, ...]:
        return ()

    def autouse(self, always: bool) -> tuple[str, ...]:
        return ()

    def hooks(self, always: bool) -> tuple[HookTable, ...]:
        return ()

    def checking(self, name: str) -> ConftestFixture | None:
        return None

    def unread(self, always: bool) -> bool:
        return False


no_conftest_fixtures = NoConftests()


def _fixture_call(index: ModuleIndex, function: Function) -> ast.expr | None:
    """The fixture decorator of a function (a call when it has arguments), if any."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if index.imports.qualify(target) in FIXTURE_DECORATORS:
            return decorator
    return None


def _keyword(decorator: ast.expr, name: str) -> ast.expr | None:
    if isinstance(decorator, ast.Call):
        for keyword in decorator.keywords:
            if keyword.arg == name:
                return keyword.value
    return None


def fixture_scope(index: ModuleIndex, functions: Sequence[Function]) -> Scope:
    """The fixtures among ``functions``, by the name pytest knows them by (``name=``)."""
    found: Scope = {}
    for function in functions:
        decorator = _fixture_call(index, function)
        if decorator is None:
            continue
        alias = _keyword(decorator, "name")
        name = alias.value if isinstance(alias, ast.Constant) else function.name
        if isinstance(name, str):
            found.setdefault(name, (index, function))
    return found


def params_size(index: ModuleIndex, function: Function) -> int | None:
    """How many instances a fixture makes: 1 without ``params``, None where uncounted."""
    decorator = _fixture_call(index, function)
    params = _keyword(decorator, "params") if decorator is not None else None
    return 1 if params is None else count_values(index, params)


def requested(function: Function, method: bool) -> Iterator[str]:
    """The fixture names a function's arguments request (a method's first is ``self``;
    an argument with a default is no fixture)."""
    arguments = [*function.args.posonlyargs, *function.args.args]
    positional = len(arguments) - len(function.args.defaults)
    static = any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list
    )
    start = 1 if method and not static else 0
    for argument in arguments[start:positional]:
        yield argument.arg
    defaults = function.args.kw_defaults
    for argument, default in zip(function.args.kwonlyargs, defaults, strict=True):
        if default is None:
            yield argument.arg


class FixtureParams:
    """The instances parametrized fixtures make of the tests of one module."""

    def __init__(self, index: ModuleIndex, conftests: ConftestFixtures) -> None:
        self.module = fixture_scope(index, list(index.functions.values()))
        self.conftests = conftests
        self.has_params = _any_params(self.module)
        self.hooks = hook_tables(index)
        self.index = index
        self._requested: frozenset[str] | None = None

    def factor(
        self,
        names: Sequence[str],
        classes: Sequence[Scope],
        given: frozenset[str] | None,
        marked: frozenset[str] = frozenset(),
    ) -> Factor:
        """The product of the params of the fixtures ``names`` close over, for a test of
        ``classes`` (innermost first) whose parametrize gives values to ``given`` (None:
        names detlint cannot read). As in pytest, a name counts once, with the params of
        its nearest definition that has any, found through definitions that request
        their own name; the names the nearest requests join the closure. ``marked``: the
        names of the test's marks, for the hooks that parametrize only tests marked so;
        with whether it is a lower bound."""
        scopes = [*classes, self.module]
        always = self.has_params or any(_any_params(scope) for scope in classes)
        total: int | None = 1
        seen: set[str] = set()
        unseen = False
        pending = [*names, *self.conftests.autouse(always)]
        pending += [n for scope in scopes for n, f in scope.items() if is_autouse(*f)]
        while pending:
            name = pending.pop()
            if name in seen or (given is not None and name in given):
                continue
            seen.add(name)
            nearest = self._resolve(name, scopes, 0, always)
            if nearest is None:
                unseen = unseen or name not in BUILTIN_FIXTURES | PLUGIN_FIXTURES
                continue
            size = self._size(name, scopes, nearest)
            if size != 1 and given is None:
                return None, False
            total = None if size is None or total is None else total * size
            pending += requested(nearest[2], nearest[0] < len(classes))
        # A plugin's fixture detlint cannot see may request a parametrized one of the
        # module's the test does not otherwise reach: jupyter_server's `jp_fetch` requests
        # `jp_argv`, which nothing in the test module requests (it is there for that).
        reachable = [
            name
            for scope in scopes
            for name, definition in scope.items()
            if name not in seen and params_size(*definition) != 1
        ]
        if unseen and any(name not in self._requested_here() for name in reachable):
            return None, False
        hooks = (*self.hooks, *self.conftests.hooks(always))
        total = _through_hooks(total, seen, [h for h in hooks if h.marker in (None, *marked)])
        return total, (unseen and bool(reachable)) or self.conftests.unread(always)

    def _requested_here(self) -> frozenset[str]:
        if self._requested is None:
            self._requested = _requested_anywhere(self.index)
        return self._requested

    def _size(self, name: str, scopes: Sequence[Scope], nearest: Definition) -> int | None:
        """The params of the nearest definition of ``name`` that has any, through the
        definitions that request their own name (an override that passes the value on)."""
        found: Definition | None = nearest
        while found is not None:
            level, index, function = found
            size = params_size(index, function)
            if size != 1 or name not in requested(function, level < len(scopes) - 1):
                return size
            found = self._resolve(name, scopes, level + 1, True)
        return 1

    def _resolve(
        self, name: str, scopes: Sequence[Scope], start: int, always: bool
    ) -> Definition | None:
        """The definition of ``name`` the test sees from scope ``start`` (0, or the scope
        past a fixture that requests its own name): scopes are numbered from the
        innermost class out, the conftest.py files after the module."""
        for level in range(start, len(scopes)):
            found = scopes[level].get(name)
            if found is not None:
                return (level, *found)
        for level, index, function in self.conftests.definitions(name, always):
            if level + len(scopes) >= start:
                return level + len(scopes), index, function
        return None


def _through_hooks(total: int | None, closure: set[str], hooks: Sequence[HookTable]) -> int | None:
    """``total`` times the values ``pytest_generate_tests`` hooks give the names of a
    test's closure: unknown where one gives a table detlint cannot count, or names it
    cannot read (which may be any test's)."""
    for table in hooks:
        if table.names is not None and closure.isdisjoint(table.names):
            continue
        if table.names is None or table.size is None or total is None:
            return None
        total *= table.size
    return total


def _requested_anywhere(index: ModuleIndex) -> frozenset[str]:
    """The names any function of the module requests as arguments (its tests', its
    fixtures', its classes' methods'): a fixture none requests serves a plugin's."""
    return frozenset(
        argument.arg
        for node in ast.walk(index.module)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for argument in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
    )


def _any_params(scope: Scope) -> bool:
    return any(params_size(index, function) != 1 for index, function in scope.values())
