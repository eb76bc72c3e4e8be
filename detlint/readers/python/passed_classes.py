"""Test classes a module passes to a call that may build more test classes from them.

``test_util.test_both(ModuleLockAsRLockTests, lock_tests.RLockTests)`` returns classes
made at run time (``types.new_class``) that inherit ``RLockTests``: pytest collects them
under names no class statement writes, so a knob on a method of ``RLockTests`` or its
bases reaches more tests than detlint can list. Only calls whose classes can be
collected count: their result is bound at the module's top level, or they are given its
``globals()``. Every class along the lineage of a class passed so is recorded, with the
call, and the tests that inherit a method from one of them count as a lower bound.
"""

from __future__ import annotations

import ast
from typing import Any

from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.names import dotted
from detlint.readers.python.test_classes import ClassTree

# Calls that take a class without building another from it: type checks, ``super()``,
# attribute access, and the unittest loaders that run the class as it is.
_READS_CLASS = frozenset(
    {
        "super",
        "isinstance",
        "issubclass",
        "type",
        "getattr",
        "setattr",
        "hasattr",
        "delattr",
        "vars",
        "id",
        "repr",
        "str",
        "print",
        "object",
        "run_unittest",
        "makeSuite",
        "loadTestsFromTestCase",
        "TestSuite",
        "addTest",
        "addTests",
        "defaultTestLoader",
    }
)


def passed_classes(index: ModuleIndex, tree: ClassTree[Any]) -> tuple[tuple[str, str], ...]:
    """("<path>::<Class>", call) for each class along the lineage of a class of the
    repository this module passes to a call, as the call is named (``test_both``)."""
    found: dict[str, str] = {}
    for node in _binding_calls(index.module):
        callee = dotted(node.func)
        last = (callee or "").rsplit(".", 1)[-1]
        if callee is None or last in _READS_CLASS or last.startswith("assert"):
            continue
        for argument in (*node.args, *(keyword.value for keyword in node.keywords)):
            name = dotted(argument)
            resolved = tree.resolve(name) if name is not None else None
            if resolved is None:
                continue
            for klass, owner in resolved[1].lineage(resolved[0]):
                found.setdefault(f"{owner.index.path}::{klass.name}", last)
    return tuple(found.items())


def _binding_calls(module: ast.Module) -> list[ast.Call]:
    """The calls at the top level whose classes pytest can collect: those whose result
    the module binds to names (``A, B = test_both(...)``), and those given its
    ``globals()`` to bind them in. A call made for its effect on the class it is given
    (``instantiate_parametrized_tests(TestX)``) builds no class."""
    found: list[ast.Call] = []
    for statement in module.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            found += [node for node in ast.walk(statement.value) if isinstance(node, ast.Call)]
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            if any(isinstance(a, ast.Call) and dotted(a.func) == "globals" for a in call.args):
                found.append(call)
    return found
