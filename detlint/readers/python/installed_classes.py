"""Test classes a module-dict installer puts into a test module at run time.

``install_tests_in_module_dict(globals(), 'spawn')`` (CPython's multiprocessing suite)
walks the classes of the module that defines it and binds a unittest.TestCase made
from each into the calling module, under a new name (``_TestLock`` becomes
``WithProcessesTestLock``); the test module may subclass one of those names again. No
class statement of the test module writes them, so detlint takes each class of the
installer's module that holds tests as installed once, and each class of the test
module whose base only the installer binds as a unittest.TestCase. Their tests are
marked ``installed_by``: how many classes the installer makes is not known.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.names import dotted
from detlint.readers.python.test_classes import base_names

if TYPE_CHECKING:
    from detlint.readers.python.applied_marks import Applied
    from detlint.readers.python.facts import TestFunction
    from detlint.readers.python.module_exports import ForeignLookup
    from detlint.readers.python.options import ScanOptions
    from detlint.readers.python.test_classes import ClassTree


class ModuleScanner(Protocol):
    """What an installer's tests are read with: the scanner of a module (``module_scan``)."""

    index: ModuleIndex
    options: ScanOptions
    classes: ClassTree[Any]
    foreign: ForeignLookup

    def class_tests(
        self, chain: list[ast.ClassDef], outer: Applied, installed: bool = False
    ) -> list[TestFunction]: ...


_BUILTINS = frozenset(dir(builtins))


def installers(index: ModuleIndex) -> list[str]:
    """The calls at the module's top level that are given its ``globals()``."""
    found: list[str] = []
    for statement in index.module.body:
        value = statement.value if isinstance(statement, ast.Expr | ast.Assign) else None
        if not isinstance(value, ast.Call):
            continue
        name = dotted(value.func)
        if name is not None and any(_is_globals(argument) for argument in value.args):
            found.append(name)
    return found


def _is_globals(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "globals"
        and not node.args
    )


def installed_tests(scanner: ModuleScanner, module: Applied) -> list[TestFunction]:
    """The tests the installers of ``scanner``'s module put there, each marked with the
    call (``module``: the marks of the test module, which the installed classes get)."""
    found: list[TestFunction] = []
    for name in installers(scanner.index):
        call = name.rsplit(".", 1)[-1]
        qualified = scanner.index.imports.qualify_name(name)
        source = scanner.foreign(qualified, scanner.index.path) if qualified else None
        owner = None if source is None else source[0].scanner.classes.owner
        if owner is not None and owner is not scanner:
            for node in owner.index.classes:
                tests = owner.class_tests([node], module, installed=True)
                found += [
                    replace(test, path=scanner.index.path, installed_by=call) for test in tests
                ]
        for node in scanner.index.classes:
            if _installed_base(scanner, node) and (
                scanner.classes.collected(node, scanner.options.python_classes) is False
            ):
                tests = scanner.class_tests([node], module, installed=True)
                found += [replace(test, installed_by=call) for test in tests]
    return found


def _installed_base(scanner: ModuleScanner, node: ast.ClassDef) -> bool:
    """Whether a base of the class is a name the module binds nowhere before it (``class
    WithProcessesTestLock(WithProcessesTestLock)``): an installer binds it at run time."""
    index = scanner.index
    for name in base_names(node):
        head = name.split(".")[0]
        resolved = scanner.classes.resolve(name)
        if (
            (resolved is None or resolved[0] is node)
            and head not in index.imports.names
            and head not in index.assignments
            and head not in index.functions
            and head not in _BUILTINS
        ):
            return True
    return False
