"""Classes in a decorator's code: the module's own and those it defines, their objects,
and the attributes set on them or on the test.

A decorator may run the test through an object (``QuietTestRunner().run(suite)``,
``Retrier(f, times).call()``) or through a ``unittest.TestCase`` subclass it defines;
it may also only set an attribute on the test and return it (``f._flaky = note``), for
the code that runs the test to read. A class is read as its methods and its simple
assignments; an object as the attributes its methods set. A method is followed as a
module function is (``Run.follows``): when it is given the test, a function, or an
object that holds one. Calling a class follows its ``__init__`` the same way; a class
detlint does not follow gives an object whose attributes are not known.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.wrapper_expressions import is_callable
from detlint.readers.python.wrapper_statements import Statements
from detlint.readers.python.wrapper_values import (
    TEST,
    Case,
    ClassValue,
    Closure,
    Instance,
    Library,
    Member,
    Partial,
    Qualified,
    Raised,
    Scope,
    Suite,
    Unknown,
    Value,
)

# Bases that make a class a test case: calling the object with a result runs a method.
TEST_CASES = frozenset(
    {"unittest.TestCase", "unittest.case.TestCase", "unittest.IsolatedAsyncioTestCase"}
)
_DEPTH = 4  # how deep an object is searched for the test it holds


def carries_test(value: Value, depth: int = 0) -> bool:
    """Whether a value is the test or a function, or holds one: a suite of cases, an
    object with one among its attributes, a tuple of them."""
    if is_callable(value) or isinstance(value, Case):
        return True
    if depth >= _DEPTH:
        return False
    if isinstance(value, Suite):
        return any(carries_test(case, depth + 1) for case in value.cases)
    if isinstance(value, Instance):
        return any(carries_test(item, depth + 1) for item in value.attributes.values())
    if isinstance(value, tuple):
        return any(carries_test(item, depth + 1) for item in value)
    return False


def holds_test(value: Value, depth: int = 0) -> bool:
    """Whether a value is the test, or reaches it: a function defined where the test is
    a name (the wrapper), a partial, a case, a suite or an object holding one."""
    if value is TEST:
        return True
    if depth >= _DEPTH:
        return False
    inner: list[Value] = []
    if isinstance(value, Closure):
        scope: Scope | None = value.scope
        while scope is not None:
            if any(bound is TEST for bound in scope.names.values()):
                return True
            scope = scope.parent
    elif isinstance(value, Partial):
        inner = [value.target, *value.args, *value.keywords.values()]
    elif isinstance(value, Library):
        inner = [value.wrapped]
    elif isinstance(value, Case):
        inner = [value.test]
    elif isinstance(value, Suite):
        inner = value.cases
    elif isinstance(value, Instance):
        inner = [*value.attributes.values()]
    elif isinstance(value, tuple):
        inner = [*value]
    return any(holds_test(item, depth + 1) for item in inner)


def derives_test_case(klass: ClassValue, depth: int = 0) -> bool:
    """Whether ``klass`` derives from ``unittest.TestCase``."""
    for base in klass.bases:
        if isinstance(base, Qualified) and base.name in TEST_CASES:
            return True
        if isinstance(base, ClassValue) and depth < _DEPTH and derives_test_case(base, depth + 1):
            return True
    return False


def _lineage(klass: ClassValue, depth: int = 0) -> Iterator[ClassValue]:
    """The class, then its bases the decorator's code defines, depth first (as Python
    looks a name up along a single line of bases), at most ``_DEPTH`` deep."""
    yield klass
    for base in klass.bases:
        if isinstance(base, ClassValue) and depth < _DEPTH:
            yield from _lineage(base, depth + 1)


def _method(klass: ClassValue, name: str) -> Function | None:
    """The method ``name`` of ``klass`` or of a base of it the decorator's code defines."""
    methods = (
        statement
        for owner in _lineage(klass)
        for statement in owner.node.body
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
    )
    return next((method for method in methods if method.name == name), None)


def _class_name(klass: ClassValue, name: str) -> Value | None:
    return next((owner.names[name] for owner in _lineage(klass) if name in owner.names), None)


def _decorated(function: Function, name: str) -> bool:
    return any(
        isinstance(decorator, ast.Name) and decorator.id == name
        for decorator in function.decorator_list
    )


