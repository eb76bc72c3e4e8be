"""The line length a Python file is formatted to, and a call wrapped to fit it.

A fix that writes a longer marker (a rerun marker quarantined as
``pytest.mark.xfail(strict=False, reason=...)``) must not leave a line that the
project's formatter would rewrap: the length is the one its formatter reads,
ruff's ``line-length`` (``ruff.toml``, ``.ruff.toml``, ``[tool.ruff]``) or
black's (``[tool.black]``) in the nearest configuration file above the module,
else ruff's and black's default of 88. The wrapping is ruff format's for a call:
the arguments on one indented line when they fit there, else one per line with
a trailing comma.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detlint.fixes.source_text import SourceText

DEFAULT_LINE_LENGTH = 88
_FILES = (".ruff.toml", "ruff.toml", "pyproject.toml")


def line_length(path: Path) -> int:
    """The line length the formatter of the file at ``path`` keeps to."""
    return _directory_length(os.path.abspath(path.parent))


@functools.lru_cache(maxsize=64)
def _directory_length(directory: str) -> int:
    for name in _FILES:
        found = _configured(Path(directory) / name)
        if found is not None:
            return found
    parent = os.path.dirname(directory)
    if parent == directory:
        return DEFAULT_LINE_LENGTH
    return _directory_length(parent)


def _configured(path: Path) -> int | None:
    """The line length a configuration file sets; None when it is not there or says
    nothing of it (a ``pyproject.toml`` without a ruff or black table is passed by,
    as ruff passes it by)."""
    from detlint.base.toml_reader import TOMLDecodeError, load_toml

    try:
        document = load_toml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, TOMLDecodeError):
        return None
    if path.name != "pyproject.toml":
        tables = [document]
    else:
        tool = document.get("tool")
        tool = tool if isinstance(tool, dict) else {}
        tables = [table for table in (tool.get("ruff"), tool.get("black")) if table is not None]
        if not tables:
            return None
    for table in tables:
        value = table.get("line-length") if isinstance(table, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_LINE_LENGTH


def file_limit(read: object, path: str) -> int:
    """The line length of the file a fix reads at ``path`` through ``read`` (the
    default when the reader does not say which directory the paths are in)."""
    cwd = getattr(read, "cwd", None)
    return line_length(cwd / path) if isinstance(cwd, Path) else DEFAULT_LINE_LENGTH


def fitted_call(
    source: SourceText, start: int, end: int, callee: str, arguments: list[str], limit: int
) -> str:
    """``callee(arguments)`` to replace ``source.text[start:end]``: on one line, or
    wrapped when the line fitted ``limit`` and the call would not."""
    content = f"{callee}({', '.join(arguments)})"
    first, last = source.position(start)[0], source.position(end)[0]
    line_start, line_end = source.line_range(first)[0], source.line_range(last)[1]
    before, after = source.text[line_start:start], source.text[end:line_end].rstrip("\r\n")
    fitted = first == last and len(before) + (end - start) + len(after) <= limit
    if not fitted or len(before + content + after) <= limit:
        return content
    indent = before[: len(before) - len(before.lstrip(" \t"))]
    return wrapped_call(callee, arguments, indent, limit, source.line_end(start))


def wrapped_call(callee: str, arguments: list[str], indent: str, limit: int, newline: str) -> str:
    """``callee(arguments)`` as ruff format writes it at ``indent`` within ``limit``
    columns, where it does not fit on one line."""
    inner = indent + "    "
    joined = ", ".join(arguments)
    if len(inner) + len(joined) <= limit:
        return f"{callee}({newline}{inner}{joined}{newline}{indent})"
    lines = "".join(f"{inner}{argument},{newline}" for argument in arguments)
    return f"{callee}({newline}{lines}{indent})"
