"""Reading one module: its tests, the marks that reach each, and its exports.

Marks reach a test from its own decorators, its class and the classes it
inherits from (decorators and the class ``pytestmark``), the module
``pytestmark``, ``pytest.param(..., marks=...)`` entries of its
parametrization, imperative ``pytest.xfail()`` / ``pytest.skip()`` calls in its
body and in the fixtures it uses (``body_marks``). The closest mark comes
first, the order in which pytest's ``get_closest_marker`` sees them. Which
functions and classes are tests follows pytest's collection rules
(``test_classes``, and the configured patterns in ``options``).

A module also exports what other modules can use: aliases that are marks
(``gpu_flaky = pytest.mark.flaky(reruns=2)`` in conftest.py) and fixtures that
return a trial count.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, replace

from detlint.base.span import Span
from detlint.readers.python.body_marks import BodyMarks
from detlint.readers.python.facts import Mark, ModuleFacts, TestFunction, TrialCount
from detlint.readers.python.fixtures import (
    AUTOUSE,
    FixtureMarksLookup,
    is_autouse,
    is_fixture,
    no_fixture_marks,
)
from detlint.readers.python.locations import call_args
from detlint.readers.python.marks import ExternalLookup, MarkResolver, no_external
from detlint.readers.python.module_index import Function, ModuleIndex, index_module
from detlint.readers.python.names import dotted, literal
from detlint.readers.python.narrowed import Narrowed
from detlint.readers.python.options import (
    UNITTEST_METHOD_PREFIX,
    ScanOptions,
    is_test_module,
    matches_name,
)
from detlint.readers.python.test_classes import ClassTree, class_pytestmark, methods
from detlint.readers.python.trials import FixtureLookup, TrialResolver, no_fixture
from detlint.readers.python.walk import find_all


class ModuleExports:
    """Names other modules may import or use as fixtures, resolved on first request.

    A helper module can be large and define hundreds of names; only the few a
    test imports are ever resolved.
    """

    def __init__(self, scanner: ModuleScanner) -> None:
        self._scanner = scanner
        self._marks: dict[str, tuple[Mark, ...]] = {}
        self._fixtures: dict[str, TrialCount | None] = {}
        self._fixture_marks: dict[str, tuple[Mark, ...]] = {}

    def marks(self, name: str) -> tuple[Mark, ...]:
        """The marks ``name`` stands for: an alias or a mark wrapper; empty otherwise."""
        if name not in self._marks:
            self._marks[name] = tuple(self._scanner.marks_named(name))
        return self._marks[name]

    def fixture_trials(self, name: str) -> TrialCount | None:
        """The trial count fixture ``name`` returns, if it is one."""
        if name not in self._fixtures:
            self._fixtures[name] = self._scanner.fixture_trials(name)
        return self._fixtures[name]

    def defines_fixture(self, name: str) -> bool:
        function = self._scanner.index.functions.get(name)
        return function is not None and is_fixture(self._scanner.index, function)

    def fixture_marks(self, name: str) -> tuple[Mark, ...]:
        """The skips and xfails fixture ``name`` applies (``AUTOUSE``: every autouse one)."""
        found = self._fixture_marks.get(name)
        if found is None:
            found = self._fixture_marks[name] = self._find_fixture_marks(name)
        return found

    def _find_fixture_marks(self, name: str) -> tuple[Mark, ...]:
        scanner = self._scanner
        if name == AUTOUSE:
            return tuple(
                mark
                for fixture_name, fixture in scanner.index.functions.items()
                if is_fixture(scanner.index, fixture) and is_autouse(scanner.index, fixture)
                for mark in scanner.body.of_fixture(fixture_name, fixture)
            )
        fixture = scanner.index.functions.get(name)
        if fixture is None or not is_fixture(scanner.index, fixture):
            return ()
        return tuple(scanner.body.of_fixture(name, fixture))


@dataclass(frozen=True)
class _Method:
    """A test function's own facts, before a class collects it."""

    span: Span
    instances: int | None
    param_marks: tuple[tuple[int, Mark], ...]
    marks: tuple[Mark, ...]
    trials: TrialCount


