"""Tests whose attempts replay the same draw: a fixed seed, or a recording.

A rerun is worth something only when it can draw differently from the attempt
before it. A test that sets a random seed to a fixed value before the code under
test runs (``torch.manual_seed(0)``, ``np.random.default_rng(42)`` as its source,
``seed_everything(42)``), directly, in a helper it calls first, in ``setUp`` or in
a function-scoped fixture it uses (an autouse one of its module, class or a
conftest.py too), draws the same values on every attempt; so does a test that
plays back recorded responses (``@pytest.mark.vcr``, ``vcr.use_cassette``, a
betamax session). Measured with pytest-rerunfailures 16.7, flaky 3.8.1 and
pytest-retry 1.7.0: a function-scoped fixture is set up again for every rerun,
so its seed replays; a module- or session-scoped one is not (under the first
two), so its generator moves on and is not claimed here.

What is not a replay, and not claimed: a seed from the clock, ``os.urandom``, a
parameter or anything but a literal (or a module constant bound to one); a seed
set after other code ran (which may already have drawn); a seed inside a loop or
a branch (``for i in range(T): torch.manual_seed(i)`` varies per trial); a
cassette recorded anew (``record_mode="all"``). Only the leading statements of a
body are read, and only calls that cannot have drawn yet may come before the
seed: imports, assignments of literals, pytest's own calls and skip guards.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from detlint.readers.python.applied_marks import NO_MARKS, Applied
from detlint.readers.python.facts import Replay, ReplayKind, ReplayReach
from detlint.readers.python.fixtures import (
    AUTOUSE,
    FIXTURE_DECORATORS,
    fixtures_of,
    is_autouse,
    is_fixture,
)
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted, literal
from detlint.readers.python.seed_statements import (
    RECORDING_FIXTURES,
    RECORDING_MARKS,
    SEED_CALLS,
    SEED_NAMES,
    called,
    harmless,
    int_literal,
    note_literals,
    parameters,
    records_anew,
    seed_argument,
)

# fixture name (or AUTOUSE) -> what a conftest.py fixture of that name replays.
FixtureReplayLookup = Callable[[str], Replay | None]

# Methods pytest or unittest call before each test, as a function-scoped fixture does.
_SETUP_METHODS = ("setUp", "setup_method")
# Fixtures a plugin gives every test, seeded from the test's id alone (and a salt that a
# run sets once): pytest-rng 1.0's `rng` (a RandomState) and `seed` (an int).
PLUGIN_FIXTURES = {"rng": "pytest-rng", "seed": "pytest-rng"}
# How deep a chain of helpers called first is followed.
_HELPER_DEPTH = 2


def no_fixture_replay(name: str) -> Replay | None:
    return None


def no_fixture_defined(name: str) -> bool:
    return False


class ReplayFinder:
    """What the tests of one module replay, from their own code and their fixtures."""

    def __init__(
        self,
        index: ModuleIndex,
        conftest: FixtureReplayLookup,
        conftest_defines: Callable[[str], bool] = no_fixture_defined,
    ) -> None:
        self.index = index
        self.conftest = conftest
        self.conftest_defines = conftest_defines
        self._fixtures: dict[int, Replay | None] = {}

    def of_test(
        self,
        function: Function,
        classes: Sequence[ast.ClassDef],
        lineage: Sequence[ast.ClassDef],
        own: Applied = NO_MARKS,
    ) -> Replay | None:
        """The first thing that fixes what the test draws, in the order pytest sets it up:
        marks, then fixtures (autouse ones first), then ``setUp``, then its body. ``own``:
        what the test's decorators apply (the fixtures ``usefixtures`` requests, the
        arguments ``parametrize`` gives values to)."""
        decorators = [
            *function.decorator_list,
            *(d for klass in lineage for d in klass.decorator_list),
        ]
        found = self._recording_mark(decorators, self._module_marks(), "setup")
        if found is not None:
            return found
        class_node = classes[-1] if classes else None
        for name in self._fixture_names(function, class_node, own):
            found = self._fixture(name, class_node, function)
            if found is not None:
                return found
        for klass in lineage:
            for statement in klass.body:
                if isinstance(statement, Function) and statement.name in _SETUP_METHODS:
                    found = self.leading(statement, f"in `{statement.name}`", "setup")
                    if found is not None:
                        return found
        setup = self.index.functions.get("setup_function")
        if not classes and setup is not None:
            found = self.leading(setup, "in `setup_function`", "setup")
            if found is not None:
                return found
        return self.leading(function, "", "body")

    def of_fixture(self, name: str, fixture: Function) -> Replay | None:
        """What a function-scoped fixture replays for every test that uses it."""
        key = id(fixture)
        if key not in self._fixtures:
            found = None
            if _function_scoped(self.index, fixture):
                autouse = "autouse " if is_autouse(self.index, fixture) else ""
                via = f"in {autouse}fixture `{name}`"
                found = self.leading(fixture, via, "setup")
            self._fixtures[key] = found
        return self._fixtures[key]

    def autouse(self) -> Replay | None:
        """What the module's autouse fixtures replay (a conftest.py's, for the files it
        reaches); the same for every test of the module, so found once."""
        return self._autouse

    @functools.cached_property
    def _autouse(self) -> Replay | None:
        for name, function in self.index.functions.items():
            if is_fixture(self.index, function) and is_autouse(self.index, function):
                found = self.of_fixture(name, function)
                if found is not None:
                    return found
        return None

    def _fixture(self, name: str, class_node: ast.ClassDef | None, test: Function) -> Replay | None:
        if name in RECORDING_FIXTURES:
            span = self.index.name_span(test)
            return Replay(
                "recording", name, span, "setup", "betamax's fixture, which plays back a cassette"
            )
        local = _local_fixture(self.index, name, class_node)
        if local is not None:
            return self.of_fixture(name, local)
        found = self.conftest(name)
        plugin = PLUGIN_FIXTURES.get(name)
        if found is None and plugin is not None and not self.conftest_defines(name):
            via = f"{plugin}'s fixture, seeded from the test's id"
            return Replay("seed", name, self.index.name_span(test), "setup", via, plugin)
        return found

    def _fixture_names(
        self, function: Function, class_node: ast.ClassDef | None, own: Applied
    ) -> list[str]:
        """The fixtures a test uses, autouse ones first (pytest sets those up first)."""
        autouse = [
            name
            for name, fixture in fixtures_of(self.index, class_node)
            if is_autouse(self.index, fixture)
        ]
        arguments = function.args
        requested = [arg.arg for arg in (*arguments.posonlyargs, *arguments.args)]
        requested += [arg.arg for arg in arguments.kwonlyargs]
        requested += own.fixtures
        # A parametrized argument is a value, not the fixture of that name.
        skipped = {"self", "cls", "request", *(own.given or ())}
        names = [*autouse, AUTOUSE, *requested]
        return [n for n in dict.fromkeys(names) if n not in skipped]

    def _module_marks(self) -> list[ast.expr]:
        found: list[ast.expr] = []
        for expression in self.index.pytestmark:
            if isinstance(expression, ast.List | ast.Tuple):
                found += expression.elts
            else:
                found.append(expression)
        return found

    def _recording_mark(
        self, decorators: Iterable[ast.expr], module: Iterable[ast.expr], reach: ReplayReach
    ) -> Replay | None:
        marks = [("@", d) for d in decorators] + [("", m) for m in module]
        for prefix, expression in marks:
            call = expression if isinstance(expression, ast.Call) else None
            target = call.func if call is not None else expression
            name = self.index.imports.qualify(target) or dotted(target) or ""
            if name in RECORDING_MARKS or name.endswith(".use_cassette"):
                if call is not None and records_anew(call):
                    continue
                return self._replay("recording", expression, prefix, reach, "")
        return None

    def leading(self, function: Function, via: str, reach: ReplayReach) -> Replay | None:
        """A seed or recording the first statements of a function set up, before any call
        that may draw; None when something else may run first."""
        return self._leading(function, via, reach, _HELPER_DEPTH, {})

    def _leading(
        self,
        function: Function,
        via: str,
        reach: ReplayReach,
        depth: int,
        arguments: dict[str, ast.expr | None],
    ) -> Replay | None:
        # Names bound so far: a parameter seeds from what varies, unless a caller passes
        # it a fixed value (``arguments``).
        local: dict[str, ast.expr | None] = dict.fromkeys(parameters(function))
        local.update(arguments)
        for statement in function.body:
            found = self._replay_in(statement, via, reach, depth, local)
            if found is not None:
                return found if isinstance(found, Replay) else None
            if not harmless(self.index, statement):
                return None
            note_literals(statement, local)
        return None

    def _replay_in(
        self,
        statement: ast.stmt,
        via: str,
        reach: ReplayReach,
        depth: int,
        local: dict[str, ast.expr | None],
    ) -> Replay | bool | None:
        """What one leading statement does: a Replay; False when it seeds from something
        that varies (or calls what detlint cannot read), which ends the search; None when
        it sets up nothing."""
        if isinstance(statement, ast.With | ast.AsyncWith):
            for item in statement.items:
                call = item.context_expr
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "use_cassette"
                    and not records_anew(call)
                ):
                    return self._replay("recording", call, "", reach, via)
            return False
        value = called(statement)
        if value is None:
            return None
        if self._is_seed(value):
            seed = seed_argument(value)
            if seed is None or not self._fixed(seed, local):
                return False
            return self._replay("seed", value, "", reach, via)
        helper = self._helper(value)
        if helper is None or depth == 0:
            return None
        bound = self._bind(helper, value, local)
        inner = self._leading(helper, "", reach, depth - 1, bound)
        if inner is None:
            return None  # a helper that sets up nothing (a skip guard) is judged as its call
        found = self._replay(inner.kind, value, "", reach, via)
        return replace(found, via=", ".join(filter(None, (via, f"which runs `{inner.code}`"))))

    def _bind(
        self, helper: Function, call: ast.Call, local: dict[str, ast.expr | None]
    ) -> dict[str, ast.expr | None]:
        """A helper's parameters that the call gives a fixed seed (a literal, or a name
        bound to one), as literals; the others stay unknown."""
        arguments = helper.args
        positional = [arg.arg for arg in (*arguments.posonlyargs, *arguments.args)]
        with_default = positional[len(positional) - len(arguments.defaults) :]
        defaults = dict(zip(with_default, arguments.defaults, strict=True))
        given = dict(zip(positional, call.args, strict=False))  # extra arguments: *args
        given.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
        bound: dict[str, ast.expr | None] = {}
        for name in positional:
            value = given.get(name, defaults.get(name))
            fixed = value is not None and not isinstance(value, ast.Starred)
            bound[name] = None
            if value is not None and fixed and self._fixed(value, local):
                bound[name] = ast.Constant(0)
        return bound

    def _is_seed(self, call: ast.Call) -> bool:
        qualified = self.index.imports.qualify(call.func)
        if qualified in SEED_CALLS:
            return True
        func = call.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if last not in SEED_NAMES:
            return False
        # A local function of that name is read as a helper instead.
        return not (isinstance(func, ast.Name) and func.id in self.index.functions)

    def _helper(self, call: ast.Call) -> Function | None:
        """A function of this module called first (not a fixture, not a test)."""
        if not isinstance(call.func, ast.Name):
            return None
        function = self.index.functions.get(call.func.id)
        if function is None or is_fixture(self.index, function):
            return None
        return function

    def _fixed(self, node: ast.expr, local: dict[str, ast.expr | None]) -> bool:
        """Whether a seed is a fixed value: an int literal, or a name bound to one in the
        body so far (not a parameter) or at the module's top level."""
        if isinstance(node, ast.Name):
            bound = local[node.id] if node.id in local else self.index.assignments.get(node.id)
            return bound is not None and int_literal(bound)
        return int_literal(node)

    def _replay(
        self, kind: ReplayKind, node: ast.expr, prefix: str, reach: ReplayReach, via: str
    ) -> Replay:
        span = self.index.span(node)
        code = self.index.text(node).split("\n", 1)[0]
        return Replay(kind, prefix + code, span, reach, via)


def _function_scoped(index: ModuleIndex, fixture: Function) -> bool:
    """Whether a fixture is set up again for every test (and every rerun of it)."""
    for decorator in fixture.decorator_list:
        if isinstance(decorator, ast.Call) and index.imports.qualify(decorator.func) in (
            FIXTURE_DECORATORS
        ):
            for keyword in decorator.keywords:
                if keyword.arg == "scope":
                    return literal(keyword.value) == "function"
    return True


def _local_fixture(
    index: ModuleIndex, name: str, class_node: ast.ClassDef | None
) -> Function | None:
    if class_node is not None:
        for statement in class_node.body:
            if isinstance(statement, Function) and statement.name == name:
                return statement if is_fixture(index, statement) else None
    function = index.functions.get(name)
    return function if function is not None and is_fixture(index, function) else None
