"""Scalar values under the YAML 1.2 core schema, as ruamel.yaml's safe loader resolves them.

The YAML reader composes nodes itself instead of letting ruamel construct Python
objects (construction is slow and raises on duplicate or unhashable keys), so it
resolves plain scalars here: ``true``/``True``/``TRUE`` and the ``false`` forms,
``null``/``~``/empty, ints (with ``_``, ``0b``, ``0o``, ``0x``), floats with
``.inf``/``.nan``. Quoted and block scalars are always strings. A pipeline's
``retry: 2`` and ``soft_fail: true`` must read as the number and the boolean the
CI system sees, while ``"2"`` stays a string, exactly as the CI system's loader does.
"""

from __future__ import annotations

import re

from detlint.readers.yaml.tree import ScalarValue

# YAML 1.2 core schema, exactly as ruamel.yaml's resolver spells it (underscores allowed).
_FLOAT = re.compile(
    r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)"
    r"|[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN)"
)
_INT = re.compile(r"[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?[0-9_]+|[-+]?0x[0-9a-fA-F_]+")
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_NUMBER_START = frozenset("-+.0123456789")
_CORE = "tag:yaml.org,2002:"

RESOLVED_START = _NUMBER_START | frozenset("tTfF~nN")
"""First characters of the plain scalars :func:`resolve_plain` may not return as written:
a non-empty text starting with any other character is a string, so a caller in a hot
loop can skip the call for it."""


def _number(text: str) -> int | float | None:
    """The int or float a plain scalar spells, None when it spells neither."""
    if text.isdigit() and text.isascii():  # most numbers in pipelines: counts, timeouts
        try:
            return int(text)
        except ValueError:  # more digits than int() converts
            return None
    if _FLOAT.fullmatch(text):
        digits = text.replace("_", "").lower()
        sign = -1.0 if digits[0] == "-" else 1.0
        digits = digits.lstrip("+-")
        if digits == ".inf":
            return sign * float("inf")
        if digits == ".nan":
            return float("nan")
        try:
            return sign * float(digits)
        except ValueError:  # "._" matches the pattern but spells no number
            return None
    if _INT.fullmatch(text):
        digits = text.replace("_", "")
        sign = -1 if digits[0] == "-" else 1
        digits = digits.lstrip("+-")
        base = {"0b": 2, "0x": 16, "0o": 8}.get(digits[:2], 10)
        try:
            return sign * int(digits[2:] if base != 10 else digits, base)
        except ValueError:
            return None
    return None


def resolve_plain(text: str) -> ScalarValue:
    """An untagged plain scalar's value under the YAML 1.2 core schema.

    Timestamps stay strings: no reader compares dates, and the tree has no date type.
    """
    if not text:
        return None
    first = text[0]
    if first in _NUMBER_START:
        number = _number(text)
        return text if number is None else number
    if first in "tTfF":
        return _BOOLS.get(text, text)
    if first in "~nN" and text in _NULLS:
        return None
    return text


def resolve_tagged(tag: str, text: str) -> ScalarValue:
    """A scalar with an explicit tag: core-schema tags convert (falling back to the text
    when it does not fit), any other tag (``!reference``, ``!Ref``, ``!``) keeps the text."""
    if not tag.startswith(_CORE):
        return text
    name = tag[len(_CORE) :]
    if name == "null":
        return None
    if name == "bool":
        return _BOOLS.get(text, text)
    if name in ("int", "float"):
        number = _number(text)
        return text if number is None else number
    return text
