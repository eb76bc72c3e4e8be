"""One file's text as a fix sees it: decoded for editing, re-encoded byte for byte.

A fix must keep everything it does not edit: the encoding (a PEP 263 cookie),
a UTF-8 byte order mark, CRLF or lone-CR line ends, tabs. The text is decoded
as the passes decode it (the BOM removed, line ends untouched), positions are
counted as spans count them (``\\n``, ``\\r\\n`` or ``\\r`` ends a line, columns
in characters, 1-based), and :meth:`SourceText.encode` gives back the exact
original bytes for the unedited text.
"""

from __future__ import annotations

import codecs
import functools
import io
import re
import tokenize
from dataclasses import dataclass

from detlint.base.line_index import LineIndex
from detlint.base.span import Span

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SourceText:
    path: str  # as displayed
    data: bytes  # the file as read
    text: str  # decoded, BOM removed, line ends kept
    encoding: str
    bom: bytes

    @functools.cached_property
    def lines(self) -> LineIndex:
        """Its lines as the passes count them (``\\r\\n``, ``\\r`` or ``\\n`` ends one)."""
        return LineIndex(self.text, universal=True)

    @classmethod
    def decode(cls, path: str, data: bytes) -> SourceText:
        """The text of ``data``; raises ``ValueError`` when it cannot be decoded."""
        encoding = "utf-8"
        if path.endswith((".py", ".pyi")):
            try:
                encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            except SyntaxError as error:
                raise ValueError(str(error)) from None
        bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
        if encoding == "utf-8-sig":
            encoding = "utf-8"
        try:
            text = data[len(bom) :].decode(encoding)
        except (UnicodeDecodeError, LookupError) as error:
            raise ValueError(f"cannot decode as {encoding}: {error}") from None
        return cls(path, data, text, encoding, bom)

    def encode(self, text: str) -> bytes:
        """``text`` as the file stores it: the same encoding and byte order mark."""
        return self.bom + text.encode(self.encoding)

    def offset(self, line: int, column: int) -> int:
        """The character offset of a 1-based line and column (clamped to the line)."""
        if line < 1:
            return 0
        if line > self.lines.line_count():
            return len(self.text)
        start, end = self.lines.line_start(line), self.lines.line_end(line)
        return min(start + max(column, 1) - 1, end)

    def span_range(self, span: Span) -> tuple[int, int]:
        """The character range a span covers."""
        return self.offset(span.line, span.column), self.offset(span.end_line, span.end_column)

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of a character offset."""
        return self.lines.position(offset)

    def line_range(self, line: int) -> tuple[int, int]:
        """Where line ``line`` starts and where its line end ends."""
        return self.lines.line_start(line), self.lines.line_end(line)

    def line_end(self, offset: int) -> str:
        """The line end this file uses (that of the line holding ``offset``, else ``\\n``)."""
        match = _LINE_END.search(self.text, offset)
        if match is None:
            match = _LINE_END.search(self.text)
        return match.group() if match else "\n"

    def byte_offset(self, offset: int) -> int:
        """Where a character offset falls in the file's bytes."""
        return len(self.bom) + len(self.text[:offset].encode(self.encoding))
