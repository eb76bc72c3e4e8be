"""Decorators applied to tests by name rather than with ``@``.

A suite that keeps a list of flaky tests often wraps them in a loop instead of
decorating each: at module level or in a class decorator (``for name in FLAKY:
setattr(cls, name, retry(getattr(cls, name)))``), or in a conftest hook that
replaces the function of the items it picks (``if item.nodeid in FLAKY: item.obj =
flaky(max_runs=3)(item.obj)``). Each such statement is a ``NamedWrap``: the decorator's
marks, resolved where it is written, and the names it picks. Names listed literally
(a list, a tuple, a set, a module constant holding one) reach the tests they name;
names code gives (read from a file, a call) cannot be listed, and the wrap is judged
once on its own, as a hook's marks are.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from detlint.base.span import Span
from detlint.readers.python.definitions import DefinitionLookup
from detlint.readers.python.facts import Mark, NamedWrap
from detlint.readers.python.guards import quoted
from detlint.readers.python.marks import MarkResolver
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted

# The named wraps of the conftest.py files that reach a module (their hooks).
WrapsLookup = Callable[[], tuple[NamedWrap, ...]]


def no_wraps() -> tuple[NamedWrap, ...]:
    return ()


# Marks a hook can still add by replacing `item.obj`: a decorator that wraps the call;
# markers on the new function come too late (pytest read them at collection).
_LATE_KINDS = frozenset({"retry-decorator"})


def applied(value: ast.expr) -> ast.expr | None:
    """The decorator of ``DECO(x)``: a call with one positional argument."""
    if not isinstance(value, ast.Call) or len(value.args) != 1 or value.keywords:
        return None
    return None if isinstance(value.args[0], ast.Starred) else value.func


class WrapReader:
    """The named wraps of one module, with the strings its constants list."""

    def __init__(self, index: ModuleIndex, resolver: MarkResolver) -> None:
        self.index = index
        self.resolver = resolver

    # -- what names are listed ---------------------------------------------

    def strings(self, expression: ast.expr, depth: int = 0) -> tuple[str, ...] | None:
        """The strings a literal list, tuple, set or dict (its keys) holds, following
        module constants and ``set(...)``-like calls; None for anything else."""
        if depth > 4:
            return None
        if isinstance(expression, ast.List | ast.Tuple | ast.Set):
            items = expression.elts
        elif isinstance(expression, ast.Dict):
            items = [key for key in expression.keys if key is not None]
        elif isinstance(expression, ast.Name) and expression.id not in self.index.alternatives:
            value = self.index.assignments.get(expression.id)
            return self.strings(value, depth + 1) if value is not None else None
        elif isinstance(expression, ast.Call) and len(expression.args) == 1:
            if dotted(expression.func) in ("set", "frozenset", "list", "tuple", "sorted"):
                return self.strings(expression.args[0], depth + 1)
            return None
        elif isinstance(expression, ast.BinOp) and isinstance(expression.op, ast.Add | ast.BitOr):
            left = self.strings(expression.left, depth + 1)
            right = self.strings(expression.right, depth + 1)
            return left + right if left is not None and right is not None else None
        else:
            return None
        found = [item.value for item in items if isinstance(item, ast.Constant)]
        strings = tuple(value for value in found if isinstance(value, str))
        return strings if len(strings) == len(items) else None

    def source(self, expression: ast.expr) -> str:
        """Where the names come from: "`FLAKY` (tests/conftest.py:4)"."""
        if isinstance(expression, ast.Tuple) and not hasattr(expression, "lineno"):
            expression = expression.elts[0]  # one name, written where it is compared
        if isinstance(expression, ast.Name) and expression.id in self.index.assignments:
            line = self.index.span(self.index.assignments[expression.id]).line
            return f"{quoted(expression.id)} ({self.index.path}:{line})"
        span = self.index.span(expression)
        if isinstance(expression, ast.List | ast.Tuple | ast.Set | ast.Dict):
            return f"the list at {span.path}:{span.line}"
        return f"{quoted(self.index.text(expression))} ({span.path}:{span.line})"

    def marks(self, decorator: ast.expr, late: bool = False) -> tuple[Mark, ...]:
        found = self.resolver.resolve(decorator, "hook")
        return tuple(mark for mark in found if not late or mark.kind in _LATE_KINDS)

    # -- setattr loops -----------------------------------------------------

    def setattr_wraps(self, body: list[ast.stmt], owner: str | None) -> list[NamedWrap]:
        """``setattr(C, name, DECO(getattr(C, name)))`` in a loop over names, a single
        ``setattr`` or ``C.test_x = DECO(C.test_x)``, and ``test_x = DECO(test_x)``;
        ``owner`` is the class a class decorator is given (None: the one written)."""
        wraps: list[NamedWrap] = []
        for statement in body:
            if isinstance(statement, ast.For) and isinstance(statement.target, ast.Name):
                loop = statement.target.id
                for target, name, decorator in _setattrs(statement.body):
                    if isinstance(name, ast.Name) and name.id == loop:
                        wraps += self._wrap(statement.iter, decorator, owner or dotted(target))
            elif isinstance(statement, ast.Expr | ast.Assign):
                wraps += self._single(statement, owner)
        return wraps

    def _wrap(self, names: ast.expr, decorator: ast.expr, owner: str | None) -> list[NamedWrap]:
        marks = self.marks(decorator)
        if not marks:
            return []
        listed = self.strings(names)
        return [NamedWrap(listed, "name", self.source(names), marks, owner)]

    def _single(self, statement: ast.Expr | ast.Assign, owner: str | None) -> list[NamedWrap]:
        for owned, name, applying in _setattrs([statement]):
            if isinstance(name, ast.Constant):
                return self._wrap(ast.Tuple([name], ast.Load()), applying, owner or dotted(owned))
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            return []
        target, decorator = statement.targets[0], applied(statement.value)
        if decorator is None or not isinstance(statement.value, ast.Call):
            return []
        wrapped = statement.value.args[0]
        if (
            isinstance(target, ast.Name)
            and isinstance(wrapped, ast.Name)
            and target.id == wrapped.id
            and target.id in self.index.functions
        ):
            return self._plain(target.id, decorator, "", statement)
        if (
            isinstance(target, ast.Attribute)
            and isinstance(wrapped, ast.Attribute)
            and target.attr == wrapped.attr
            and dotted(target.value) == dotted(wrapped.value)
        ):
            owner = owner or dotted(target.value)
            return self._plain(target.attr, decorator, owner, statement)
        return []

    def _plain(
        self, name: str, decorator: ast.expr, owner: str | None, statement: ast.stmt
    ) -> list[NamedWrap]:
        marks = self.marks(decorator)
        line = self.index.original_line(statement.lineno)
        source = f"the statement at {self.index.path}:{line}"
        return [NamedWrap((name,), "name", source, marks, owner)] if marks else []

    def class_decorator(self, function: Function) -> list[NamedWrap]:
        """The wraps a class decorator applies to the class it is given."""
        parameters = [*function.args.posonlyargs, *function.args.args]
        if not parameters:
            return []
        given = parameters[0].arg
        wraps = self.setattr_wraps(_flattened(function.body), None)
        return [replace(wrap, owner=None) for wrap in wraps if wrap.owner in (given, None)]


def _setattrs(body: list[ast.stmt]) -> Iterator[tuple[ast.expr, ast.expr, ast.expr]]:
    """(class, name, decorator) of each ``setattr(C, name, DECO(...))`` in ``body``."""
    for statement in _flattened(body):
        value = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(value, ast.Call) or dotted(value.func) != "setattr":
            continue
        if len(value.args) != 3:
            continue
        target, name, wrapped = value.args
        decorator = applied(wrapped)
        if decorator is not None:
            yield target, name, decorator


def _flattened(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a body with those of its ``if``/``for``/``with`` blocks."""
    found: list[ast.stmt] = []
    for statement in body:
        found.append(statement)
        if isinstance(statement, ast.If | ast.For | ast.With):
            found += (
                _flattened([*statement.body, *statement.orelse])
                if not isinstance(statement, ast.With)
                else _flattened(statement.body)
            )
    return found


