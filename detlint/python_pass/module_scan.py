"""Reading one module: its tests, the marks that reach each, and its exports.

Marks reach a test from its own decorators, its class (decorators and the
class ``pytestmark``), the module ``pytestmark``, ``pytest.param(...,
marks=...)`` entries of its parametrization, and imperative
``pytest.xfail()`` / ``pytest.skip()`` calls in its body. The closest mark
comes first, the order in which pytest's ``get_closest_marker`` sees them.

A module also exports what other modules can use: aliases that are marks
(``gpu_flaky = pytest.mark.flaky(reruns=2)`` in conftest.py) and fixtures that
return a trial count.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from detlint.python_pass.facts import Mark, MarkKind, ModuleFacts, TestFunction, TrialCount
from detlint.python_pass.locations import call_args
from detlint.python_pass.marks import (
    ExternalLookup,
    MarkResolver,
    no_external,
    returned_expressions,
)
from detlint.python_pass.module_index import Function, ModuleIndex, index_module
from detlint.python_pass.names import dotted, literal
from detlint.python_pass.narrowing import Narrowed
from detlint.python_pass.options import ScanOptions, is_test_module
from detlint.python_pass.trials import FixtureLookup, TrialResolver, no_fixture
from detlint.python_pass.walk import find_all

IMPERATIVE: dict[str, MarkKind] = {"pytest.xfail": "xfail-call", "pytest.skip": "skip-call"}


class ModuleExports:
    """Names other modules may import or use as fixtures, resolved on first request.

    A helper module can be large and define hundreds of names; only the few a
    test imports are ever resolved.
    """

    def __init__(self, scanner: ModuleScanner) -> None:
        self._scanner = scanner
        self._marks: dict[str, tuple[Mark, ...]] = {}
        self._fixtures: dict[str, TrialCount | None] = {}

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


def _is_fixture(index: ModuleIndex, function: Function) -> bool:
    for decorator in function.decorator_list:
        target = decorator
        if isinstance(target, ast.Call):
            target = target.func
        if index.imports.qualify(target) in ("pytest.fixture", "pytest_asyncio.fixture"):
            return True
    return False


def _is_test_class(node: ast.ClassDef) -> bool:
    if node.name.startswith("Test"):
        return True
    return any(
        (dotted(base.value if isinstance(base, ast.Starred) else base) or "").endswith("TestCase")
        for base in node.bases
    )


def _class_pytestmark(node: ast.ClassDef) -> list[ast.expr]:
    found: list[ast.expr] = []
    for statement in node.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark"
            for target in statement.targets
        ):
            found = [statement.value]
        elif (
            isinstance(statement, ast.AugAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == "pytestmark"
        ):
            found.append(statement.value)
    return found


class ModuleScanner:
    """Turns one parsed module into facts."""

    def __init__(
        self,
        index: ModuleIndex,
        options: ScanOptions,
        external: ExternalLookup = no_external,
        fixtures: FixtureLookup = no_fixture,
    ) -> None:
        self.index = index
        self.options = options
        self.marks = MarkResolver(index, external, options.retry_names)
        # Walking every test body for calls is the costliest search; most modules
        # have no imperative skip or xfail at all.
        self.has_imperative_calls = "skip(" in index.source or "xfail(" in index.source
        self.trials = TrialResolver(index, fixtures, options.env_readers)

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

    def _body_marks(self, function: Function) -> list[Mark]:
        """Knobs a test applies to itself while it runs.

        Imperative ``pytest.xfail()`` / ``pytest.skip()`` calls, and marks added
        with ``request.applymarker(...)``. Of the latter only xfail and skip are
        read (pytest evaluates them when it makes the report); a rerun marker
        added this late is left out, since whether a plugin sees it depends on
        when the plugin reads markers (pytest-rerunfailures decides before the
        test runs).
        """
        marks: list[Mark] = []
        if not self.has_imperative_calls:
            return marks
        for call in self.index.body(function, ast.Call):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "applymarker" and _has_args(call):
                marks += [
                    mark
                    for mark in self.marks.resolve(call_args(call)[0].value, "body")
                    if mark.kind in ("xfail", "skip", "skipif")
                ]
                continue
            qualified = self.index.imports.qualify(func) or ""
            kind = IMPERATIVE.get(qualified)
            if kind is None:
                continue
            span = self.index.span(call)
            marks.append(
                Mark(
                    kind,
                    qualified,
                    self.marks.arguments(call),
                    False,
                    span,
                    "body",
                    comment=self.index.comment_on(span.line),
                )
            )
        return marks

    def _module_marks(self) -> list[Mark]:
        marks: list[Mark] = []
        for expression in self.index.pytestmark:
            marks += self.marks.resolve(expression, "module")
        return marks

    def _test(
        self,
        function: Function,
        class_node: ast.ClassDef | None,
        outer_marks: list[Mark],
        class_instances: int | None,
        class_params: list[tuple[int, Mark]],
    ) -> TestFunction:
        instances, param_marks = self._parametrization(function.decorator_list)
        if instances is not None and class_instances is not None:
            instances *= class_instances
        elif class_instances is None:
            instances = None
        own = self._decorator_marks(function.decorator_list, "function")
        own += self._body_marks(function)
        return TestFunction(
            path=self.index.path,
            name=function.name,
            class_name=class_node.name if class_node is not None else None,
            span=self.index.name_span(function),
            instances=instances,
            marks=tuple(own + outer_marks),
            param_marks=tuple(param_marks + class_params),
            trials=self.trials.trials_of(function),
        )

    def tests(self) -> list[TestFunction]:
        module_marks = self._module_marks()
        tests = []
        for name, function in self.index.functions.items():
            if name.startswith("test") and not _is_fixture(self.index, function):
                tests.append(self._test(function, None, module_marks, 1, []))
        for node in self.index.classes:
            if not _is_test_class(node) or not self.index.is_block(node.body):
                continue
            class_marks = self._decorator_marks(node.decorator_list, "class")
            for expression in _class_pytestmark(node):
                class_marks += self.marks.resolve(expression, "class")
            class_instances, class_params = self._parametrization(node.decorator_list)
            for statement in node.body:
                if isinstance(statement, Function) and statement.name.startswith("test"):
                    tests.append(
                        self._test(
                            statement,
                            node,
                            class_marks + module_marks,
                            class_instances,
                            class_params,
                        )
                    )
        return tests

    def marks_named(self, name: str) -> list[Mark]:
        if name == "pytestmark":
            return []
        if name in self.index.assignments:
            return self.marks.resolve(self.index.assignments[name], "function")
        function = self.index.functions.get(name)
        if function is None or function.decorator_list or name.startswith("test"):
            return []
        marks: list[Mark] = []
        for returned in returned_expressions(self.index, function):
            marks += self.marks.resolve(returned, "function")
        return marks

    def fixture_trials(self, name: str) -> TrialCount | None:
        function = self.index.functions.get(name)
        if function is None or not _is_fixture(self.index, function):
            return None
        return self.trials.fixture_trials(function)

    def hook_marks(self) -> list[Mark]:
        """Marks added by ``item.add_marker(...)`` in hooks: they reach many tests at once."""
        marks: list[Mark] = []
        if "add_marker" not in self.index.source:
            return marks
        for call in find_all(self.index.module, ast.Call):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "add_marker" and _has_args(call):
                marks += self.marks.resolve(call_args(call)[0].value, "hook")
        return marks


def _has_args(call: ast.Call) -> bool:
    return bool(call.args or call.keywords)


def scan_module(
    path: str,
    text: str,
    options: ScanOptions,
    external: ExternalLookup = no_external,
    fixtures: FixtureLookup = no_fixture,
    narrowed: Narrowed | None = None,
) -> tuple[ModuleFacts, ModuleExports]:
    """Facts and exports of one module.

    Raises what :func:`~detlint.python_pass.parse.parse` raises on code that does not parse.
    """
    index = index_module(path, text, narrowed)
    scanner = ModuleScanner(index, options, external, fixtures)
    filename = path.rsplit("/", 1)[-1]
    tests = scanner.tests() if is_test_module(filename, options.python_files) else []
    facts = ModuleFacts(
        path=path,
        tests=tuple(tests),
        hook_marks=tuple(scanner.hook_marks()),
    )
    return facts, ModuleExports(scanner)
