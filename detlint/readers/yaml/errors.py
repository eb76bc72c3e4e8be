"""What to say about YAML that does not parse, and how to read the rest of it.

A pipeline file with one bad line (a tab, a missing colon, a template tag that
masking could not make YAML) still has knobs on its other lines, and a user
needs to know which line to fix. So a parser error is turned into a location
and a one-line message, and the line it points at can be blanked (keeping every
other line and column where it was) so that the file can be read again.
"""

from __future__ import annotations

import re

from ruamel.yaml.error import MarkedYAMLError, YAMLError

from detlint.base.span import Problem, Span

MAX_DEPTH = 200
"""Nesting levels a document may have; no pipeline comes close, and readers recurse."""

_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
# A one-line quoted string, or a comment ("#" at a line start or after a space); each
# alternative starts with its first character so that the search skips ahead quickly.
_QUOTED_OR_COMMENT = re.compile(
    r"""["'#](?:(?<=")(?:[^"\\\n]|\\.)*"|(?<=')[^'\n]*'|(?<=\#)(?<!\S\#)[^\n]*)"""
)
_FLOW_TOKENS = re.compile(rf"[\[\]{{}}]|{_QUOTED_OR_COMMENT.pattern}")


def error_indexes(error: YAMLError, text: str) -> list[int]:
    """Where a parser error is (indexes into the text), the likeliest culprit first: a
    scanner error ("while scanning a simple key") or an unclosed flow collection is
    about the line of its context; any other parser error about where the parser stopped."""
    if not isinstance(error, MarkedYAMLError):  # a ReaderError: a character YAML forbids
        return [getattr(error, "position", 0) or 0]
    marks = [error.problem_mark, error.context_mark]
    if not at_tab(error, text) and str(error.context).startswith(
        ("while scanning", "while parsing a flow")
    ):
        marks.reverse()
    return [mark.index for mark in marks if mark is not None] or [0]


def at_tab(error: MarkedYAMLError, text: str) -> bool:
    """Whether the parser stopped at a tab, which YAML never allows as indentation."""
    mark = error.problem_mark
    return mark is not None and text[mark.index : mark.index + 1] == "\t"


def error_message(error: YAMLError, text: str) -> str:
    """What a parser error says, on one line."""
    if isinstance(error, MarkedYAMLError):
        if at_tab(error, text):
            return "a tab character where YAML allows only spaces (indent with spaces)"
        parts = [str(part) for part in (error.problem, error.context) if part]
        message = f"{parts[0]} ({parts[1]})" if len(parts) == 2 else "".join(parts)
    else:
        message = str(getattr(error, "reason", None) or error)
    return " ".join(message.split()) or "not YAML"


def blank_line(text: str, index: int) -> tuple[str, int] | None:
    """``text`` with the line holding ``index`` blanked (same length), and the line's
    number; None when that line has nothing left to blank."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    end = len(text) if end < 0 else end
    line = text[start:end]
    if not line.strip() or line.lstrip().startswith("#"):
        return None
    return text[:start] + " " * len(line) + text[end:], text.count("\n", 0, start) + 1


def flow_too_deep(text: str) -> int | None:
    """Where flow collections (``[``, ``{``) nest deeper than MAX_DEPTH, if they do.

    Parsers take time quadratic in flow depth (each level keeps a possible simple key
    that is checked again at every token: minutes for 100,000 levels), so such text is
    refused before parsing. Brackets in quoted strings and comments do not count; the
    check strips innermost bracket pairs at C speed, one level per pass, and looks at
    brackets one by one only when more than MAX_DEPTH levels remain.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    brackets = _NOT_BRACKET.sub("", _QUOTED_OR_COMMENT.sub("", text))
    for _ in range(MAX_DEPTH):
        inner = brackets.replace("[]", "").replace("{}", "")
        if inner == brackets:
            break
        brackets = inner
    if brackets.count("[") + brackets.count("{") <= MAX_DEPTH:
        return None
    depth = 0
    for match in _FLOW_TOKENS.finditer(text):
        bracket = match.group()
        if bracket in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif bracket in ("]", "}"):
            depth = max(depth - 1, 0)
    return None


def problem_at(path: str, text: str, index: int, message: str) -> Problem:
    """A problem at ``text[index]``, located by ``\\n`` line breaks as editors count them."""
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return Problem(Span(path, line, column, line, column), message)


def parse_problem(
    path: str,
    source: str,
    first: tuple[int, str],
    skipped: list[int],
    complete: bool,
    templated: bool,
) -> Problem:
    """The one problem for a file that did not parse: where, why, and what was skipped."""
    index, message = first
    lines = ", ".join(str(number) for number in sorted(skipped))
    lines, were = (f"lines {lines}", "were") if len(skipped) > 1 else (f"line {lines}", "was")
    rest = "" if complete else "; the rest of the file could not be read"
    parts = [lines] if skipped else []
    if not complete:
        parts.append(f"everything from line {source.count(chr(10), 0, index) + 1} on")
    if templated and skipped:
        message = f"templated YAML: {lines} could not be read and {were} skipped{rest}"
        line = min(skipped)
        return Problem(Span(path, line, 1, line, 1), message, " and ".join(parts))
    kind = "templated YAML" if templated else "invalid YAML"
    skipped_text = f"; {lines} {were} skipped" if skipped else ""
    found = problem_at(path, source, index, f"{kind}: {message}{skipped_text}{rest}")
    return Problem(found.span, found.message, " and ".join(parts))
