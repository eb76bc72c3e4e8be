"""Reading one module: its tests, the marks that reach each, and its exports.

Marks reach a test from its own decorators, its class and the classes it inherits from (decorators
and the class ``pytestmark``), the module ``pytestmark``, ``pytest.param(..., marks=...)`` entries
of its parametrization, imperative ``pytest.xfail()`` / ``pytest.skip()`` calls in its body and in
the fixtures it uses (``body_marks``) or at the module's top level (``module_skips``). The closest
mark comes first, the order in which pytest's ``get_closest_marker`` sees them. Which functions and
classes are tests follows pytest's collection rules (``test_classes``, and the configured patterns
in ``options``). A module also exports what other modules can use: mark aliases (``gpu_flaky =
pytest.mark.flaky(reruns=2)`` in conftest.py) and fixtures that return a trial count.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from detlint.base.span import Span
from detlint.readers.python.applied_marks import Applied
from detlint.readers.python.body_marks import BodyMarks
from detlint.readers.python.body_retries import body_retries
from detlint.readers.python.called_functions import CalledFunctions
from detlint.readers.python.class_branches import class_branches
from detlint.readers.python.class_params import class_factor, times
from detlint.readers.python.definitions import DefinitionLookup, nowhere
from detlint.readers.python.entry_marks import entry_marks
from detlint.readers.python.facts import Mark, ModuleFacts, NamedWrap, TestFunction, TrialCount
from detlint.readers.python.fixture_params import (
    ConftestFixtures,
    FixtureParams,
    Scope,
    fixture_scope,
    no_conftest_fixtures,
    requested,
)
from detlint.readers.python.fixtures import FixtureMarksLookup, is_fixture, no_fixture_marks
from detlint.readers.python.generated_cases import Cases, generated_cases, with_cases
from detlint.readers.python.helper_reach import may_reach_retries
from detlint.readers.python.helper_retries import Helper, HelperRetries, beside_trials
from detlint.readers.python.helper_skips import helper_skips
from detlint.readers.python.installed_classes import installed_tests
from detlint.readers.python.marks import (
    ExternalLookup,
    MarkResolver,
    Reexport,
    no_external,
    no_reexport,
)
from detlint.readers.python.module_exports import ForeignLookup, ModuleExports, no_foreign_module
from detlint.readers.python.module_index import Function, ModuleIndex, index_module
from detlint.readers.python.module_skips import module_skips
from detlint.readers.python.named_wraps import ModuleWraps, WrapsLookup, no_wraps, unlisted
from detlint.readers.python.narrowed import Narrowed
from detlint.readers.python.options import (
    UNITTEST_METHOD_PREFIX,
    ScanOptions,
    is_test_module,
    matches_name,
)
from detlint.readers.python.param_guards import reaching
from detlint.readers.python.passed_classes import passed_classes
from detlint.readers.python.replays import (
    FixtureReplayLookup,
    ReplayFinder,
    no_fixture_defined,
    no_fixture_replay,
)
from detlint.readers.python.script_runs import script_runs
from detlint.readers.python.setup_checks import setup_checks, test_trials
from detlint.readers.python.test_classes import ClassTree, class_pytestmark, methods
from detlint.readers.python.trials import FixtureLookup, TrialResolver, no_fixture


@dataclass(frozen=True)
class _Method:
    """A test function's own facts, whatever class collects it: its decorators' and body's marks."""

    span: Span
    applied: Applied
    trials: TrialCount
    entries: tuple[Mark, ...] = ()  # skips and xfails of data lists its decorators consume
    cases: Cases = None  # what its case-generating decorators make of it


