"""TOML reading on every supported Python: tomllib from 3.11, tomli before.

A project's pyproject.toml is read by several readers in one run (pytest's config,
the dependencies, tox's config, detlint's own settings); ``shared_toml`` parses a
text once for all of them.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

TOMLDecodeError = tomllib.TOMLDecodeError


class TOMLNestingError(tomllib.TOMLDecodeError):  # type: ignore[misc, unused-ignore]
    """Arrays or inline tables nested deeper than tomllib's recursive parser can follow:
    read as invalid TOML, so that each reader reports the file as it reports any other
    it cannot parse, instead of the run stopping on a RecursionError."""

    def __init__(self) -> None:
        ValueError.__init__(self, "arrays or inline tables nested too deeply to read")


def load_toml(text: str) -> dict[str, Any]:
    """Parse TOML text; raises TOMLDecodeError (TOMLNestingError for nesting too deep)."""
    try:
        document: dict[str, Any] = tomllib.loads(text)
    except RecursionError:
        raise TOMLNestingError from None
    return document


@functools.lru_cache(maxsize=16)
def shared_toml(text: str) -> dict[str, Any]:
    """``load_toml(text)``, parsed once for every reader of the same text. The document
    is shared: a reader takes values from it and never changes it. Invalid text is
    not kept and raises each time."""
    return load_toml(text)
