"""``--output-format full``: each finding with the source lines it points at.

The layout is ruff's ``full`` format: the concise line, then the lines of the
span under a line-number gutter with carets under the span's first line, then
the help. The source is read from the working directory at render time; when a
file cannot be read (deleted, binary, a directory), the finding is still shown,
just without its source.

What is printed is made safe for a terminal and aligned for the eye: tabs are
expanded, control and bidirectional-override characters (which could rewrite
the terminal or hide code) are shown as U+FFFD, wide characters count two
columns, and a very long line is cut to a window around the span.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from detlint.base.paths import printable
from detlint.base.source_lines import SourceLines
from detlint.report import colour
from detlint.report.findings import built_fixes, closing_lines, finding_head

if TYPE_CHECKING:
    from detlint.report.formats import Report
    from detlint.rules.finding import Finding

TAB_WIDTH = 4
MAX_LINES = 3  # lines of a multi-line span shown; a longer span shows its first two and last
MAX_WIDTH = 160  # display columns of one source line before it is cut to a window
CONTEXT = 40  # display columns kept left of the span when a line is cut
REPLACEMENT = "\N{REPLACEMENT CHARACTER}"
ELLIPSIS = "\N{HORIZONTAL ELLIPSIS}"

# Characters that reorder or hide text when a terminal shows them ("Trojan Source").
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def _glyphs(text: str) -> list[tuple[str, int]]:
    """Each character of ``text`` as (what to print, display width)."""
    glyphs: list[tuple[str, int]] = []
    column = 0
    for char in text:
        if char == "\t":
            width = TAB_WIDTH - column % TAB_WIDTH
            glyph = " " * width
        elif char in _BIDI_CONTROLS or unicodedata.category(char) in ("Cc", "Cs"):
            glyph, width = REPLACEMENT, 1
        elif unicodedata.combining(char):
            glyph, width = char, 0
        else:
            glyph = char
            width = 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
        glyphs.append((glyph, width))
        column += width
    return glyphs


def _source_line(text: str, start: int | None = None, end: int | None = None) -> tuple[str, str]:
    """One line for display, and the carets under characters ``start``..``end`` (0-based,
    end exclusive; a span past the line's end is padded, an empty span gets one caret).

    Without ``start`` there are no carets.
    """
    glyphs = _glyphs(text)
    if start is not None:
        # A span may begin or end past the last character (an insertion point at
        # the line end); those columns are blanks, one display column each.
        last = max(start + 1, end or 0)
        glyphs += [(" ", 1)] * max(0, last - len(glyphs))
    first, stop = 0, len(glyphs)
    if sum(width for _, width in glyphs) > MAX_WIDTH:
        first = max(0, (start or 0) - CONTEXT)
        total, stop = 0, first
        while stop < len(glyphs) and total + glyphs[stop][1] <= MAX_WIDTH:
            total += glyphs[stop][1]
            stop += 1
    shown = "".join(glyph for glyph, _ in glyphs[first:stop])
    lead = ELLIPSIS if first > 0 else ""
    shown = lead + shown + (ELLIPSIS if stop < len(glyphs) else "")
    if start is None:
        return shown.rstrip(), ""
    caret_start = max(start, first)
    caret_end = min(max(end or 0, start + 1), stop)
    offset = len(lead) + sum(width for _, width in glyphs[first:caret_start])
    carets = sum(width for _, width in glyphs[caret_start:caret_end])
    return shown.rstrip(), " " * offset + "^" * max(1, carets)


def _snippet(finding: Finding, sources: SourceLines) -> list[str]:
    """The gutter block for a finding's span, or nothing when the source is unavailable."""
    span = finding.span
    first = sources.line(span.path, span.line)
    if first is None:
        return []
    numbers: list[int | None] = list(range(span.line, max(span.line, span.end_line) + 1))
    if len(numbers) > MAX_LINES:
        numbers = [*numbers[: MAX_LINES - 1], None, numbers[-1]]
    single = span.end_line <= span.line
    width = len(str(max(number or 0 for number in numbers)))
    blank = " " * width + " |"
    rows = [blank]
    for number in numbers:
        if number is None:
            rows.append(f"{blank} ...")
            continue
        text = sources.line(span.path, number)
        if text is None:
            break
        if number == span.line:
            end = span.end_column - 1 if single else len(text)
            shown, carets = _source_line(text, span.column - 1, end)
            rows.append(f"{number:>{width}} | {shown}".rstrip())
            rows.append(f"{blank} {carets} {finding.code}")
        else:
            shown, _ = _source_line(text)
            rows.append(f"{number:>{width}} | {shown}".rstrip())
    rows.append(blank)
    return rows


def render_full(report: Report) -> str:
    """Every finding with its source lines, then the summary line (none with ``-q``).

    Colour, when on, styles the finding's own line, help and related locations;
    the quoted source and its carets stay plain, so that what is quoted is
    exactly what the file holds.
    """
    sources = SourceLines(report.cwd)
    on = report.color
    blocks = []
    for finding, built in zip(report.findings, built_fixes(report), strict=True):
        lines = [finding_head(finding, report, built)]
        lines += _snippet(finding, sources)
        if finding.help:
            lines.append(f"  = help: {colour.percentages(finding.help, on)}")
        if isinstance(built, str):
            lines.append(f"  = fix unavailable: {built}")
        elif finding.fix is not None:
            lines.append(f"  = fix ({finding.fix.applicability}): {finding.fix.message}")
        for related in finding.related:
            where = f"{printable(related.path)}:{related.line}:{related.column}"
            lines.append(f"  = related: {colour.location(where, on)}")
        blocks.append("\n".join(lines) + "\n")
    closing = closing_lines(report)
    if closing:
        blocks.append("".join(line + "\n" for line in closing))
    return "\n".join(blocks)
