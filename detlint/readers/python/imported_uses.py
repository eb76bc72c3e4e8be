"""Which imported names a file's bytes apply to its tests, for the prefilter.

A test file can hold no knob token of its own and still carry knobs: ``@skip_on_win``
imported from a helper that defines it, ``class TestX(SomeTestsMixin)`` inheriting
marked tests from another module, ``pytestmark = [gpu_only]``. The byte prefilter
rules such a file out; this finds, without parsing, the names it imports from other
modules and uses as a decorator, a base class or a module mark, so that the
repository can look at those modules' bytes instead (``PythonRepository``). A name
it calls counts too: a function it imports may carry a retry decorator around the
checks it holds (``ensure_ready(1)``, ``utils.ensure_ready(1)``).
"""

from __future__ import annotations

import re

# Only what tests can see: imports at the top level (or one level into a `try:`/`if`),
# decorators of module functions and of methods, classes at the top level. A class
# defined inside a test to subclass a library class is no test class.
_FROM_IMPORT = re.compile(
    rb"^(?:    |\t)?from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M
)
_DECORATOR = re.compile(rb"^(?:    |\t)?@[ \t]*([A-Za-z_]\w*)", re.M)
_BASES = re.compile(rb"^class[ \t]+\w+[ \t]*\(([^)]*)\)", re.M)
_MODULE_MARK = re.compile(rb"^pytestmark[ \t]*\+?=([^\n]*)", re.M)
_WORD = re.compile(rb"[A-Za-z_]\w*")
# What follows a called name, or the head of a called attribute chain
# (``utils.ensure_ready(``): the chain's attributes, then the call's parenthesis.
_CALL_TAIL = re.compile(rb"(?:\.[A-Za-z_]\w*)*[ \t]*\(")
# The bytes that cannot come just before a called name that heads its chain.
_NAME_BYTES = frozenset(
    bytes([byte]) for byte in b"._0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)
_ALIAS = re.compile(rb"([A-Za-z_]\w*)(?:[ \t]+as[ \t]+([A-Za-z_]\w*))?")


def applied_imports(data: bytes) -> list[tuple[str, str, str, bool]]:
    """(module as written, name in it, name in the file, whether it is a base class) for
    each imported name the file uses as a decorator, a base class or in a module
    ``pytestmark``."""
    if b"import" not in data:
        return []
    applied = set(_DECORATOR.findall(data))
    for marks in _MODULE_MARK.findall(data):
        applied.update(_WORD.findall(marks))
    bases = {word for found in _BASES.findall(data) for word in _WORD.findall(found)}
    if not applied and not bases:
        return []
    found: list[tuple[str, str, str, bool]] = []
    for module, names in _FROM_IMPORT.findall(data):
        for name, local in _ALIAS.findall(names.strip(b"()")):
            used = local or name
            if used in applied or used in bases:
                found.append((_text(module), _text(name), _text(used), used in bases))
    return found


def called_imports(data: bytes) -> list[tuple[str, str, str, bool]]:
    """``applied_imports`` for each imported name the file calls (never a base class)."""
    if b"import" not in data:
        return []
    found: list[tuple[str, str, str, bool]] = []
    for module, names in _FROM_IMPORT.findall(data):
        for name, local in _ALIAS.findall(names.strip(b"()")):
            used = local or name
            if _called(data, used):
                found.append((_text(module), _text(name), _text(used), False))
    return found


def _called(data: bytes, name: bytes) -> bool:
    """Whether ``data`` calls ``name`` or an attribute chain it heads (``name(``,
    ``name.attr(``): each place the name is written is looked at, which costs a few
    substring searches where a pattern for every call of the file costs a scan of it."""
    start = data.find(name)
    while start >= 0:
        end = start + len(name)
        if (start == 0 or data[start - 1 : start] not in _NAME_BYTES) and _CALL_TAIL.match(
            data, end
        ):
            return True
        start = data.find(name, end)
    return False


def _text(name: bytes) -> str:
    return name.decode("ascii", "replace")


def imported_from(data: bytes, local: str) -> str | None:
    """What ``from module import name [as local]`` in a file's bytes binds ``local`` to
    ("._flaky.flaky"), read without parsing."""
    wanted = local.encode()
    if wanted not in data:
        return None
    for module, names in _FROM_IMPORT.findall(data):
        for name, alias in _ALIAS.findall(names.strip(b"()")):
            if (alias or name) == wanted:
                joined = module + name if module.strip(b".") == b"" else module + b"." + name
                return _text(joined)
    return None
