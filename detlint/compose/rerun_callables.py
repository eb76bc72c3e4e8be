"""What a flaky ``rerun_filter`` callable decides about an assertion failure, read from
its source without running it.

The flaky package calls ``rerun_filter(err, name, test, plugin)`` with ``err`` the
``(type, value, traceback)`` of the failure and reruns the test when it returns a true
value. Most filters written inline are a lambda testing the exception's class:
``issubclass(err[0], RetryTestError)``, ``isinstance(err[1], OSError)``,
``err[0] in (TimeoutError, ConnectionError)``, negated or joined by ``and``/``or``.
Those are decided here for an AssertionError (a violation) with the same exception-name
reading the other filters use; anything else stays undecided (None).
"""

from __future__ import annotations

import ast

from detlint.readers.python.retry_libraries import catches_assertion

# Which element of ``err`` each test reads: the class, or the exception itself.
_TYPE, _VALUE = 0, 1


def reruns_assertions(source: str) -> bool | None:
    """Whether the filter written as ``source`` reruns an assertion failure: True, False,
    or None when its source is not a lambda of the shapes read here."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError:
        return None
    function = tree.body
    if not isinstance(function, ast.Lambda):
        return None
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    # ``lambda *args: True`` decides without naming the failure: no name matches "".
    return _decides(function.body, positional[0].arg if positional else "")


def _decides(node: ast.expr, err: str) -> bool | None:
    """Three-valued reading of a filter's expression for an AssertionError."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _decides(node.operand, err)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        values = [_decides(value, err) for value in node.values]
        deciding = isinstance(node.op, ast.Or)  # True settles an `or`, False an `and`
        if deciding in values:
            return deciding
        return None if None in values else not deciding
    if isinstance(node, ast.Call):
        return _class_check(node, err)
    if isinstance(node, ast.Compare):
        return _membership(node, err)
    return None


def _class_check(call: ast.Call, err: str) -> bool | None:
    """``issubclass(err[0], X)`` and ``isinstance(err[1], X)``: subclasses match."""
    if not isinstance(call.func, ast.Name) or len(call.args) != 2 or call.keywords:
        return None
    element = {"issubclass": _TYPE, "isinstance": _VALUE}.get(call.func.id)
    if element is None or _element(call.args[0], err) != element:
        return None
    names = _exception_names(call.args[1])
    return None if names is None else catches_assertion(names)


def _membership(compare: ast.Compare, err: str) -> bool | None:
    """``err[0] in (X, Y)``, ``err[0] is X``, ``err[0] == X`` and their negations: the
    class itself is compared, so only AssertionError matches."""
    if len(compare.ops) != 1 or _element(compare.left, err) != _TYPE:
        return None
    operator = compare.ops[0]
    names = _exception_names(compare.comparators[0])
    if names is None:
        return None
    exact = catches_assertion(names, subclasses=False)
    if exact is None:
        return None
    if isinstance(operator, ast.In | ast.Is | ast.Eq):
        return exact
    if isinstance(operator, ast.NotIn | ast.IsNot | ast.NotEq):
        return not exact
    return None


def _element(node: ast.expr, err: str) -> int | None:
    """Which element of the filter's ``err`` argument ``node`` reads (``err[0]``)."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == err
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, int)
    ):
        return node.slice.value
    return None


def _exception_names(node: ast.expr) -> list[str] | None:
    """The class names a filter compares against: one name, or a tuple, list or set."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        found: list[str] = []
        for item in node.elts:
            names = _exception_names(item)
            if names is None:
                return None
            found += names
        return found or None
    if isinstance(node, ast.Name | ast.Attribute):
        return [ast.unparse(node)]
    return None
