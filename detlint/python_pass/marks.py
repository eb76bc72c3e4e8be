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
from dataclasses import dataclass, replace

from detlint.python_pass.facts import Argument, Mark, MarkKind, Scope
from detlint.python_pass.module_index import Function, ModuleIndex
from detlint.python_pass.names import dotted
from detlint.span import Span

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
RETRY_DECORATORS = frozenset(
    {
        "tenacity.retry",
        "backoff.on_exception",
        "backoff.on_predicate",
        "retrying.retry",
        "retry.retry",
        "retry.api.retry",
    }
)
MAX_DEPTH = 6

# (qualified name, importer path) -> marks defined in another module, or None.
ExternalLookup = Callable[[str, str], tuple[Mark, ...] | None]


def no_external(qualified: str, importer: str) -> tuple[Mark, ...] | None:
    return None


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

    def arguments(self, call: ast.Call) -> tuple[Argument, ...]:
        return tuple(
            Argument(name=arg.keyword, value=value, span=span)
            for arg, span, value in self.index.arguments(call)
        )

    def resolve(self, expression: ast.expr, scope: Scope) -> list[Mark]:
        """Every mark ``expression`` applies, with spans at the use site."""
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
        call = expression if isinstance(expression, ast.Call) else None
        target = call.func if call is not None else expression
        arguments = self.arguments(call) if call is not None else ()
        here = self.index.span(expression)
        definition = here if via else None
        comment = self.index.comment_on(use.line)

        def make(kind: MarkKind, name: str) -> list[Mark]:
            return [Mark(kind, name, arguments, call is None, use, scope, via, definition, comment)]

        qualified = self.index.imports.qualify(target)
        if qualified is not None:
            if qualified.startswith("pytest.mark."):
                name = qualified[len("pytest.mark.") :]
                kind = mark_kind(name) if "." not in name else None
                return make(kind, name) if kind is not None else []
            if qualified == FLAKY_PACKAGE_DECORATOR:
                return make("flaky-decorator", qualified)
            if qualified in RETRY_DECORATORS or qualified in self.retry_names:
                return make("retry-decorator", qualified)
            found = self.external(qualified, self.index.path)
            if found is not None:
                label = f"{dotted(target)} ({qualified})"
                return self._applied(found, call, arguments, use, scope, (*via, label), comment)
            return []
        local = dotted(target)
        if local is None:
            return []
        name = local
        if name in self.retry_names:
            return make("retry-decorator", name)
        if "." in name:
            return []
        if name in self.index.assignments:
            inner = self._resolve(self.index.assignments[name], scope, use, (*via, name), depth + 1)
            return self._applied(inner, call, arguments, use, scope, (), comment)
        function = self.index.functions.get(name)
        if function is not None:
            marks = []
            for returned in returned_expressions(self.index, function):
                marks += self._resolve(returned, scope, use, (*via, f"{name}()"), depth + 1)
            return marks
        return []

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
                updated = replace(updated, arguments=arguments, bare=False)
            result.append(updated)
        return result


def returned_expressions(index: ModuleIndex, function: Function) -> list[ast.expr]:
    """What a mark wrapper returns: ``return pytest.mark.flaky(reruns=2)(fn)`` -> the mark.

    Only the function's own top-level ``return`` statements are read; a call
    applying a mark to the wrapped function is unwrapped to the mark.
    """
    found: list[ast.expr] = []
    if not index.is_block(function.body):
        return found
    for statement in function.body:
        if isinstance(statement, ast.Return) and statement.value is not None:
            value = statement.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Call):
                value = value.func  # pytest.mark.flaky(reruns=2)(fn)
            found.append(value)
    return found
