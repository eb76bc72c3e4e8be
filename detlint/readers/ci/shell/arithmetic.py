"""Shell arithmetic as the exit-status interpreter needs it: the counters of retry loops.

A retry written as ``i=1; while true; do pytest && break || { [[ $i -le 3 ]] || exit 1;
((i++)); }; done`` stops after a number of rounds that only the counter says, so the
interpreter (``simulation.py``) evaluates ``((i++))``, ``let i+=1`` and ``i=$((i+1))``
over the variables it knows. Integers, the usual operators and assignments to a name
are read; anything else (an unknown variable, a function, a string) is unknown, and an
assignment to an unknown value forgets the variable rather than guess it.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, MutableMapping
from typing import Any

# The interpreter's variables (strings, or the statuses saved in them: those are unknown
# here); Any because its value type lives in ``state.py``, which imports this module.
Values = MutableMapping[str, Any]

_INCREMENT = re.compile(r"\s*(\+\+|--)?\s*([A-Za-z_]\w*)\s*(\+\+|--)?\s*")
_ASSIGN = re.compile(r"\s*([A-Za-z_]\w*)\s*([-+*/%]?)=(?!=)(.*)", re.DOTALL)
_EXPANSION = re.compile(r"\$\{?([A-Za-z_]\w*)\}?")
_BINARY: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
    ast.BitXor: operator.xor,
}
_COMPARE: dict[type[ast.cmpop], Callable[[int, int], bool]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


def arithmetic_command(text: str) -> str | None:
    """The expression of ``(( expr ))``, or None when ``text`` is not one."""
    stripped = text.strip()
    if stripped.startswith("((") and stripped.endswith("))"):
        return stripped[2:-2]
    return None


def expansion(text: str) -> str | None:
    """The expression of ``$(( expr ))``, or None when ``text`` is not one."""
    if text.startswith("$((") and text.endswith("))"):
        return text[3:-2]
    return None


def evaluate(expression: str, variables: Values) -> int | None:
    """The value of ``expression`` (None: unknown), after its assignments are made in
    ``variables`` (``i++``, ``i+=2``, ``delay=delay*2``)."""
    increment = _INCREMENT.fullmatch(expression)
    if increment is not None and bool(increment.group(1)) != bool(increment.group(3)):
        pre, name, post = increment.groups()
        old = _integer(variables.get(name))
        if old is None:
            variables.pop(name, None)
            return None
        new = old + (1 if (pre or post) == "++" else -1)
        variables[name] = str(new)
        return new if pre else old
    assigned = _ASSIGN.fullmatch(expression)
    if assigned is not None:
        name, op, right = assigned.groups()
        value = _value(right, variables)
        if value is not None and op:
            value = _value(f"{name} {op} ({right})", variables)
        if value is None:
            variables.pop(name, None)
        else:
            variables[name] = str(value)
        return value
    return _value(expression, variables)


def _integer(value: object) -> int | None:
    if not isinstance(value, str):
        return None
    try:
        return int(value.strip() or "0")
    except ValueError:
        return None


def _value(expression: str, variables: Values) -> int | None:
    text = _EXPANSION.sub(lambda m: m.group(1), expression)
    text = text.replace("&&", " and ").replace("||", " or ")
    text = re.sub(r"!(?!=)", " not ", text)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None
    return _node(tree.body, variables)


def _node(node: ast.expr, variables: Values) -> int | None:
    """An integer expression's value; division and modulo truncate toward zero as in C."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, ast.Name):
        return _integer(variables.get(node.id))
    if isinstance(node, ast.UnaryOp):
        operand = _node(node.operand, variables)
        if operand is None:
            return None
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.Not):
            return int(not operand)
        return operand if isinstance(node.op, ast.UAdd) else None
    if isinstance(node, ast.BinOp):
        left, right = _node(node.left, variables), _node(node.right, variables)
        if left is None or right is None:
            return None
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
            if right == 0:
                return None
            quotient = int(left / right)
            return quotient if not isinstance(node.op, ast.Mod) else left - quotient * right
        binary = _BINARY.get(type(node.op))
        return None if binary is None else binary(left, right)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = _node(node.left, variables), _node(node.comparators[0], variables)
        compare = _COMPARE.get(type(node.ops[0]))
        if left is None or right is None or compare is None:
            return None
        return int(compare(left, right))
    if isinstance(node, ast.BoolOp):
        values = [_node(value, variables) for value in node.values]
        if any(value is None for value in values):
            return None
        if isinstance(node.op, ast.And):
            return int(all(values))
        return int(any(values))
    return None
