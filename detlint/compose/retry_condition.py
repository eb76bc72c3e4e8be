"""pytest-retry's ``condition=``: retrying stops only where the value ``is False``.

pytest-retry 1.7.0 tests ``if condition is False`` and retries otherwise, so ``None``,
``0``, ``""`` and any string retry as ``True`` does (measured: ``condition=""`` and
``condition=os.getenv("UNSET")`` both ran 3 attempts under ``retries=2``). A comparison
or a ``not`` is a bool, and the marker then retries where it holds; a value that is
never a bool (an environment read, ``sys.platform``, a string) retries everywhere.
Other code (a name, a call) may or may not be a bool: it is kept as a condition.
"""

from __future__ import annotations

import ast

from detlint.readers.python.facts import Dynamic, Mark

# Calls and attributes whose value is a string or None, never a bool.
_NEVER_BOOL_CALLS = frozenset(
    {
        "os.getenv",
        "os.environ.get",
        "getenv",
        "environ.get",
        "platform.system",
        "platform.machine",
        "platform.platform",
        "platform.python_version",
        "str",
        "repr",
        "format",
    }
)
_NEVER_BOOL_NAMES = frozenset({"sys.platform", "os.name", "sys.version"})


def never_false(source: str) -> bool:
    """Whether code given as ``condition=`` can never be the object ``False``."""
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return False
    return _never_bool(node)


def _never_bool(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is not False
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BoolOp):  # `a or b` is one of its operands
        return all(_never_bool(value) for value in node.values)
    if isinstance(node, ast.Call):
        return ast.unparse(node.func) in _NEVER_BOOL_CALLS
    if isinstance(node, ast.Subscript):  # os.environ["X"]
        return ast.unparse(node.value) in ("os.environ", "environ")
    if isinstance(node, ast.Attribute):
        return ast.unparse(node) in _NEVER_BOOL_NAMES
    return False


def retry_condition_note(mark: Mark) -> str | None:
    """What a marker's ``condition=`` does under pytest-retry, when it is code whose value
    is never ``False``: it does not limit where the test is retried."""
    if not mark.has_keyword("condition"):
        return None
    value = mark.keyword("condition")
    if not isinstance(value, Dynamic) or not never_false(value.source):
        return None
    return (
        f"pytest-retry stops retrying only where `condition` is False, and "
        f"`{value.source}` never is (a string or None): it retries everywhere"
    )