class ModuleScanner:
    """Turns one parsed module into facts."""

    def __init__(
        self,
        index: ModuleIndex,
        options: ScanOptions,
        external: ExternalLookup = no_external,
        fixtures: FixtureLookup = no_fixture,
        fixture_marks: FixtureMarksLookup = no_fixture_marks,
        fixture_replays: FixtureReplayLookup = no_fixture_replay,
        fixture_defined: Callable[[str], bool] = no_fixture_defined,
        reexport: Reexport = no_reexport,
        foreign: ForeignLookup = no_foreign_module,
        conftest_wraps: WrapsLookup = no_wraps,
        definitions: DefinitionLookup = nowhere,
        conftest_fixtures: ConftestFixtures = no_conftest_fixtures,
        reach_helpers: bool = True,
    ) -> None:
        self.index = index
        self.options = options
        self.marks = MarkResolver(index, external, options.retry_names, reexport, definitions)
        self.named = ModuleWraps(index, self.marks, definitions, conftest_wraps)
        self.trials = TrialResolver(index, fixtures, options.env_readers, self._foreign_name)
        self.body = BodyMarks(index, self.marks, fixture_marks)
        self.classes: ClassTree[ModuleScanner] = ClassTree(index, self, self._foreign_class)
        self.foreign = foreign
        self.replays = ReplayFinder(index, fixture_replays, fixture_defined)
        self.fixture_params = FixtureParams(index, conftest_fixtures)
        self._methods: dict[int, _Method] = {}
        self._classes: dict[int, list[Mark]] = {}
        self._bounds: dict[int, dict[str, Helper]] = {}
        self.helper_retries = HelperRetries()
        # Whether a function its tests call can carry a retry decorator: most modules' tests
        # reach none, and walking their calls through every import is costly (helper_reach).
        self.reach_helpers = reach_helpers
        self.called = CalledFunctions(index, self._function_marks, definitions, self.body.of)
        self.branches = class_branches(index)  # the ``if`` branches of its classes, by id

    def _decorator_marks(self, decorators: Sequence[ast.expr], scope: str) -> list[Mark]:
        """Every mark the decorators apply, plain markers (parametrize) included."""
        marks: list[Mark] = []
        for decorator in decorators:
            marks += self.marks.applied(decorator, "function" if scope == "function" else "class")
        return marks

    def _module_marks(self) -> Applied:
        # Its ``pytestmark``, and a top-level ``pytest.skip(..., allow_module_level=True)``.
        marks = module_skips(self.index, self.marks)
        for expression in self.index.pytestmark:
            found = self.marks.applied(expression, "module")
            guard = self.index.pytestmark_guards.get(id(expression))
            if guard is not None:
                found = [replace(mark, guards=(*mark.guards, guard)) for mark in found]
            marks += found
        return Applied.of(marks)

    def _class_marks(self, klass: ast.ClassDef) -> list[Mark]:
        """The marks a class of this module applies (its decorators and ``pytestmark``),
        read once though each subclass's lineage holds it."""
        found = self._classes.get(id(klass))
        if found is None:
            found = self._decorator_marks(klass.decorator_list, "class")
            for expression in class_pytestmark(klass):
                found += self.marks.applied(expression, "class")
            self._classes[id(klass)] = found
        return found

    def _test(
        self,
        function: Function,
        classes: list[ast.ClassDef],
        outer: Applied,
        unittest: bool = False,
        owner: ModuleScanner | None = None,
        class_wraps: Sequence[NamedWrap] = (),
    ) -> TestFunction:
        """``function`` as a test of this module, under the marks of its classes and module
        (``outer``); ``owner``: the module defining one a class here inherits (read there)."""
        facts = (owner or self)._method(function)
        level = facts.applied.within(outer)
        if unittest:  # pytest parametrizes no unittest.TestCase method, whatever its marks
            level = replace(level, instances=1, param_marks=(), tables=())
        level = with_cases(level, facts.cases)  # methods a decorator writes, TestCase or not
        instances, more = level.instances, False
        if instances is not None and not unittest:
            factor, more = self._fixture_factor(function, classes, level)
            instances = None if factor is None else instances * factor
        class_name = "::".join(node.name for node in classes) if classes else None
        # A test a class here inherits from another module is read there (its draws too).
        reader = owner or self
        own = [
            *self.named.marks(function.name, class_name, facts.span, class_wraps),
            *reaching(function, facts.applied.knobs, level.tables, instances, reader.index.text),
            *self.body.of_fixtures(function, classes[-1] if classes else None),
            *body_retries(function, reader.index),  # retry loops written in its body
        ]
        # The functions the test calls (its class's methods, functions its body defines):
        # retry decorators on those that hold its checks, skips in those it calls first.
        callee = functools.partial(reader.called.of_test, self._bound(classes), function)
        if reader.reach_helpers:  # named without a figure beside a trial loop of its own
            own += beside_trials(self.helper_retries.of(function, reader.index, callee), facts)
        own += helper_skips(function, callee)
        lineage = [
            klass
            for klass, tree in (self.classes.lineage(classes[-1]) if classes else [])
            if tree is reader.classes
        ]
        mine = classes if reader is self else []  # classes of the module that defines it
        conftest = self.fixture_params.conftests.checking
        checks = setup_checks(reader.trials, function, lineage, level.fixtures, conftest)
        return TestFunction(
            path=self.index.path,
            name=function.name,
            class_name=class_name,
            span=facts.span,
            instances=instances,
            more_instances=more,
            markers=level.marked,
            marks=(*own, *outer.knobs),
            param_marks=level.param_marks,
            entry_marks=facts.entries,
            trials=test_trials(facts.trials, checks, self.index.path),
            unittest=unittest,
            replays=reader.replays.of_test(function, mine, lineage, facts.applied),
            setup_checks=checks,
        )

    def _fixture_factor(
        self, function: Function, classes: list[ast.ClassDef], level: Applied
    ) -> tuple[int | None, bool]:
        """The instances the parametrized fixtures a test requests make of it, and whether
        that is a floor, looked up from its module and classes (innermost first, with
        bases); ``level``: the fixtures its marks use and the names they give values."""
        names = [*requested(function, bool(classes)), *level.fixtures]
        scopes: list[Scope] = []
        for node in reversed(classes):
            scope: Scope = {}
            for klass, tree in self.classes.lineage(node):
                index = tree.owner.index
                members = [m for m in klass.body if isinstance(m, Function)]
                for name, definition in fixture_scope(index, members).items():
                    scope.setdefault(name, definition)
            scopes.append(scope)
        return self.fixture_params.factor(names, scopes, level.given, level.marked)

    def _bound(self, classes: list[ast.ClassDef]) -> dict[str, Helper]:
        """The methods ``self.name(...)`` calls in a test of ``classes`` name, along
        its lineage (a class's own definition hides its bases'), found once per class."""
        key = id(classes[-1]) if classes else 0
        bound = self._bounds.get(key)
        if bound is None:
            bound = self._bounds[key] = {}
            for klass, tree in self.classes.lineage(classes[-1]) if classes else []:
                for method in methods(klass):
                    bound.setdefault(method.name, tree.owner.called.helper(method))
        return bound

    def _function_marks(self, decorators: Sequence[ast.expr]) -> list[Mark]:
        """The knobs of a function's decorators."""
        return [m for m in self._decorator_marks(decorators, "function") if m.kind != "marker"]

    def _method(self, function: Function) -> _Method:
        """What a test function says of itself, whatever class runs it: a base class's
        test is read once, though each subclass that inherits it collects it."""
        found = self._methods.get(id(function))
        if found is None:
            cases, decorators = generated_cases(self.index, function)
            applied = Applied.of(self._decorator_marks(decorators, "function"))
            applied = replace(applied, knobs=(*applied.knobs, *self.body.of(function)))
            entries = entry_marks(self.index, self.marks, decorators)
            span, trials = self.index.name_span(function), self.trials.trials_of(function)
            found = self._methods[id(function)] = _Method(span, applied, trials, entries, cases)
        return found

    def tests(self) -> list[TestFunction]:
        """Every test pytest could collect here under some config the run met.

        Functions and classes are matched against the ``python_functions`` and ``python_classes``
        patterns of every such config (the link step keeps only what the module's own config
        collects). A class's test methods include those it inherits from classes of the same
        module, and its marks those of its bases, as pytest reads them along the MRO."""
        flag = self.index.assignments.get("__test__")
        if isinstance(flag, ast.Constant) and flag.value is False:
            return []
        module = self._module_marks()
        tests = []
        for name, function in self.index.functions.items():
            if matches_name(name, self.options.python_functions) and not is_fixture(
                self.index, function
            ):
                tests.append(self._test(function, [], module))
        # A class defined twice is the one written last, as for functions.
        for node in {node.name: node for node in self.index.classes}.values():
            tests += self.class_tests([node], module)
        return tests + installed_tests(self, module)

    def class_tests(
        self, chain: list[ast.ClassDef], outer: Applied, installed: bool = False
    ) -> list[TestFunction]:
        """A class's tests (``installed``: an installer made a TestCase of it at run time)."""
        node = chain[-1]
        collected = None if installed else self.classes.collected(node, self.options.python_classes)
        if collected is False:
            return []
        unittest = collected is None
        lineage = [(klass, tree.owner) for klass, tree in self.classes.lineage(node)]
        level = Applied.of(
            [mark for klass, owner in lineage for mark in owner._class_marks(klass)]
        ).within(outer)
        wraps = self.named.of_classes([klass for klass, owner in lineage if owner is self])
        tests = []
        seen: set[str] = set()
        for klass, owner in lineage:
            for method in methods(klass):
                if method.name in seen:
                    continue
                seen.add(method.name)
                collected = (
                    method.name.startswith(UNITTEST_METHOD_PREFIX)
                    if unittest
                    else matches_name(method.name, self.options.python_functions)
                )
                if collected and not is_fixture(owner.index, method):
                    test = self._test(method, chain, level, unittest, owner, wraps)
                    where = f"{owner.index.path}::{klass.name}"
                    branches = self.branches.get(id(chain[0]), ())
                    tests.append(replace(test, owner=where, branches=branches))
        factor = class_factor(self.index, node, self._foreign_name)
        if factor != 1:
            tests = [replace(test, instances=times(test.instances, factor)) for test in tests]
        if not unittest:
            for statement in node.body:
                if isinstance(statement, ast.ClassDef):
                    tests += self.class_tests([*chain, statement], level)
        return tests

    def _foreign_name(self, qualified: str) -> tuple[ModuleIndex, str] | None:
        """The module of the repository that binds a name this module imports."""
        found = self.foreign(qualified, self.index.path)
        return None if found is None else (found[0].scanner.index, found[1])

    def _foreign_class(
        self, qualified: str
    ) -> tuple[ast.ClassDef, ClassTree[ModuleScanner]] | None:
        """A base class imported from another module of the repository (a mixin of
        tests in a helper module), with the tree of the module that defines it."""
        found = self.foreign(qualified, self.index.path)
        if found is None:
            return None
        exports, name = found
        owner = exports.scanner
        node = {klass.name: klass for klass in owner.index.classes}.get(name)
        if node is None:
            return None
        return node, owner.classes

    def fixture_trials(self, name: str) -> TrialCount | None:
        function = self.index.functions.get(name)
        fixture = function if function is not None and is_fixture(self.index, function) else None
        return None if fixture is None else self.trials.fixture_trials(fixture)


