"""TOML reading on every supported Python: tomllib from 3.11, tomli before."""

from __future__ import annotations

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
