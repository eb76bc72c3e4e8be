"""Resolving an expression to the marks it applies.

A mark can be written a dozen ways: ``@pytest.mark.flaky(reruns=3)``,
``@pt.mark.flaky``, ``@mark.flaky``, an alias (``gpu_flaky = pytest.mark.flaky(
reruns=5)`` then ``@gpu_flaky``), a wrapper function that applies it, an alias
imported from ``conftest.py``, a ``pytestmark`` list, ``pytest.param(...,
marks=...)``. This module turns any of them into ``Mark`` facts, following
aliases statically and recording the path it took.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from detlint.base.span import Span
from detlint.readers.python.definitions import DefinitionLookup, nowhere
from detlint.readers.python.facts import Argument, Mark, MarkKind, Parametrized, Scope
from detlint.readers.python.guards import negated, quoted
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted
from detlint.readers.python.parametrize import PARAMETRIZE, parametrized
from detlint.readers.python.retry_libraries import LIBRARY_DECORATORS
from detlint.readers.python.retry_marks import RetryReader, imported_retries, judged, retry_marks
from detlint.readers.python.returned_marks import factory_names, mentions, returned_expressions

MARK_KINDS: dict[str, MarkKind] = {
    "flaky": "flaky",
    "xfail": "xfail",
    "skip": "skip",
    "skipif": "skipif",
    "repeat": "repeat",
}
# Marker names that, though not a plugin's, say "this test is flaky": a repo's own tags.
CUSTOM_MARK_WORDS = ("flak", "quarantin", "unstable", "intermittent", "nondetermin")
FLAKY_PACKAGE_DECORATOR = "flaky.flaky"
# unittest's decorators, which pytest honours on unittest.TestCase tests (and on
# plain tests, where they raise SkipTest or mark an expected failure).
UNITTEST_DECORATORS: dict[str, MarkKind] = {
    "unittest.skip": "unittest-skip",
    "unittest.skipIf": "unittest-skip",
    "unittest.skipUnless": "unittest-skip",
    "unittest.case.skip": "unittest-skip",
    "unittest.case.skipIf": "unittest-skip",
    "unittest.case.skipUnless": "unittest-skip",
    "unittest.expectedFailure": "unittest-xfail",
    "unittest.case.expectedFailure": "unittest-xfail",
}
RETRY_DECORATORS = LIBRARY_DECORATORS
MAX_DEPTH = 6

# (qualified name, importer path) -> marks defined in another module, or None.
ExternalLookup = Callable[[str, str], tuple[Mark, ...] | None]


def no_external(qualified: str, importer: str) -> tuple[Mark, ...] | None:
    return None


# (qualified name, importer path) -> what it stands for where a repository module
# imports it in turn (``from tests import unittest``), or None.
Reexport = Callable[[str, str], str | None]


def no_reexport(qualified: str, importer: str) -> str | None:
    return None


# The last names of what a re-exported module can hold that detlint reads: a
# qualified name ending in another is never looked up in the repository.
_REEXPORTED_TAILS = frozenset(
    {"skip", "skipIf", "skipUnless", "expectedFailure", "SkipTest", "xfail", "flaky"}
)


def mark_kind(name: str) -> MarkKind | None:
    """The kind of a ``pytest.mark.<name>`` marker, or None when detlint ignores it."""
    if name in MARK_KINDS:
        return MARK_KINDS[name]
    lowered = name.lower()
    if any(word in lowered for word in CUSTOM_MARK_WORDS):
        return "custom"
    return None


@dataclass
class MarkResolver:
    """Resolves expressions of one module to marks."""

    index: ModuleIndex
    external: ExternalLookup = no_external
    retry_names: frozenset[str] = frozenset()
    reexport: Reexport = no_reexport
    # The repository module that defines an imported name: its retry decorators are read
    # there, with the arguments a test gives them.
    definitions: DefinitionLookup = nowhere
    _qualified: dict[str, str | None] = field(default_factory=dict, init=False)
    retries: RetryReader = field(init=False)

    def __post_init__(self) -> None:
        self.retries = RetryReader(self.index)

    def qualify(self, node: ast.AST) -> str | None:
        """The qualified name of a name chain, also through a repository module that
        imports it in turn: ``from .compat import unittest`` then ``unittest.skip``
        is ``unittest.skip`` (compat.py: ``import unittest2 as unittest``)."""
        qualified = self.index.imports.qualify(node)
        if qualified is None or qualified.rsplit(".", 1)[-1] not in _REEXPORTED_TAILS:
            return qualified
        if qualified.startswith(("pytest.", "unittest.", "flaky.")):
            return qualified
        if qualified not in self._qualified:
            self._qualified[qualified] = self.reexport(qualified, self.index.path)
        return self._qualified[qualified] or qualified

    def arguments(self, call: ast.Call) -> tuple[Argument, ...]:
        return tuple(
            Argument(name=arg.keyword, value=value, span=span)
            for arg, span, value in self.index.arguments(call)
        )

    def resolve(self, expression: ast.expr, scope: Scope) -> list[Mark]:
        """Every knob ``expression`` applies, with spans at the use site."""
        return [mark for mark in self.applied(expression, scope) if mark.kind != "marker"]

    def applied(self, expression: ast.expr, scope: Scope) -> list[Mark]:
        """Every mark ``expression`` applies, knobs and plain markers (parametrize,
        usefixtures) alike: each is reached the same way, whatever its name."""
        return self._resolve(expression, scope, self.index.span(expression), (), 0)

    def _resolve(
        self,
        expression: ast.expr,
        scope: Scope,
        use: Span,
        via: tuple[str, ...],
        depth: int,
    ) -> list[Mark]:
        if depth > MAX_DEPTH:
            return []
        if isinstance(expression, ast.List | ast.Tuple):
            marks: list[Mark] = []
            for element in expression.elts:
                value = element.value if isinstance(element, ast.Starred) else element
                marks += self._resolve(value, scope, use, via, depth + 1)
            return marks
        if isinstance(expression, ast.IfExp):
            # `pytest.mark.skip(...) if is_rocm() else (lambda f: f)`: each branch
            # applies where its side of the condition holds.
            condition = self.index.text(expression.test)
            return [
                *_guarded(
                    self._resolve(expression.body, scope, use, via, depth + 1), quoted(condition)
                ),
                *_guarded(
                    self._resolve(expression.orelse, scope, use, via, depth + 1),
                    negated(condition),
                ),
            ]
        if isinstance(expression, ast.BinOp) and isinstance(expression.op, ast.Add):
            # `pytestmark = common_marks + [pytest.mark.flaky]`
            return [
                *self._resolve(expression.left, scope, use, via, depth + 1),
                *self._resolve(expression.right, scope, use, via, depth + 1),
            ]
        return self._reference(expression, scope, use, via, depth)

    def _reference(
        self,
        expression: ast.expr,
        scope: Scope,
        use: Span,
        via: tuple[str, ...],
        depth: int,
    ) -> list[Mark]:
        """The marks a name or a call applies: pytest's own, the flaky package's and
        unittest's decorators, retry decorators, and aliases (assigned, defined as a
        function, or imported from another module)."""
        call = expression if isinstance(expression, ast.Call) else None
        target = call.func if call is not None else expression
        arguments = self.arguments(call) if call is not None else ()
        definition = self.index.span(expression) if via else None
        comment = self.index.comment_on(use.line)

        def make(kind: MarkKind, name: str, table: Parametrized | None = None) -> list[Mark]:
            mark = Mark(kind, name, arguments, call is None, use, scope, via, definition, comment)
            return [mark if table is None else replace(mark, table=table)]

        qualified = self.qualify(target) or self._earlier(target, via)
        if qualified is not None:
            if qualified.startswith("pytest.mark."):
                name = qualified[len("pytest.mark.") :]
                if "." in name:
                    return []
                return make(mark_kind(name) or "marker", name, self._table(name, call))
            if qualified in UNITTEST_DECORATORS:
                name = "unittest." + qualified.rsplit(".", 1)[-1]
                return make(UNITTEST_DECORATORS[qualified], name)
            if qualified in RETRY_DECORATORS:
                return make("retry-decorator", qualified)
            own = self._own_retry(qualified, target, arguments, call is None, use, scope, via)
            if own is not None and judged(own):
                return own or make(_kind_of(qualified), qualified)
            imported = self.external(qualified, self.index.path)
            if imported is None:
                return own or []
            if call is not None and any(_defaulted(mark, call) for mark in imported):
                return make("retry-decorator", qualified)  # read with defaults the call sets
            label = f"{dotted(target)} ({qualified})"
            written = self.index.text(expression)
            return [
                replace(mark, written=written) if mark.written else mark
                for mark in self._applied(
                    imported, call, arguments, use, scope, (*via, label), comment
                )
            ] or (own or [])
        local = dotted(target)
        if local is None:
            return []
        if local in self.retry_names:
            readings = self.retries.named(local, arguments, call is None, True) or ()
            own = retry_marks(readings, local, arguments, call is None, use, scope, via, comment)
            return own or make("retry-decorator", local)
        if "." in local:
            return []
        return self._alias(local, call, arguments, use, scope, via, depth)

    def _earlier(self, target: ast.expr, via: tuple[str, ...]) -> str | None:
        """What a name meant before the module bound it again, read inside its own new
        value (``from tests.utils import flaky`` then ``flaky = flaky(max_runs=3)``)."""
        name = dotted(target) or ""
        head, _, rest = name.partition(".")
        earlier = self.index.shadowed.get(head) if head in via else None
        return None if earlier is None else f"{earlier}.{rest}" if rest else earlier

    def _own_retry(
        self,
        qualified: str,
        target: ast.expr,
        arguments: tuple[Argument, ...],
        bare: bool,
        use: Span,
        scope: Scope,
        via: tuple[str, ...],
    ) -> list[Mark] | None:
        """The marks of a retry decorator another module of the repository defines,
        read from its code; empty for a configured name or the flaky package's
        ``flaky`` that is none (a `flaky` in the repository's own flaky.py is not the
        package's), None for any other name."""
        configured = qualified in self.retry_names
        own = imported_retries(
            self.definitions(qualified, self.index.path),
            (qualified, dotted(target) or qualified, configured),
            arguments,
            bare,
            (use, scope, via, self.index.comment_on(use.line)),
        )
        if own or configured or qualified == FLAKY_PACKAGE_DECORATOR:
            return own
        return None

    def _alias(
        self,
        name: str,
        call: ast.Call | None,
        arguments: tuple[Argument, ...],
        use: Span,
        scope: Scope,
        via: tuple[str, ...],
        depth: int,
    ) -> list[Mark]:
        """The marks a local name stands for: its assignment or function definition, or
        each of the definitions in the branches of an ``if``, under its own condition."""
        alternatives = self.index.alternatives.get(name)
        if alternatives is not None and len(alternatives) > 1:
            found: list[Mark] = []
            for alternative, guard in alternatives:
                found += _guarded(
                    self._definition(name, alternative, call, arguments, use, scope, via, depth),
                    guard,
                )
            return found
        defined: ast.expr | Function | None = self.index.assignments.get(name)
        if defined is None:
            defined = self.index.functions.get(name)
        if defined is None:
            return []
        return self._definition(name, defined, call, arguments, use, scope, via, depth)

    def _definition(
        self,
        name: str,
        value: ast.expr | Function,
        call: ast.Call | None,
        arguments: tuple[Argument, ...],
        use: Span,
        scope: Scope,
        via: tuple[str, ...],
        depth: int,
    ) -> list[Mark]:
        """The marks one definition of ``name`` stands for: an alias, or a wrapper."""
        comment = self.index.comment_on(use.line)
        if isinstance(value, ast.expr):
            inner = self._resolve(value, scope, use, (*via, name), depth + 1)
            return self._applied(inner, call, arguments, use, scope, (), comment)
        written = self.index.text(call) if call is not None else name
        marks = self.factory_marks(value, scope, use, (*via, f"{name}()"), depth, written)
        if call is not None and any(_defaulted(mark, call) for mark in marks):
            span = self.index.span(call)
            return [Mark("retry-decorator", name, arguments, False, use, scope, via, span, comment)]
        if marks:
            return marks
        readings = self.retries.readings(value, arguments, call is None)
        return retry_marks(readings, name, arguments, call is None, use, scope, via, comment)

    def factory_marks(
        self,
        function: Function,
        scope: Scope,
        use: Span,
        via: tuple[str, ...] = (),
        depth: int = 0,
        written: str = "",
    ) -> list[Mark]:
        """The marks a wrapper or a mark factory applies; a mark whose condition uses
        the factory's own names is quoted as ``written``, the call at the use site."""
        marks = []
        for returned, defaults in returned_expressions(self.index, function):
            # A wrapper's decorator read with the factory's defaults says so.
            step = (f"{function.name} with its default {', '.join(defaults)}",) if defaults else ()
            marks += self._resolve(returned, scope, use, (*via, *step), depth + 1)
        bound = factory_names(function)
        return [
            replace(mark, written=written or function.name) if mentions(mark, bound) else mark
            for mark in marks
        ]

    def _applied(
        self,
        marks: Sequence[Mark],
        call: ast.Call | None,
        arguments: tuple[Argument, ...],
        use: Span,
        scope: Scope,
        via: tuple[str, ...],
        comment: str,
    ) -> list[Mark]:
        """Marks reached through an alias, re-anchored at the use site.

        A bare alias that is then called (``fl = pytest.mark.flaky`` then
        ``@fl(reruns=2)``) takes the call's arguments.
        """
        result = []
        for mark in marks:
            updated = replace(
                mark,
                span=use,
                scope=scope,
                via=(*via, *mark.via),
                definition=mark.definition or mark.span,
                comment=comment,
            )
            if call is not None and mark.bare and arguments:
                table = self._table(mark.name, call) if mark.kind == "marker" else None
                updated = replace(updated, arguments=arguments, bare=False, table=table)
            result.append(updated)
        return result

    def _table(self, name: str, call: ast.Call | None) -> Parametrized | None:
        """What a ``parametrize`` call of this module makes of the tests it marks."""
        if name != PARAMETRIZE or call is None:
            return None
        return parametrized(self.index, call, lambda marks: self.resolve(marks, "param"))


def _kind_of(qualified: str) -> MarkKind:
    return "flaky-decorator" if qualified == FLAKY_PACKAGE_DECORATOR else "retry-decorator"


def _defaulted(mark: Mark, call: ast.Call) -> bool:
    """Whether a mark was read with a default of the decorator's that ``call`` may set
    (``@retry_failed(extended=True)`` where ``extended=False`` was read); a plain
    marker (a parametrize the wrapper applies) is no knob to count."""
    if mark.kind == "marker":
        return False
    for step in mark.via:
        _, found, defaults = step.partition(" with its default ")
        if found:
            named = {item.split("=", 1)[0] for item in defaults.split(", ")}
            if call.args or any(k.arg is None or k.arg in named for k in call.keywords):
                return True
    return False


def _guarded(marks: list[Mark], guard: str) -> list[Mark]:
    return [replace(mark, guards=(*mark.guards, guard)) for mark in marks]
