"""Inline suppression: ``# detlint: ignore[DET101] reason`` comments, and DET902.

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

DET902 (``unused-suppression``, off by default) reports comments that no
longer suppress anything in a run, and codes in brackets that are not rule
codes. A code the run did not select cannot be judged (its findings were never
computed), so it is never reported; a bare ``# detlint: ignore`` is judged only
when every rule ran. DET902 findings are themselves suppressed only by a
comment that names DET902 explicitly: a bare ignore that hid its own report
could never be reported.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from detlint.base.paths import display_path
from detlint.base.source import read_bytes
from detlint.base.span import Span
from detlint.rules.catalogue import RULES
from detlint.rules.finding import Finding

UNUSED_CODE = "DET902"

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


@dataclass(frozen=True)
class Suppressed:
    """The findings of a run, split by the inline suppressions in the files."""

    kept: tuple[Finding, ...]  # findings still reported
    suppressed: tuple[Finding, ...]  # findings an ignore comment hid
    unused: tuple[Finding, ...]  # DET902 findings (only when report_unused)


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


def parse_comments(data: bytes, python: bool, last_line: int = 0) -> FileComments:
    """Every directive in a file's bytes (Python tokenized, anything else line by line).

    ``last_line`` is the last line a finding in the file reaches: Python is
    tokenized only up to it or the last directive, whichever comes later.
    """
    if _MARKER not in data or _MARKER_BYTES.search(data) is None:
        return FileComments()
    if python:
        last_directive = data.count(b"\n", 0, data.rfind(_MARKER)) + 1
        tokenized = _python_comments(data, max(last_line, last_directive))
        if tokenized is not None:
            return tokenized
    return _line_comments(data)


def _applies(comment: IgnoreComment, span: Span, comments: FileComments) -> bool:
    """Whether ``comment`` is placed where it covers a finding at ``span``."""
    if span.line <= comment.line <= span.end_line:
        return True
    if not comment.comment_only:
        return False
    if comment.line == span.line - 1:
        return True
    block = comments.decorator_starts.get(span.line)
    return block is not None and comment.line == block - 1


def _unused_finding(path: str, comment: IgnoreComment, problems: list[str]) -> Finding:
    info = RULES.get(UNUSED_CODE)
    return Finding(
        code=UNUSED_CODE,
        name=info.name if info is not None else "unused-suppression",
        severity=info.severity if info is not None else "warning",
        span=Span(path, comment.line, comment.column, comment.line, comment.end_column),
        message=f"`# {comment.text}` " + "; ".join(problems),
        help="remove the comment, or the codes in it that no longer apply",
    )


def _judge(
    path: str,
    comment: IgnoreComment,
    used: set[str],
    selected: frozenset[str],
    known: frozenset[str],
) -> Finding | None:
    """A DET902 finding for what in ``comment`` suppressed nothing, or None."""
    where = "on this line or the next" if comment.comment_only else "on this line"
    if comment.codes is None:
        if used or not (known - {UNUSED_CODE}) <= selected:
            return None
        return _unused_finding(path, comment, [f"suppresses nothing: no finding {where}"])
    if not comment.codes:
        return _unused_finding(path, comment, ["names no rule code and suppresses nothing"])
    problems = []
    unknown = [code for code in comment.codes if code not in known]
    if unknown:
        names = ", ".join(unknown)
        problems.append(
            f"names {'an unknown code' if len(unknown) == 1 else 'unknown codes'} {names} "
            "(codes are exact, e.g. DET101)"
        )
    idle = [
        code
        for code in comment.codes
        if code in known and code != UNUSED_CODE and code in selected and code not in used
    ]
    if idle:
        codes = " or ".join(idle)
        if len(idle) == len(comment.codes):
            problems.append(f"suppresses nothing: no {codes} finding {where}")
        else:
            problems.append(f"does not need {codes}: no {codes} finding {where}")
    return _unused_finding(path, comment, problems) if problems else None


def _read(path: Path, display: str) -> bytes | None:
    data = read_bytes(path, display)
    return data if isinstance(data, bytes) else None


def _split(
    findings: Iterable[Finding],
    comments: Mapping[str, FileComments],
    used: dict[tuple[str, int], set[str]],
    explicit_only: bool = False,
) -> tuple[list[Finding], list[Finding]]:
    """(kept, suppressed), recording in ``used`` which comment suppressed which codes."""
    kept: list[Finding] = []
    hidden: list[Finding] = []
    for finding in findings:
        in_file = comments.get(finding.span.path)
        matching = [
            (index, comment)
            for index, comment in enumerate(in_file.comments if in_file is not None else ())
            if comment.covers(finding.code)
            and (comment.codes is not None or not explicit_only)
            and _applies(comment, finding.span, in_file or FileComments())
        ]
        for index, _ in matching:
            used.setdefault((finding.span.path, index), set()).add(finding.code)
        (hidden if matching else kept).append(finding)
    return kept, hidden


def apply_suppressions(
    findings: Sequence[Finding],
    files: Sequence[Path],
    cwd: Path,
    report_unused: bool,
    selected: frozenset[str] | None = None,
) -> Suppressed:
    """Split ``findings`` by the ignore comments in their files; with ``report_unused``,
    add DET902 findings for comments in the checked ``files`` that suppressed nothing.

    ``selected`` is the set of codes the run computed (None: every code); only
    those codes can be judged unused. Files are read only when they hold a
    finding, or (with ``report_unused``) when their bytes hold the directive.
    """
    base = os.path.abspath(cwd)
    last_lines: dict[str, int] = {}
    for finding in findings:
        path = finding.span.path
        last_lines[path] = max(last_lines.get(path, 0), finding.span.end_line)
    checked = {os.path.normpath(os.path.join(base, os.fspath(path))) for path in files}
    comments: dict[str, FileComments] = {}
    judged: set[str] = set()  # display paths of checked files: only their comments are judged
    read: set[str] = set()
    for display, last_line in last_lines.items():
        absolute = os.path.normpath(os.path.join(base, display))
        read.add(absolute)
        if absolute in checked:
            judged.add(display)
        data = _read(Path(absolute), display)
        if data is not None:
            comments[display] = parse_comments(data, display.endswith(".py"), last_line)
    if report_unused:
        for absolute in sorted(checked - read):
            data = _read(Path(absolute), absolute)
            if data is not None and _MARKER in data and _MARKER_BYTES.search(data) is not None:
                display = display_path(Path(absolute), cwd)
                comments[display] = parse_comments(data, display.endswith(".py"))
                judged.add(display)

    used: dict[tuple[str, int], set[str]] = {}
    kept, hidden = _split(findings, comments, used)
    if not report_unused:
        return Suppressed(tuple(kept), tuple(hidden), ())

    known = frozenset(RULES) | {UNUSED_CODE}
    chosen = known if selected is None else selected
    reports: list[Finding] = []
    for display in sorted(judged):  # a file the run did not check was not judged whole
        for index, comment in enumerate(comments.get(display, FileComments()).comments):
            found = _judge(display, comment, used.get((display, index), set()), chosen, known)
            if found is not None:
                reports.append(found)
    unused, hidden_unused = _split(reports, comments, used, explicit_only=True)
    return Suppressed(
        tuple(kept),
        tuple(hidden + hidden_unused),
        tuple(sorted(unused, key=lambda finding: finding.sort_key)),
    )
