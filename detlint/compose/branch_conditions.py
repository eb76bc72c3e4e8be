"""Whether a knob's condition can hold where a test class is defined.

A mixin's ``skipIf(sys.platform == 'win32')`` reaches only the classes that exist on
win32: one defined under ``if sys.platform != 'win32':`` never meets it. detlint
evaluates no code, but two comparisons of the same name with string literals
(``sys.platform``, ``os.name``, ``platform.system()``, through ``==``, ``!=``, ``in``,
``not in`` or ``.startswith``) can be decided together: some string satisfies both, or
none does. Any other pair (``hasattr(selectors, 'EpollSelector')``, two different
names) is left undecided.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from detlint.compose.conditions import condition_code, pytest_conditions, truth
from detlint.readers.python.facts import Branch, Mark

# A string no literal spells: the value of a name that equals none of them.
_OTHER = "\x00"


@dataclass(frozen=True)
class Atom:
    """``name <op> values``, or its negation: ``op`` is "in" (``==`` is "in" one value)
    or "startswith"."""

    name: str
    op: str
    values: tuple[str, ...]
    negated: bool = False

    def holds(self, value: str) -> bool:
        found = value in self.values if self.op == "in" else value.startswith(self.values)
        return found != self.negated


def atom(code: str, holds: bool = True) -> Atom | None:
    """``code`` read as one comparison of a name with string literals (negated where
    ``holds`` is False), or None where it is anything else."""
    try:
        tree = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return None
    while isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not):
        tree, holds = tree.operand, not holds
    found = _comparison(tree) or _startswith(tree)
    if found is None:
        return None
    return Atom(found.name, found.op, found.values, found.negated != (not holds))


def _name(node: ast.expr) -> str | None:
    """A dotted name, or a call of one without arguments (``platform.system()``)."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        inner = _name(node.func)
        return None if inner is None else f"{inner}()"
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _name(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def _strings(node: ast.expr) -> tuple[str, ...] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        found = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        if len(found) == len(node.elts) and all(isinstance(v, str) for v in found):
            return tuple(str(v) for v in found)
    return None


def _comparison(node: ast.expr) -> Atom | None:
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    name, op = _name(node.left), node.ops[0]
    values = _strings(node.comparators[0])
    if name is None or values is None:
        return None
    if isinstance(op, ast.Eq | ast.NotEq) and len(values) == 1:
        return Atom(name, "in", values, isinstance(op, ast.NotEq))
    if isinstance(op, ast.In | ast.NotIn) and not isinstance(node.comparators[0], ast.Constant):
        return Atom(name, "in", values, isinstance(op, ast.NotIn))
    return None


def _startswith(node: ast.expr) -> Atom | None:
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "startswith"
        and len(node.args) == 1
        and not node.keywords
    ):
        return None
    name, values = _name(node.func.value), _strings(node.args[0])
    return None if name is None or values is None else Atom(name, "startswith", values)


def satisfiable(atoms: list[Atom]) -> bool:
    """Whether some one value of their (shared) name makes every comparison hold: one of
    the literals, a prefix they test extended past every literal, or none of them."""
    candidates = {_OTHER} | {value for a in atoms for value in a.values}
    candidates |= {value + _OTHER for a in atoms if a.op == "startswith" for value in a.values}
    return any(all(a.holds(value) for a in atoms) for value in candidates)


def knob_alternatives(mark: Mark) -> tuple[Atom | None, ...] | None:
    """Where a knob applies, as alternatives (it applies where any holds); None where
    it applies wherever the test runs, and a None alternative for code that is no
    comparison detlint reads (or a guard around the mark)."""
    if mark.guards or mark.written:
        return (None,)
    if mark.kind in ("skipif", "xfail"):
        conditions = pytest_conditions(mark)
        holds = True
    elif mark.kind == "unittest-skip" and mark.name != "unittest.skip" and mark.positional():
        conditions = mark.positional()[:1]
        holds = not mark.name.endswith("skipUnless")
    else:
        return None
    codes: list[str] = []
    for value in conditions:
        known = truth(value)
        if known is True:
            return None
        if known is None:
            codes.append(condition_code(value))
    if not codes:
        return None
    return tuple(atom(code, holds) for code in codes)


def reaches(
    alternatives: tuple[Atom | None, ...] | None, branches: tuple[Branch, ...]
) -> bool | None:
    """Whether a knob reaches a class defined under ``branches``: False where every
    alternative of its condition contradicts one of them, True where each alternative
    is decided and one is compatible with every branch, None where that is undecided."""
    if alternatives is None or not branches:
        return True
    read = [atom(branch.code, branch.holds) for branch in branches]
    verdicts = [_alternative(alternative, read) for alternative in alternatives]
    if any(verdict is True for verdict in verdicts):
        return True
    return False if all(verdict is False for verdict in verdicts) else None


def _alternative(alternative: Atom | None, branches: list[Atom | None]) -> bool | None:
    """One alternative against every branch: False where it contradicts one, True where
    every branch compares its name and all can hold at once."""
    if alternative is None:
        return None
    same = [b for b in branches if b is not None and b.name == alternative.name]
    if any(not satisfiable([alternative, branch]) for branch in same):
        return False
    if len(same) != len(branches):
        return None
    return satisfiable([alternative, *same])
