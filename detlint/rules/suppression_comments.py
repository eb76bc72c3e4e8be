"""``# detlint: ignore`` comments, read from a file's bytes, and where each applies.

A knob that is known and accepted should be marked where it is, next to the
code a reviewer reads, not in a distant config list. The forms:

- ``# detlint: ignore[DET101]`` or ``# detlint: ignore[DET101, DET501] reason text``:
  those codes only. Codes are exact; a prefix such as ``DET1`` suppresses
  nothing and is reported as an unknown code, so that a suppression never
  silently covers more than its author named.
- ``# detlint: ignore``: every code.

Where a comment applies, for a finding whose primary span covers lines
``line..end_line``:

- on any of those lines, as a trailing or a standalone comment (so anywhere
  inside a multi-line marker or YAML block);
- on a comment-only line directly above ``line``; in Python also directly
  above the decorator block that holds ``line``, so one comment above a stack
  of decorators covers a marker in the middle of the stack.

A trailing comment on the line above does not count: it belongs to the
statement it ends, and letting it reach the next line would let one comment
hide two knobs.

Any ``#`` comment works (Python, YAML, TOML, INI, shell). In Python the comments
come from ``tokenize``, so a ``# detlint: ignore`` inside a string literal is
text, not a suppression; tokenize runs only on files whose bytes hold the
directive, and a file it cannot read falls back to the line search used for
other files, where a ``#`` starts a comment at the start of a line or after
whitespace, as in YAML.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass, field

from detlint.base.span import Span

# The cheap test run on every file's bytes before any line is looked at.
_MARKER = b"detlint"


_MARKER_BYTES = re.compile(rb"detlint\s*:\s*ignore")


# The directive inside a comment. Anything after it is the reason. A bracket
# that is never closed, or "ignored"/"ignore-x", is not a directive at all:
# reading it as a bare ignore would hide every code on the line.
_DIRECTIVE = re.compile(r"#\s*detlint\s*:\s*ignore(?:\[(?P<codes>[^\]\n]*)\]|(?![\w\[-]))")


_CODE_SEPARATOR = re.compile(r"[\s,]+")


@dataclass(frozen=True)
class IgnoreComment:
    """One ``# detlint: ignore`` directive in a file."""

    line: int
    column: int  # 1-based column of the directive's '#'
    end_column: int  # exclusive, the end of the comment
    codes: tuple[str, ...] | None  # None: every code
    comment_only: bool  # nothing but whitespace before the comment on its line
    text: str  # the directive as written, without the reason

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes


@dataclass(frozen=True)
class FileComments:
    """The directives of one file, and where each decorator block starts (Python)."""

    comments: tuple[IgnoreComment, ...] = ()
    # Every line of a decorator block -> the block's first line.
    decorator_starts: Mapping[int, int] = field(default_factory=dict)


def _codes(raw: str | None) -> tuple[str, ...] | None:
    if raw is None:
        return None
    return tuple(code.upper() for code in _CODE_SEPARATOR.split(raw.strip()) if code)


def _directive(text: str, line: int, offset: int, comment_only: bool) -> IgnoreComment | None:
    """The directive in the comment ``text``, which starts at 0-based ``offset`` of its line."""
    match = _DIRECTIVE.search(text)
    if match is None:
        return None
    return IgnoreComment(
        line=line,
        column=offset + match.start() + 1,
        end_column=offset + len(text.rstrip("\r\n")) + 1,
        codes=_codes(match.group("codes")),
        comment_only=comment_only,
        text=match.group(0).lstrip("#").strip(),
    )


def _python_comments(data: bytes, limit: int) -> FileComments | None:
    """Directives from Python's own tokenizer, read up to line ``limit`` (nothing after
    it can matter); None when the tokenizer cannot read the file that far."""
    comments: list[IgnoreComment] = []
    # Logical lines as (first line, last line, starts with '@').
    logical: list[tuple[int, int, bool]] = []
    start: tuple[int, bool] | None = None
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            kind, (row, col) = token.type, token.start
            if row > limit:
                break
            if kind == tokenize.COMMENT:
                found = _directive(token.string, row, col, not token.line[:col].strip())
                if found is not None:
                    comments.append(found)
            if start is None and kind not in skip and kind != tokenize.NEWLINE:
                start = (row, kind == tokenize.OP and token.string == "@")
            elif start is not None and kind in (tokenize.NEWLINE, tokenize.ENDMARKER):
                logical.append((start[0], row, start[1]))
                start = None
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError):
        return None
    if start is not None:
        logical.append((start[0], limit, start[1]))
    starts: dict[int, int] = {}
    block: int | None = None
    for first, last, decorator in logical:
        if not decorator:
            block = None
            continue
        block = first if block is None else block
        for row in range(first, last + 1):
            starts[row] = block
    return FileComments(tuple(comments), starts)


def _line_comments(data: bytes) -> FileComments:
    """Directives found line by line: a '#' at the start of a line or after whitespace."""
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    comments: list[IgnoreComment] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if "detlint" not in line:
            continue
        for match in _DIRECTIVE.finditer(line):
            at = match.start()
            if at > 0 and not line[at - 1].isspace():
                continue
            comment_only = line.lstrip().startswith("#")
            found = _directive(line[at:], number, at, comment_only)
            if found is not None:
                comments.append(found)
            break
    return FileComments(tuple(comments))


def holds_directive(data: bytes) -> bool:
    """Whether a file's bytes may hold a directive: the cheap test run on every file
    before any line is looked at."""
    return _MARKER in data and _MARKER_BYTES.search(data) is not None


def parse_comments(data: bytes, python: bool, last_line: int = 0) -> FileComments:
    """Every directive in a file's bytes (Python tokenized, anything else line by line).

    ``last_line`` is the last line a finding in the file reaches: Python is
    tokenized only up to it or the last directive, whichever comes later.
    """
    if not holds_directive(data):
        return FileComments()
    if python:
        last_directive = data.count(b"\n", 0, data.rfind(_MARKER)) + 1
        tokenized = _python_comments(data, max(last_line, last_directive))
        if tokenized is not None:
            return tokenized
    return _line_comments(data)


def applies(comment: IgnoreComment, span: Span, comments: FileComments) -> bool:
    """Whether ``comment`` is placed where it covers a finding at ``span``."""
    if span.line <= comment.line <= span.end_line:
        return True
    if not comment.comment_only:
        return False
    if comment.line == span.line - 1:
        return True
    block = comments.decorator_starts.get(span.line)
    return block is not None and comment.line == block - 1
