"""Skips and xfails written as entries of a data list that a test's decorator consumes.

PyTorch and the suites that port its tests (functorch, torch-xpu-ops, executorch,
vendor backends) turn off some instances of an op-parametrized test by listing them:
``@skipOps("TestOperators", "test_vjp", {skip("matmul"),  # flaky``, an entry
``decorate("op", decorator=unittest.skipIf(IS_MACOS, "flaky"))`` or
``DecorateInfo(unittest.skip("Flaky on ROCm"), ...)``. Each entry skips (or expects to
fail) the instances it names and no others, so it is read as a mark of its own, like
a ``pytest.param`` mark, whose count of instances is not known statically: the op
database that makes them is code detlint does not run.

A collection counts only when a decorator of the test receives it, written there or
through a module-level name, ``name.union({...})`` or ``a | b``: a set that nothing
passes anywhere is dead and skips nothing. The reason is the skip's own string when
it has one (``unittest.skip("Flaky on ROCm")``), else the ``#`` comment on the entry's
lines; ``skip("matmul")``'s strings name the op and its variant, not a reason.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import replace

from detlint.readers.python.facts import Mark, MarkKind
from detlint.readers.python.marks import MarkResolver
from detlint.readers.python.module_index import ModuleIndex
from detlint.readers.python.names import dotted

_ENTRY_KINDS = ("skip", "skipif", "unittest-skip", "xfail", "unittest-xfail")
# functorch's ``skip(op)`` is ``unittest.skip``, its ``xfail(op)`` ``unittest.expectedFailure``.
_OP_ENTRIES: dict[str, tuple[MarkKind, str]] = {
    "skip": ("unittest-skip", "unittest.skip"),
    "xfail": ("unittest-xfail", "unittest.expectedFailure"),
}
_WRAPPING = ("set", "frozenset", "list", "tuple", "sorted")
_DEPTH = 8  # names bound to names: enough for real suites, and no loop on a cycle


def entry_marks(
    index: ModuleIndex, resolver: MarkResolver, decorators: Sequence[ast.expr]
) -> tuple[Mark, ...]:
    """The skip and xfail entries of the collections ``decorators`` receive, each as a
    mark at the entry's span with ``Mark.entry`` naming what it applies to."""
    found: list[Mark] = []
    for decorator in decorators:
        if not isinstance(decorator, ast.Call):
            continue
        for argument in (*decorator.args, *(keyword.value for keyword in decorator.keywords)):
            if isinstance(argument, ast.Starred):
                argument = argument.value
            for entry in _entries(index, argument, _DEPTH):
                found += _entry_marks(index, resolver, entry)
    return tuple(found)


def _entries(index: ModuleIndex, node: ast.expr, depth: int) -> Iterator[ast.Call]:
    """The calls written as elements of the collection ``node`` stands for."""
    if depth <= 0:
        return
    if isinstance(node, ast.Set | ast.List | ast.Tuple):
        for element in node.elts:
            if isinstance(element, ast.Starred):
                yield from _entries(index, element.value, depth - 1)
            elif isinstance(element, ast.Call):
                yield element
    elif isinstance(node, ast.Name):
        value = index.assignments.get(node.id)
        if value is not None:
            yield from _entries(index, value, depth - 1)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr | ast.Add):
        yield from _entries(index, node.left, depth - 1)
        yield from _entries(index, node.right, depth - 1)
    elif isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "union":
            for part in (func.value, *node.args):
                yield from _entries(index, part, depth - 1)
        elif isinstance(func, ast.Name) and func.id in _WRAPPING and len(node.args) == 1:
            yield from _entries(index, node.args[0], depth - 1)


def _entry_marks(index: ModuleIndex, resolver: MarkResolver, call: ast.Call) -> list[Mark]:
    """The skips and xfails one entry applies (none for an entry of any other kind)."""
    span = index.span(call)
    comment = _comment(index, span.line, span.end_line)
    name = call.func.id if isinstance(call.func, ast.Name) else dotted(call.func) or ""
    last = name.rsplit(".", 1)[-1]
    if isinstance(call.func, ast.Name) and last in _OP_ENTRIES:
        kind, resolved = _OP_ENTRIES[last]
        entry = _named(call)
        return [Mark(kind, resolved, (), True, span, "function", comment=comment, entry=entry)]
    if last == "decorate":
        inner = next((k.value for k in call.keywords if k.arg == "decorator"), None)
    elif last == "DecorateInfo" and call.args:
        inner = call.args[0]
    else:
        return []
    if inner is None:
        return []
    marks = [m for m in resolver.applied(inner, "function") if m.kind in _ENTRY_KINDS]
    entry = _named(call) if last == "decorate" else _decorate_info(call)
    return [replace(m, span=span, comment=comment, entry=entry) for m in marks]


def _named(call: ast.Call) -> str:
    """What an entry applies to, as a finding names it: "the 'matmul' instances", with
    its variant and the keywords that narrow it ("dtypes=(torch.float32,)")."""
    strings = [
        a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
    ]
    if not strings:
        return "the instances the entry names"
    what = repr(strings[0])
    if len(strings) > 1 and strings[1]:
        what += f" (variant {strings[1]!r})"
    narrowing = [
        f"{k.arg}={ast.unparse(k.value)}"
        for k in call.keywords
        if k.arg in ("dtypes", "device_type")
    ]
    if narrowing:
        what += f" ({', '.join(narrowing)})"
    return f"the {what} instances"


def _decorate_info(call: ast.Call) -> str:
    """What a ``DecorateInfo(decorator, cls_name, test_name, ...)`` applies to: the
    instances of the test it names that the decorated test makes."""
    names = [ast.unparse(a) for a in call.args[1:3]]
    if not names:
        return "the instances the DecorateInfo entry names"
    return f"the instances the DecorateInfo({', '.join(names)}) entry names"


def _comment(index: ModuleIndex, first: int, last: int) -> str:
    """The ``#`` comments on an entry's own lines, joined: where a list of skips gives
    the reason of each (``skip("matmul"),  # flaky needs investigation``)."""
    found = [index.comment_on(line) for line in range(first, last + 1)]
    return " ".join(comment for comment in found if comment)
