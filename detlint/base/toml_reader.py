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


def load_toml(text: str) -> dict[str, Any]:
    """Parse TOML text; raises TOMLDecodeError."""
    document: dict[str, Any] = tomllib.loads(text)
    return document


@functools.lru_cache(maxsize=16)
def shared_toml(text: str) -> dict[str, Any]:
    """``load_toml(text)``, parsed once for every reader of the same text. The document
    is shared: a reader takes values from it and never changes it. Invalid text is
    not kept and raises each time."""
    return load_toml(text)