class ModuleScanner:
    """Turns one parsed module into facts."""

    def __init__(
        self,
        index: ModuleIndex,
        options: ScanOptions,
        external: ExternalLookup = no_external,
        fixtures: FixtureLookup = no_fixture,
        fixture_marks: FixtureMarksLookup = no_fixture_marks,
    ) -> None:
        self.index = index
        self.options = options
        self.marks = MarkResolver(index, external, options.retry_names)
        self.trials = TrialResolver(index, fixtures, options.env_readers)
        self.body = BodyMarks(index, self.marks, fixture_marks)
        self.classes = ClassTree(index)
        self._methods: dict[int, _Method] = {}

    def _decorator_marks(self, decorators: Sequence[ast.expr], scope: str) -> list[Mark]:
        marks: list[Mark] = []
        for decorator in decorators:
            marks += self.marks.resolve(decorator, "function" if scope == "function" else "class")
        return marks

    def _parametrization(
        self, decorators: Sequence[ast.expr]
    ) -> tuple[int | None, list[tuple[int, Mark]]]:
        """(instances, [(instances covered, mark)]) from parametrize decorators."""
        total: int | None = 1
        param_marks: list[tuple[int, Mark]] = []
        for call in decorators:
            if not isinstance(call, ast.Call):
                continue
            if self.index.imports.qualify(call.func) != "pytest.mark.parametrize":
                continue
            args = call_args(call)
            values = [arg for arg in args if arg.keyword is None]
            keyword = [arg for arg in args if arg.keyword == "argvalues"]
            candidates = values[1:2] or keyword
            argvalues = candidates[0] if candidates else None
            size = self._count_values(argvalues.value) if argvalues is not None else None
            total = None if total is None or size is None else total * size
            if argvalues is not None:
                param_marks += self._param_marks(argvalues.value)
        return total, param_marks

    def _count_values(self, node: ast.expr) -> int | None:
        if isinstance(node, ast.List | ast.Tuple):
            if any(isinstance(element, ast.Starred) for element in node.elts):
                return None
            return len(node.elts)
        if isinstance(node, ast.Call) and dotted(node.func) == "range":
            bounds = [literal(arg.value) for arg in call_args(node)]
            if len(bounds) == 1 and isinstance(bounds[0], int) and not isinstance(bounds[0], bool):
                return max(bounds[0], 0)
            return None
        if isinstance(node, ast.Name) and node.id in self.index.assignments:
            return self._count_values(self.index.assignments[node.id])
        return None

    def _param_marks(self, node: ast.expr) -> list[tuple[int, Mark]]:
        found: list[tuple[int, Mark]] = []
        for call in find_all(node, ast.Call):
            if self.index.imports.qualify(call.func) != "pytest.param":
                continue
            for arg in call_args(call):
                if arg.keyword == "marks":
                    found += [(1, mark) for mark in self.marks.resolve(arg.value, "param")]
        return found

    def _module_marks(self) -> list[Mark]:
        marks: list[Mark] = []
        for expression in self.index.pytestmark:
            found = self.marks.resolve(expression, "module")
            guard = self.index.pytestmark_guards.get(id(expression))
            if guard is not None:
                found = [replace(mark, guards=(*mark.guards, guard)) for mark in found]
            marks += found
        return marks

    def _test(
        self,
        function: Function,
        classes: list[ast.ClassDef],
        outer_marks: list[Mark],
        class_instances: int | None,
        class_params: list[tuple[int, Mark]],
        unittest: bool = False,
    ) -> TestFunction:
        facts = self._method(function)
        instances = facts.instances
        if instances is not None and class_instances is not None:
            instances *= class_instances
        elif class_instances is None:
            instances = None
        own = [*facts.marks, *self.body.of_fixtures(function, classes[-1] if classes else None)]
        return TestFunction(
            path=self.index.path,
            name=function.name,
            class_name="::".join(node.name for node in classes) if classes else None,
            span=facts.span,
            instances=instances,
            marks=tuple(own + outer_marks),
            param_marks=(*facts.param_marks, *class_params),
            trials=facts.trials,
            unittest=unittest,
        )

    def _method(self, function: Function) -> _Method:
        """What a test function says of itself, whatever class runs it: a base class's
        test is read once, though each subclass that inherits it collects it."""
        found = self._methods.get(id(function))
        if found is None:
            instances, param_marks = self._parametrization(function.decorator_list)
            marks = self._decorator_marks(function.decorator_list, "function")
            marks += self.body.of(function)
            found = self._methods[id(function)] = _Method(
                self.index.name_span(function),
                instances,
                tuple(param_marks),
                tuple(marks),
                self.trials.trials_of(function),
            )
        return found

    def tests(self) -> list[TestFunction]:
        """Every test pytest could collect here under some config the run met.

        Functions and classes are matched against the ``python_functions`` and
        ``python_classes`` patterns of every such config (the link step keeps
        only what the module's own config collects). A class's test methods
        include those it inherits from classes of the same module, and its
        marks those of its bases, as pytest reads them along the MRO.
        """
        if self.index.assignments.get("__test__") is not None and _is_false_constant(
            self.index.assignments["__test__"]
        ):
            return []
        module_marks = self._module_marks()
        options = self.options
        tests = []
        for name, function in self.index.functions.items():
            if matches_name(name, options.python_functions) and not is_fixture(
                self.index, function
            ):
                tests.append(self._test(function, [], module_marks, 1, []))
        # A class defined twice is the one written last, as for functions.
        for node in {node.name: node for node in self.index.classes}.values():
            tests += self._class_tests([node], module_marks, 1, [])
        return tests

    def _class_tests(
        self,
        chain: list[ast.ClassDef],
        outer_marks: list[Mark],
        outer_instances: int | None,
        outer_params: list[tuple[int, Mark]],
    ) -> list[TestFunction]:
        node = chain[-1]
        collected = self.classes.collected(node, self.options.python_classes)
        if collected is False:
            return []
        unittest = collected is None
        lineage = self.classes.lineage(node)
        class_marks: list[Mark] = []
        for klass in lineage:
            class_marks += self._decorator_marks(klass.decorator_list, "class")
            for expression in class_pytestmark(klass):
                class_marks += self.marks.resolve(expression, "class")
        class_instances, class_params = self._parametrization(node.decorator_list)
        instances = (
            None
            if class_instances is None or outer_instances is None
            else class_instances * outer_instances
        )
        params = class_params + outer_params
        marks = class_marks + outer_marks
        tests = []
        seen: set[str] = set()
        for klass in lineage:
            for method in methods(klass):
                if method.name in seen:
                    continue
                seen.add(method.name)
                collected = (
                    method.name.startswith(UNITTEST_METHOD_PREFIX)
                    if unittest
                    else matches_name(method.name, self.options.python_functions)
                )
                if collected and not is_fixture(self.index, method):
                    tests.append(self._test(method, chain, marks, instances, params, unittest))
        if not unittest:
            for statement in node.body:
                if isinstance(statement, ast.ClassDef):
                    tests += self._class_tests([*chain, statement], marks, instances, params)
        return tests

    def marks_named(self, name: str) -> list[Mark]:
        if name == "pytestmark":
            return []
        if name in self.index.assignments:
            return self.marks.resolve(self.index.assignments[name], "function")
        function = self.index.functions.get(name)
        if function is None or function.decorator_list or name.startswith("test"):
            return []
        return self.marks.factory_marks(function, "function", self.index.name_span(function))

    def fixture_trials(self, name: str) -> TrialCount | None:
        function = self.index.functions.get(name)
        if function is None or not is_fixture(self.index, function):
            return None
        return self.trials.fixture_trials(function)


def _is_false_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def scan_module(
    path: str,
    text: str,
    options: ScanOptions,
    external: ExternalLookup = no_external,
    fixtures: FixtureLookup = no_fixture,
    narrowed: Narrowed | None = None,
    fixture_marks: FixtureMarksLookup = no_fixture_marks,
) -> tuple[ModuleFacts, ModuleExports]:
    """Facts and exports of one module.

    Raises what :func:`~detlint.readers.python.parse.parse` raises on code that does not parse.
    """
    index = index_module(path, text, narrowed)
    scanner = ModuleScanner(index, options, external, fixtures, fixture_marks)
    filename = path.rsplit("/", 1)[-1]
    tests = scanner.tests() if is_test_module(filename, options.python_files) else []
    facts = ModuleFacts(
        path=path,
        tests=tuple(tests),
        hook_marks=tuple(scanner.body.in_hooks()),
    )
    return facts, ModuleExports(scanner)