def scan_module(
    path: str,
    text: str,
    options: ScanOptions,
    external: ExternalLookup = no_external,
    fixtures: FixtureLookup = no_fixture,
    narrowed: Narrowed | None = None,
    fixture_marks: FixtureMarksLookup = no_fixture_marks,
    fixture_replays: FixtureReplayLookup = no_fixture_replay,
    fixture_defined: Callable[[str], bool] = no_fixture_defined,
    reexport: Reexport = no_reexport,
    foreign: ForeignLookup = no_foreign_module,
    named: bool = False,
    conftest_wraps: WrapsLookup = no_wraps,
    definitions: DefinitionLookup = nowhere,
    conftest_fixtures: ConftestFixtures = no_conftest_fixtures,
    knob_imports: bool = True,
) -> tuple[ModuleFacts, ModuleExports]:
    """Facts and exports of one module; ``named``: pytest collects it whatever its name
    (a CI step names it, or it runs pytest on itself).

    Raises what :func:`~detlint.readers.python.parse.parse` raises on code that does not parse.
    """
    index = index_module(path, text, narrowed)
    scanner = ModuleScanner(
        index,
        options,
        external,
        fixtures,
        fixture_marks,
        fixture_replays,
        fixture_defined,
        reexport,
        foreign,
        conftest_wraps,
        definitions,
        conftest_fixtures,
        knob_imports or may_reach_retries(index, options.retry_names),
    )
    collected = named or is_test_module(path.rsplit("/", 1)[-1], options.python_files)
    exports = ModuleExports(scanner)
    wraps = scanner.named.own if collected else list(exports.hook_wraps)  # unlisted: judged once
    facts = ModuleFacts(
        path=path,
        tests=tuple(scanner.tests()) if collected else (),
        hook_marks=(*scanner.body.in_hooks(), *unlisted(wraps)),
        named=named,
        script_runs=script_runs(index) if collected else (),
        passed_classes=passed_classes(index, scanner.classes) if collected else (),
    )
    return facts, exports
