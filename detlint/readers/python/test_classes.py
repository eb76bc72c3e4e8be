"""Test classes as pytest collects them: their bases (in this module or imported from
another of the repository), ``__test__``, ``__init__``, the class ``pytestmark`` and
unittest.TestCase subclasses.

pytest collects a class that matches ``python_classes`` and has no ``__init__``
(any ``unittest.TestCase`` subclass, whatever its name), unless its
``__test__`` is false, and a subclass gets the test methods and the marks of
its bases. A mixin that holds a flaky test is never collected itself; each
class that inherits it runs the test.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Generic, TypeVar

from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted

MAX_DEPTH = 10  # how far bases are followed; cycles end here
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property"})


def base_names(node: ast.ClassDef) -> list[str]:
    return [
        name
        for base in node.bases
        if (name := dotted(base.value if isinstance(base, ast.Starred) else base)) is not None
    ]


def own_test_flag(node: ast.ClassDef) -> bool | None:
    """The class's own ``__test__ = True/False``, if it sets one."""
    for statement in node.body:
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__test__" for t in statement.targets)
            and isinstance(statement.value, ast.Constant)
        ):
            return bool(statement.value.value)
    return None


def has_init(node: ast.ClassDef) -> bool:
    """pytest does not collect a test class with an ``__init__`` (it warns instead)."""
    return any(
        isinstance(statement, Function) and statement.name == "__init__" for statement in node.body
    )


def methods(node: ast.ClassDef) -> list[Function]:
    """The functions a class body leaves bound, in the order their names first appear:
    a method defined twice is the one written last (its first definition, and the
    marks on it, are gone), and a name bound to anything else last is no method.

    Definitions that share a decorator that is no mark (``@implement_for("gym",
    "0.18")`` on each) register versions with a dispatcher, which keeps the one the
    installed version matches: detlint cannot tell which, and keeps the first.
    """
    bound: dict[str, Function | None] = {}
    for statement in node.body:
        if isinstance(statement, Function):
            earlier = bound.get(statement.name)
            if earlier is None or not _dispatchers(earlier) & _dispatchers(statement):
                bound[statement.name] = statement
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = None
    return [function for function in bound.values() if function is not None]


def _dispatchers(function: Function) -> set[str]:
    """The names of a function's decorators that may dispatch: no pytest mark or
    fixture, no ``staticmethod`` or the like."""
    names = {
        dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
        for decorator in function.decorator_list
    }
    return {
        name
        for name in names
        if name is not None
        and "mark" not in name.split(".")
        and not name.startswith("pytest")
        and name not in _PLAIN_DECORATORS
    }


def class_pytestmark(node: ast.ClassDef) -> list[ast.expr]:
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


Owner = TypeVar("Owner")


class ClassTree(Generic[Owner]):
    """The classes of one module, and what each inherits from the others (and, through
    ``foreign``, from classes it imports from other modules of the repository).

    ``owner`` is what reads the module (its scanner): a class inherited from another
    module has its marks read there, with that module's imports.
    """

    def __init__(
        self,
        index: ModuleIndex,
        owner: Owner,
        foreign: Callable[[str], tuple[ast.ClassDef, ClassTree[Owner]] | None] | None = None,
    ) -> None:
        self.index = index
        self.owner = owner
        self.foreign = foreign
        self._classes = {node.name: node for node in index.classes}

    def _bases(self, node: ast.ClassDef) -> list[tuple[ast.ClassDef, ClassTree[Owner]]]:
        found: list[tuple[ast.ClassDef, ClassTree[Owner]]] = []
        for name in base_names(node):
            base = self.resolve(name)
            if base is not None and base[0] is not node:
                found.append(base)
        return found

    def resolve(self, name: str) -> tuple[ast.ClassDef, ClassTree[Owner]] | None:
        """The class a dotted name of this module stands for: one of its own, or one it
        imports from another module of the repository."""
        own = self._classes.get(name)
        if own is not None:
            return own, self
        qualified = self.index.imports.qualify_name(name)
        if qualified is None or self.foreign is None:
            return None
        return self.foreign(qualified)

    def lineage(self, node: ast.ClassDef) -> list[tuple[ast.ClassDef, ClassTree[Owner]]]:
        """The class and its bases, each with the tree of its module, in method
        resolution order (depth first, as far as the repository tells)."""
        found: list[tuple[ast.ClassDef, ClassTree[Owner]]] = []
        stack: list[tuple[ast.ClassDef, ClassTree[Owner]]] = [(node, self)]
        while stack and len(found) < 2 * MAX_DEPTH:
            klass, tree = stack.pop(0)
            if any(klass is seen for seen, _ in found):
                continue
            found.append((klass, tree))
            stack = tree._bases(klass) + stack
        return found

    def is_unittest(self, node: ast.ClassDef, depth: int = 0) -> bool:
        """A unittest.TestCase subclass (also through its bases)."""
        if depth > MAX_DEPTH:
            return False
        for name in base_names(node):
            qualified = self.index.imports.names.get(name.split(".")[0])
            if name.endswith("TestCase") or (qualified or "").endswith("TestCase"):
                return True
        return any(tree.is_unittest(base, depth + 1) for base, tree in self._bases(node))

    def test_flag(self, node: ast.ClassDef, depth: int = 0) -> bool | None:
        """``__test__`` as the class reads it: its own, else its bases'."""
        own = own_test_flag(node)
        if own is not None or depth > MAX_DEPTH:
            return own
        for base, tree in self._bases(node):
            found = tree.test_flag(base, depth + 1)
            if found is not None:
                return found
        return None

    def collected(self, node: ast.ClassDef, patterns: tuple[str, ...]) -> bool | None:
        """Whether pytest collects the class: True for a plain test class, None for a
        unittest.TestCase (collected its own way), False when it is not collected."""
        from detlint.readers.python.options import matches_name

        if not self.index.is_block(node.body) or self.test_flag(node) is False:
            return False
        if self.is_unittest(node):
            return None
        return matches_name(node.name, patterns) and not has_init(node)