def anchored(wrap: NamedWrap, test: Span) -> list[Mark]:
    """A wrap's marks as marks of one test it picks, at the test's ``def``."""
    return [
        replace(
            mark,
            span=test,
            scope="function",
            via=(f"{wrap.source} names it", *mark.via),
            definition=mark.definition or mark.span,
        )
        for mark in wrap.marks
    ]


def unlisted(wraps: list[NamedWrap]) -> list[Mark]:
    """The marks of wraps whose names detlint cannot list: judged once, as a hook's."""
    return [
        replace(mark, via=(f"the tests {wrap.source} picks", *mark.via))
        for wrap in wraps
        if wrap.names is None and wrap.match != "all"
        for mark in wrap.marks
    ]


class ModuleWraps:
    """The wraps that reach the tests of one module: its own top-level ones, its classes'
    decorators' and its conftest hooks'."""

    def __init__(
        self,
        index: ModuleIndex,
        resolver: MarkResolver,
        external: DefinitionLookup,
        conftest_wraps: WrapsLookup,
    ) -> None:
        self.reader = WrapReader(index, resolver)
        self.external = external
        self.conftest_wraps = conftest_wraps

    @functools.cached_property
    def own(self) -> list[NamedWrap]:
        """Wraps at the module's top level (``for name in FLAKY: setattr(...)``)."""
        index = self.reader.index
        if "setattr" not in index.source and " = " not in index.source:
            return []
        return self.reader.setattr_wraps(index.module.body, None)

    @functools.cached_property
    def hooks(self) -> tuple[NamedWrap, ...]:
        return self.conftest_wraps()

    def of_classes(self, lineage: Sequence[ast.ClassDef]) -> list[NamedWrap]:
        """The wraps class decorators apply to a class (or to a base class of it)."""
        index = self.reader.index
        wraps: list[NamedWrap] = []
        for klass in lineage:
            for decorator in klass.decorator_list:
                function = index.functions.get(dotted(decorator) or "")
                if function is not None:
                    wraps += self.reader.class_decorator(function)
                    continue
                qualified = index.imports.qualify(decorator)
                defined = self.external(qualified, index.path) if qualified else None
                if defined is not None:
                    wraps += defined[0].named_wraps(defined[1])
        return wraps

    def marks(
        self, name: str, class_name: str | None, span: Span, class_wraps: Sequence[NamedWrap]
    ) -> list[Mark]:
        """The marks of the wraps that pick one test by name."""
        wraps = [*class_wraps, *self.own, *self.hooks]
        if not wraps:
            return []
        path = self.reader.index.path
        nodeid = "::".join([path, *([class_name] if class_name else []), name])
        return [
            mark
            for wrap in wraps
            if (wrap.names is not None or wrap.match == "all")
            and wrap.picks(nodeid, name, class_name)
            for mark in anchored(wrap, span)
        ]