class Classes(Statements):
    """Classes, objects and attributes; ``Run`` adds calls."""

    def __init__(self, index: ModuleIndex, failure: str) -> None:
        super().__init__(index, failure)
        self.annotations: list[str] = []  # attributes set on the test itself
        self._classes: dict[str, ClassValue] = {}

    def invoke(
        self,
        function: Value,
        args: tuple[Value, ...],
        keywords: dict[str, Value],
        expression: ast.AST | None = None,
    ) -> Value:
        raise NotImplementedError

    # -- classes -------------------------------------------------------------

    def defined_class(self, name: str) -> Value | None:
        """A class the module defines at its top level, by name."""
        if name in self._classes:
            return self._classes[name]
        node = next((c for c in reversed(self.index.classes) if c.name == name), None)
        if node is None:
            return None
        return self.define_class(node, self.module)

    def define_class(self, node: ast.ClassDef, scope: Scope) -> Value:
        bases = tuple(self.value(base, scope) for base in node.bases)
        klass = ClassValue(node, scope, bases)
        if scope is self.module:
            self._classes[node.name] = klass
        for statement in node.body:
            if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
                targets = statement.targets if isinstance(statement, ast.Assign) else []
                if isinstance(statement, ast.AnnAssign):
                    targets = [statement.target]
                try:
                    found = self.value(statement.value, scope)
                except Raised:
                    found = Unknown(self.text(statement.value))  # raised at class creation
                for target in targets:
                    if isinstance(target, ast.Name):
                        klass.names[target.id] = found
        return klass

    def instantiate(
        self, klass: ClassValue, args: tuple[Value, ...], keywords: dict[str, Value]
    ) -> Value:
        """An object of ``klass``; its ``__init__`` followed where it is given the test or
        a function (else its attributes stay unknown)."""
        made = Instance(klass)
        if derives_test_case(klass):
            name = args[0] if args else keywords.get("methodName", "runTest")
            made.method = name if isinstance(name, str) else ""
        initialiser = _method(klass, "__init__")
        if initialiser is not None:
            self.invoke(Partial(Closure(initialiser, klass.scope), (made,), {}), args, keywords)
        return made

    # -- attributes ----------------------------------------------------------

    def member(self, base: Value, name: str, text: str) -> Value:
        """An attribute of an object or a class of the decorator's code."""
        if isinstance(base, Instance):
            if name in base.attributes:
                return base.attributes[name]
            method = _method(base.klass, name)
            if method is not None:
                closure = Closure(method, base.klass.scope)
                if _decorated(method, "staticmethod"):
                    return closure
                owner: Value = base.klass if _decorated(method, "classmethod") else base
                return Partial(closure, (owner,), {})
            found = _class_name(base.klass, name)
            if found is not None:
                return found
            if derives_test_case(base.klass) and name in ("run", "debug", "__call__"):
                return Member(base, name)
        elif isinstance(base, ClassValue):
            method = _method(base, name)
            if method is not None:
                return Closure(method, base.scope)
            found = _class_name(base, name)
            if found is not None:
                return found
        return Unknown(text)

    def set_attribute(self, base: Value, name: str, value: Value) -> None:
        """``base.name = value`` (or ``setattr``): kept on an object; on the test, noted,
        unless it is a function (a class decorator wrapping the methods of a class)."""
        if isinstance(base, Instance):
            base.attributes[name] = value
        elif base is TEST and not carries_test(value):
            self.annotations.append(name)

    def attribute_call(self, name: str, args: tuple[Value, ...]) -> Value:
        """``setattr(x, "name", value)`` and ``getattr(x, "name"[, default])``."""
        base, attribute = args[0], args[1]
        if name == "builtins.setattr":
            if isinstance(attribute, str) and len(args) == 3:
                self.set_attribute(base, attribute, args[2])
            elif base is TEST and not carries_test(args[-1]):
                self.annotations.append("an attribute")
            return None
        if isinstance(attribute, str) and isinstance(base, Instance | ClassValue):
            return self.member(base, attribute, f"getattr(..., {attribute!r})")
        return Unknown("getattr(...)")

    def test_method(self, instance: Instance) -> Value:
        """The method a test case object runs, bound to it."""
        method = _method(instance.klass, instance.method) if instance.method else None
        if method is None:
            return Unknown(f"{instance.klass.node.name}.{instance.method or '?'}")
        return Partial(Closure(method, instance.klass.scope), (instance,), {})

    def fixture_method(self, instance: Instance, name: str) -> Value:
        """``setUp`` or ``tearDown`` of a test case object, bound to it, or None."""
        method = _method(instance.klass, name)
        return Partial(Closure(method, instance.klass.scope), (instance,), {}) if method else None
