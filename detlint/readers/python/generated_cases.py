"""How many tests a decorator that generates test methods makes of one test function.

unittest-style suites multiply tests with decorators pytest does not know as marks:
they write one method (or module function) per case into the namespace the test is
defined in, and hide the one they decorate from collection. pytest then collects each
generated case as a test of its own, under a unittest.TestCase too, where it ignores its
own ``parametrize``:

- the ``parameterized`` library's ``@parameterized.expand(cases)``, on a method or a
  module function: ``test_x_0``, ``test_x_1_<first string argument>``, ... (its
  ``@parameterized_class`` is read with the class parametrizers, ``class_params``);
- absl's ``@parameterized.parameters(*cases)`` and ``.named_parameters(*cases)``, on a
  method of an absl ``parameterized.TestCase``: ``test_x0``, ``test_x1`` or
  ``test_x_<name>``; and ``.product(*dict_lists, **grid)``, one case per combination.

A case count is read where the cases are written out (a literal list or tuple of
values, tuples, dicts or ``param(...)`` calls, ``range(n)``) or from a module name
bound once to one; anything else leaves the instances unknown. absl reads a single
argument that is a tuple or a dict as one case, and a single list as the cases.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Sequence
from dataclasses import replace

from detlint.readers.python.applied_marks import Applied
from detlint.readers.python.class_params import times
from detlint.readers.python.facts import Parametrized
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.parametrize import count_values

Cases = Parametrized | None  # the cases a test's decorators generate, if any

_EXPAND = "parameterized.parameterized.expand"
_ABSL = "absl.testing.parameterized."
_ABSL_CASES = frozenset({"parameters", "named_parameters"})


def generated_cases(index: ModuleIndex, function: Function) -> tuple[Cases, Sequence[ast.expr]]:
    """The cases the case-generating decorators of ``function`` (of ``index``'s module)
    make of it, as a table giving its arguments values (None without one; its count
    None where the cases cannot be counted), and the decorators whose marks reach them.

    absl's generate methods of a class alone (its TestCase's metaclass expands them).
    ``expand`` copies the marks of the function it is given to each case; one written
    above it marks the original, which pytest does not run as a case (a skip there
    leaves every case running)."""
    in_class = index.functions.get(function.name) is not function
    total: int | None = 1
    found = False
    reaching: Sequence[ast.expr] = function.decorator_list
    for place, decorator in enumerate(function.decorator_list):
        if not isinstance(decorator, ast.Call):
            continue
        qualified = index.imports.qualify(decorator.func) or ""
        if qualified == _EXPAND:
            size = _expanded(index, decorator)
            if len(reaching) == len(function.decorator_list):  # the topmost expand
                reaching = function.decorator_list[place + 1 :]
        elif in_class and qualified.startswith(_ABSL):
            tail = qualified.removeprefix(_ABSL)
            if tail in _ABSL_CASES:
                size = _absl_cases(index, decorator)
            elif tail == "product":
                size = _absl_product(index, decorator)
            else:
                continue
        else:
            continue
        found = True
        total = None if total is None or size is None else total * size
    if not found:
        return None, reaching
    arguments = function.args.posonlyargs + function.args.args
    names = tuple(argument.arg for argument in arguments[1 if in_class else 0 :])
    return Parametrized(total, names), reaching


def with_cases(level: Applied, cases: Cases) -> Applied:
    """A test's marks with the cases a decorator generates of it: they multiply its
    instances, and a guard in its body that reads their arguments reaches some alone."""
    if cases is None:
        return level
    instances = times(level.instances, cases.instances)
    return replace(level, instances=instances, tables=(*level.tables, cases))


def _expanded(index: ModuleIndex, call: ast.Call) -> int | None:
    """The cases of ``parameterized.expand(input, ...)``: one test per entry."""
    tables = call.args[:1] or [k.value for k in call.keywords if k.arg == "input"]
    return _positive(count_values(index, tables[0])) if tables else None


def _absl_cases(index: ModuleIndex, call: ast.Call) -> int | None:
    """The cases of absl's ``parameters(*cases)`` / ``named_parameters(*cases)``."""
    if call.keywords:
        return None
    cases: list[ast.expr] = list(call.args)
    if len(cases) == 1 and isinstance(cases[0], ast.Starred):
        written = _bound(index, cases[0].value)
        if not isinstance(written, ast.List | ast.Tuple):
            count = count_values(index, cases[0].value)
            # One unpacked entry may be a list of cases in turn: counted only above 1.
            return count if count is not None and count > 1 else None
        cases = list(written.elts)
    if any(isinstance(case, ast.Starred) for case in cases):
        return None
    if len(cases) != 1:
        return _positive(len(cases))
    single = _bound(index, cases[0])
    if isinstance(single, ast.Tuple | ast.Dict) or _is_dict_call(single):
        return 1  # a lone tuple or mapping is one case
    if isinstance(single, ast.List):
        return _positive(count_values(index, single))
    return None


def _absl_product(index: ModuleIndex, call: ast.Call) -> int | None:
    """The combinations absl's ``product(*dict_lists, **grid)`` makes: the product of
    the lengths of each list of dicts and of each keyword's values."""
    tables = [*call.args, *(k.value for k in call.keywords)]
    if not tables or any(isinstance(t, ast.Starred) for t in tables):
        return None
    if any(k.arg is None for k in call.keywords):
        return None
    sizes = [count_values(index, table) for table in tables]
    if any(size is None for size in sizes):
        return None
    return _positive(math.prod(size for size in sizes if size is not None))


def _bound(index: ModuleIndex, node: ast.expr) -> ast.expr | None:
    """``node``, or the literal a module name is bound to once."""
    if not isinstance(node, ast.Name):
        return node
    if node.id in index.alternatives:
        return None
    value = index.assignments.get(node.id)
    return value if isinstance(value, ast.expr) else None


def _is_dict_call(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict"


def _positive(count: int | None) -> int | None:
    """A case count, or None for none at all (the libraries reject an empty table)."""
    return count if count else None
