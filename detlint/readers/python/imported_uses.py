"""Which imported names a file's bytes apply to its tests, for the prefilter.

A test file can hold no knob token of its own and still carry knobs: ``@skip_on_win``
imported from a helper that defines it, ``class TestX(SomeTestsMixin)`` inheriting
marked tests from another module, ``pytestmark = [gpu_only]``. The byte prefilter
rules such a file out; this finds, without parsing, the names it imports from other
modules and uses as a decorator, a base class or a module mark, so that the
repository can look at those modules' bytes instead (``PythonRepository``).
"""

from __future__ import annotations

import re

_FROM_IMPORT = re.compile(
    rb"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M
)
_DECORATOR = re.compile(rb"^[ \t]*@[ \t]*([A-Za-z_]\w*)", re.M)
_BASES = re.compile(rb"^[ \t]*class[ \t]+\w+[ \t]*\(([^)]*)\)", re.M)
_MODULE_MARK = re.compile(rb"^pytestmark[ \t]*\+?=([^\n]*)", re.M)
_WORD = re.compile(rb"[A-Za-z_]\w*")
_ALIAS = re.compile(rb"([A-Za-z_]\w*)(?:[ \t]+as[ \t]+([A-Za-z_]\w*))?")


def applied_imports(data: bytes) -> list[tuple[str, str, str]]:
    """(module as written, name in it, name in the file) for each imported name the
    file uses as a decorator, a base class or in a module ``pytestmark``."""
    if b"import" not in data:
        return []
    used = set(_DECORATOR.findall(data))
    for bases in _BASES.findall(data):
        used.update(_WORD.findall(bases))
    for marks in _MODULE_MARK.findall(data):
        used.update(_WORD.findall(marks))
    if not used:
        return []
    found: list[tuple[str, str, str]] = []
    for module, names in _FROM_IMPORT.findall(data):
        for name, local in _ALIAS.findall(names.strip(b"()")):
            if (local or name) in used:
                found.append((_text(module), _text(name), _text(local or name)))
    return found


def _text(name: bytes) -> str:
    return name.decode("ascii", "replace")
