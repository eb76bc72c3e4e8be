"""The lines of the files findings point at, read once per file for every output.

Formats that quote a finding's source (``full``), fingerprint it (SARIF, GitLab,
the baseline) or show it (the audit's knob snippets) read the same files; one
cache serves them, with two readings of a file:

- ``lines``: as the passes count lines (``\\n``, ``\\r\\n`` or a lone ``\\r`` ends
  one), decoded as the passes decode (a PEP 263 cookie in Python files), for
  showing a file to people;
- ``utf8_lines``: UTF-8 with undecodable bytes replaced, a BOM dropped, split at
  ``\\n`` alone (a ``\\r`` stays at the end of its line). Baseline fingerprints
  were defined on this reading, and a baseline written by an earlier detlint must
  still match, so it is kept exactly as it is.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_NEWLINE = re.compile(r"\r\n?|\n")


class SourceLines:
    """The lines of the files findings point at, each file read at most once.

    Spans count lines as the passes do (``\\n``, ``\\r\\n`` or a lone ``\\r``
    ends a line) and columns in characters of the decoded text. A file is read
    with the same guards as the passes (no FIFOs, no huge files) and never
    raises: a file that cannot be read, or holds binary data, has no lines and
    the finding is shown without its source. Text that is not valid in its
    encoding is decoded with replacement characters, since it is only shown.
    """

    def __init__(self, cwd: Path) -> None:
        self._cwd = cwd
        self._files: dict[str, tuple[str, ...] | None] = {}
        self._utf8: dict[str, list[str]] = {}

    def lines(self, path: str) -> tuple[str, ...] | None:
        """The file's lines without their line ends, or None when it cannot be shown."""
        if path not in self._files:
            self._files[path] = self._read(path)
        return self._files[path]

    def line(self, path: str, number: int) -> str | None:
        """Line ``number`` (1-based) of ``path``, or None."""
        lines = self.lines(path)
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]

    def _read(self, path: str) -> tuple[str, ...] | None:
        from detlint.base.source import decode_python, decode_text, read_bytes

        data = read_bytes(self._cwd / path, path)
        if not isinstance(data, bytes) or b"\x00" in data:
            return None
        decode = decode_python if path.endswith(".py") else decode_text
        text = decode(data, path)
        if not isinstance(text, str):
            text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
        return tuple(_NEWLINE.split(text))

    def utf8_lines(self, path: str) -> list[str]:
        """The file's lines as baseline fingerprints read them (empty when unreadable)."""
        found = self._utf8.get(path)
        if found is None:
            from detlint.base.source import read_bytes

            data = read_bytes(Path(os.path.abspath(self._cwd / path)), path)
            text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else ""
            found = self._utf8[path] = text.removeprefix("\ufeff").split("\n")
        return found
