"""How many instances a class decorator that parametrizes a test class makes of each
of its tests.

Besides pytest's own ``parametrize``, suites parametrize whole classes with decorators
that make one class per parameter set: cupy's and chainer's
``@testing.parameterize({...}, {...})`` (often ``*testing.product({...})`` or
``*PARAMS``), the ``parameterized`` library's ``@parameterized_class([...])``. Every
test of such a class runs once per set, a unittest.TestCase's too. A decorator named
so counts the entries of its literal table (a list, a tuple, a dict's product, or a
module name bound to one, here or in a module of the repository it imports); a table
detlint cannot count leaves the instances unknown.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable

from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.names import dotted
from detlint.readers.python.parametrize import count_values

# The last part of the name of a decorator that makes one class per parameter set.
CLASS_PARAMETRIZERS = frozenset({"parameterize", "parametrize", "parameterized_class"})
PRODUCTS = frozenset({"product", "product_dict"})
# A name of another module, to the module that binds it and the name there.
Foreign = Callable[[str], "tuple[ModuleIndex, str] | None"]


def class_factor(index: ModuleIndex, klass: ast.ClassDef, foreign: Foreign) -> int | None:
    """The instances the parametrizing decorators of ``klass`` make of each of its
    tests: 1 without one, None where a table cannot be counted."""
    total: int | None = 1
    for decorator in klass.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        name = dotted(decorator.func) or ""
        qualified = index.imports.qualify(decorator.func) or name
        tail = name.rsplit(".", 1)[-1]
        if qualified.startswith("pytest.") or tail not in CLASS_PARAMETRIZERS | PRODUCTS:
            continue
        size = _decorator_size(index, decorator, tail, foreign)
        total = None if total is None or size is None else total * size
    return total


def _decorator_size(index: ModuleIndex, call: ast.Call, tail: str, foreign: Foreign) -> int | None:
    if tail in PRODUCTS:
        return _product(index, call, foreign)
    if call.keywords and tail != "parameterized_class":
        return None
    positional = call.args
    if tail == "parameterized_class":
        # ``parameterized_class(("a", "b"), [(1, 2), (3, 4)])`` or ``([{...}, {...}])``
        table = positional[1] if len(positional) == 2 else positional[0] if positional else None
        return None if table is None else _count(index, table, foreign)
    if len(positional) == 1 and isinstance(positional[0], ast.Starred):
        return _count(index, positional[0].value, foreign)
    if any(isinstance(arg, ast.Starred) for arg in positional):
        return None
    return len(positional)


def _count(index: ModuleIndex, node: ast.expr, foreign: Foreign, depth: int = 0) -> int | None:
    """The entries of a table: a literal, a product, or a name bound to one."""
    if isinstance(node, ast.Call):
        name = (dotted(node.func) or "").rsplit(".", 1)[-1]
        return _product(index, node, foreign) if name in PRODUCTS else None
    if isinstance(node, ast.Name) and node.id in index.assignments and depth < 5:
        value = index.assignments[node.id]
        if isinstance(value, ast.expr) and len(index.alternatives.get(node.id, [])) <= 1:
            return _count(index, value, foreign, depth + 1)
        return None
    if isinstance(node, ast.Attribute | ast.Name) and depth < 5:
        qualified = index.imports.qualify(node)
        found = foreign(qualified) if qualified is not None else None
        if found is None:
            return None
        other, name = found
        return _count(other, ast.Name(id=name), foreign, depth + 1)
    return count_values(index, node)


def _product(index: ModuleIndex, call: ast.Call, foreign: Foreign) -> int | None:
    """The sets ``testing.product({"a": [1, 2], "b": [3, 4, 5]})`` makes (6)."""
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Dict):
        return None
    sizes = [_count(index, value, foreign) for value in call.args[0].values]
    if any(size is None for size in sizes):
        return None
    return math.prod(size for size in sizes if size is not None)


def times(instances: int | None, factor: int | None) -> int | None:
    """A test's instances under a class factor (None where either is unknown)."""
    return None if instances is None or factor is None else instances * factor
