"""Where keys and values are written in a TOML document, which ``tomllib`` does not say.

Findings point at lines: a ``--reruns`` in pyproject.toml's ``addopts``, a tox
command in tox.toml. ``tomllib`` gives values only, so the document is also
scanned here, line by line, for where each key's value starts and ends, and
where each item of an array value is. The scan relies on the document being
valid TOML (the caller has parsed it first); it does not validate.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence

_BARE_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")

KeyLines = dict[tuple[str, ...], tuple[int, int, int]]


def _parse_key(line: str, pos: int) -> tuple[tuple[str, ...], int]:
    """Read a (dotted, possibly quoted) TOML key starting at ``pos``; return it and the end."""
    parts: list[str] = []
    while True:
        while pos < len(line) and line[pos] in " \t":
            pos += 1
        if pos < len(line) and line[pos] in "\"'":
            quote = line[pos]
            end = pos + 1
            while end < len(line) and line[end] != quote:
                end += 2 if quote == '"' and line[end] == "\\" else 1
            text = line[pos + 1 : end]
            if quote == '"' and "\\" in text:
                with contextlib.suppress(ValueError):
                    text = str(json.loads(f'"{text}"'))
            parts.append(text)
            pos = end + 1
        else:
            end = pos
            while end < len(line) and line[end] in _BARE_KEY_CHARS:
                end += 1
            parts.append(line[pos:end])
            pos = end
        while pos < len(line) and line[pos] in " \t":
            pos += 1
        if pos < len(line) and line[pos] == ".":
            pos += 1
            continue
        return tuple(parts), pos


def _skip_string(line: str, pos: int, quote: str) -> int:
    """Index just after the single-line string opened before ``pos``."""
    while pos < len(line):
        if line[pos] == quote:
            return pos + 1
        pos += 2 if quote == '"' and line[pos] == "\\" else 1
    return pos


def _skip_multiline(lines: Sequence[str], row: int, pos: int, quote: str) -> tuple[int, int]:
    """Row and index just after the multi-line string opened before (row, pos)."""
    while row < len(lines):
        line = lines[row]
        while pos < len(line):
            if line.startswith(quote * 3, pos):
                run = 3
                while run < 5 and line.startswith(quote, pos + run):
                    run += 1
                return row, pos + run
            pos += 2 if quote == '"' and line[pos] == "\\" else 1
        row, pos = row + 1, 0
    return len(lines) - 1, len(lines[-1])


def _scan_value(lines: list[str], code: list[str], row: int, pos: int) -> int:
    """Last row of the value starting at (row, pos); blanks comments out of ``code``."""
    depth = 0
    while row < len(lines):
        line = lines[row]
        while pos < len(line):
            char = line[pos]
            if line.startswith('"""', pos) or line.startswith("'''", pos):
                row, pos = _skip_multiline(lines, row, pos + 3, char)
                line = lines[row]
            elif char in "\"'":
                pos = _skip_string(line, pos + 1, char)
            elif char == "#":
                code[row] = line[:pos]
                break
            else:
                depth += (char in "[{") - (char in "]}")
                pos += 1
        if depth <= 0:
            return row
        row, pos = row + 1, 0
    return len(lines) - 1


def scan_toml(lines: list[str]) -> tuple[KeyLines, list[str]]:
    """Where each table header and key of a *valid* TOML document is written.

    Returns ``{key path: (first line, last line, column where the value starts)}`` (lines
    1-based, column 0-based) and the lines with comments blanked, so that searching a value's
    lines for an option never matches commented-out text.
    """
    found: KeyLines = {}
    code = list(lines)
    table: tuple[str, ...] = ()
    row = 0
    while row < len(lines):
        line = lines[row]
        stripped = line.lstrip()
        start = len(line) - len(stripped)
        if not stripped or stripped.startswith("#"):
            code[row] = ""
            row += 1
            continue
        if stripped.startswith("["):
            table, pos = _parse_key(line, start + (2 if stripped.startswith("[[") else 1))
            found.setdefault(table, (row + 1, row + 1, 0))
            hash_at = line.find("#", pos)
            if hash_at >= 0:
                code[row] = line[:hash_at]
            row += 1
            continue
        key, pos = _parse_key(line, start)
        pos += 1  # the "="
        end = _scan_value(lines, code, row, pos)
        found.setdefault(table + key, (row + 1, end + 1, pos))
        row = end + 1
    return found, code


def array_items(code: Sequence[str], first: int, column: int) -> list[tuple[int, int, int, int]]:
    """Where each item of the array value starting at line ``first``, column ``column``
    (as ``scan_toml`` gives them) is written: (line, column, end line, end column),
    1-based, the end column exclusive. ``code`` is ``scan_toml``'s lines, comments
    blanked. Empty when the value there is not an array."""
    row, pos = first - 1, column
    while row < len(code) and pos < len(code[row]) and code[row][pos] in " \t":
        pos += 1
    if row >= len(code) or not code[row].startswith("[", pos):
        return []
    items: list[tuple[int, int, int, int]] = []
    depth, start = 0, None
    while row < len(code):
        line = code[row]
        while pos < len(line):
            char = line[pos]
            if depth == 1 and start is None and char not in " \t,]":
                start = (row, pos)
            if line.startswith('"""', pos) or line.startswith("'''", pos):
                row, pos = _skip_multiline(code, row, pos + 3, char)
                line = code[row]
            elif char in "\"'":
                pos = _skip_string(line, pos + 1, char)
            elif char in "[{":
                depth += 1
                pos += 1
            elif char in "]}":
                depth -= 1
                pos += 1
                if depth == 0:
                    return items
            else:
                pos += 1
            if depth == 1 and start is not None and (pos >= len(line) or line[pos] in ",]"):
                end = len(line[:pos].rstrip())
                items.append((start[0] + 1, start[1] + 1, row + 1, end + 1))
                start = None
        row, pos = row + 1, 0
    return items
