"""Reading cache entries back: pickles that can build detlint's facts and nothing else.

A cache entry is detlint's own facts, pickled. A pickle is a program, though: an
ordinary ``pickle.load`` calls whatever callable the stream names, so anyone able
to write one entry (a cache restored from another CI job, a shared directory)
could run code as the user. The facts are frozen data classes, named tuples and
enums of detlint's own, inside tuples, frozensets, dicts and paths; the
unpickler here finds those classes and a short list of plain-data types, and
refuses every other name, so a planted entry can at most fail to load (and is
then treated as absent). Building one of these classes runs no code but its
constructor, which only stores the values.
"""

from __future__ import annotations

import dataclasses
import enum
import io
import pickle

# Plain-data types of the standard library that facts hold.
_PLAIN = frozenset(
    {
        ("builtins", "frozenset"),
        ("builtins", "set"),
        ("builtins", "complex"),
        ("builtins", "bytearray"),
        ("pathlib", "Path"),
        ("pathlib", "PosixPath"),
        ("pathlib", "PurePath"),
        ("pathlib", "PurePosixPath"),
        ("pathlib", "WindowsPath"),
        ("pathlib", "PureWindowsPath"),
        ("datetime", "date"),
        ("datetime", "datetime"),
        ("datetime", "timedelta"),
        ("datetime", "timezone"),
        ("collections", "Counter"),
        ("collections", "OrderedDict"),
    }
)


def is_fact_class(found: object) -> bool:
    """Whether ``found`` is a class of detlint's own that only holds data: a data
    class, a named tuple or an enum."""
    if not isinstance(found, type) or not found.__module__.startswith("detlint."):
        return False
    if dataclasses.is_dataclass(found) or issubclass(found, enum.Enum):
        return True
    return issubclass(found, tuple) and hasattr(found, "_fields")


class _FactsUnpickler(pickle.Unpickler):
    """An unpickler that finds only detlint's fact classes and plain-data types."""

    def find_class(self, module: str, name: str) -> object:
        if (module, name) in _PLAIN:
            return super().find_class(module, name)
        if module == "detlint" or module.startswith("detlint."):
            found = super().find_class(module, name)
            if is_fact_class(found):
                return found
        raise pickle.UnpicklingError(f"a cache entry may not name {module}.{name}")

    def persistent_load(self, pid: object) -> object:
        raise pickle.UnpicklingError("a cache entry holds no persistent reference")


def load(stream: io.BufferedIOBase) -> object:
    """The facts pickled in ``stream``; ``pickle.UnpicklingError`` (or another
    error of a malformed stream) when it names anything else."""
    return _FactsUnpickler(stream).load()


def loads(data: bytes) -> object:
    """The facts pickled in ``data``, as ``load`` reads them."""
    return load(io.BytesIO(data))
