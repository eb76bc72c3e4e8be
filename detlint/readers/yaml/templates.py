"""Masking template tags in YAML so that the structure around them can be parsed.

Pipeline files are often rendered from templates (Jinja ``*.j2``, Go/Helm
``{{ }}``, ERB ``<%= %>``) before the CI system reads them. The tags are not YAML
(``{{`` opens a flow mapping), so a template does not parse, yet most of its
lines are plain YAML whose knobs detlint must still find. Masking replaces every
tag by text of exactly the same length and keeps its line breaks, so that every
line and column of the masked text is the original one:

- a tag that is alone on its line(s) (``{% if x %}``, ``{{ steps }}``) becomes
  blank: it emits structure detlint cannot know, and a blank line, unlike a
  comment, also leaves a block scalar (``command: |``) that the tag sits in intact;
- a comment tag ``{# ... #}`` inside a line becomes spaces;
- any other tag becomes a run of private-use characters that YAML reads as part
  of a plain or quoted scalar; :meth:`Masked.unmask` puts the original tag text
  back into such a scalar, so that readers see ``{{ retries }}`` and treat it as dynamic.

``${VAR}`` and GitHub's ``${{ expr }}`` are valid YAML scalars that the CI system
substitutes itself: they are neither masked nor taken as a sign of templating.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from itertools import islice, takewhile

FILL = "\ue000"
"""Fills a masked tag: a private-use character, printable for YAML and absent from real files."""
FILL_END = "\ue001"
"""Ends each masked tag's fill, so that adjacent tags stay distinguishable."""

# A tag is at most 2000 characters long, so that an unclosed ``{{`` cannot make
# the search quadratic on a large file. Every tag starts with ``{`` or ``<``; the
# patterns say so with their first item (a character class, or a literal in each
# branch) so that the regex engine skips ahead to those characters instead of trying
# a match at every position of the file. Each branch then checks, looking behind,
# which of the two characters it started with (and that ``{{`` does not follow ``$``).
_TAG = re.compile(
    r"[{<](?:"
    r"(?P<expr>(?<=\{)(?<!\$\{)\{.{0,2000}?\}\}|(?<=<)%[=-].{0,2000}?%>)"
    r"|(?P<stmt>(?<=\{)%.{0,2000}?%\}|(?<=<)%(?![=#-]).{0,2000}?%>)"
    r"|(?P<comment>(?<=\{)\#.{0,2000}?\#\}|(?<=<)%\#.{0,2000}?%>))",
    re.DOTALL,
)
_OPENER = re.compile(r"\{(?<!\$\{)\{|\{%|\{\#|<%")
_FILLED = re.compile(FILL + "*" + FILL_END)
_NOT_NEWLINE = re.compile(r"[^\n]")


def looks_templated(text: str) -> bool:
    """Whether ``text`` has a template tag opener; cheap enough to call on every file."""
    # Finding one character is much faster than finding two, and most files have no "<".
    if ("{" in text and ("{{" in text or "{%" in text or "{#" in text)) or (
        "<" in text and "<%" in text
    ):
        return _OPENER.search(text) is not None
    return False


@dataclass(frozen=True)
class Masked:
    """Text whose template tags are masked, and the tags that became scalar fill."""

    text: str
    tags: tuple[tuple[int, int, str], ...]  # (start index, end index, original text), sorted

    def unmask(self, value: str, start: int, end: int) -> str:
        """``value``, a scalar read from source indexes ``start``..``end``, with each
        fill run replaced by the original tag it stands for."""
        inside = takewhile(
            lambda tag: tag[0] < end, islice(self.tags, bisect_left(self.tags, (start,)), None)
        )
        originals = (tag for _, _, tag in inside)
        return _FILLED.sub(lambda match: next(originals, match.group()), value)


def _blank(text: str) -> str:
    """``text`` with everything but its line breaks turned into spaces."""
    if "\n" not in text:
        return " " * len(text)
    return _NOT_NEWLINE.sub(" ", text)


def _fill(segment: str) -> str:
    """Same-length scalar fill for the first line's part of a tag."""
    return FILL * (len(segment) - 1) + FILL_END


def _blank_tags(text: str, matches: list[re.Match[str]]) -> str:
    """``text`` with the matched tags blanked (what ``_TAG.sub`` would make, without
    searching the text again)."""
    pieces: list[str] = []
    done = 0
    for match in matches:
        start, end = match.span()
        pieces.append(text[done:start])
        pieces.append(_blank(match.group()))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def mask_templates(text: str) -> Masked | None:
    """``text`` with every template tag masked, or None when it has no tag."""
    matches = list(_TAG.finditer(text)) if looks_templated(text) else []
    if not matches:
        return None
    lines = text.split("\n")
    # The lines with every tag blanked: a line is tag-only when it has text but none is
    # left here. Only the lines a tag reaches can be, so only those are checked below.
    rests = _blank_tags(text, matches).split("\n")
    pieces: list[str] = []
    tags: list[tuple[int, int, str]] = []
    done = line = 0
    for match in matches:
        start, end = match.span()
        tag = match.group()
        line += text.count("\n", done, start)
        last_line = line + tag.count("\n")
        pieces.append(text[done:start])
        tag_only = all(
            lines[i].strip() and not rests[i].strip() for i in range(line, last_line + 1)
        )
        if tag_only or match.lastgroup == "comment":
            pieces.append(_blank(tag))
        else:
            first, newline, rest = tag.partition("\n")
            pieces.append(_fill(first) + newline + _blank(rest))
            tags.append((start, end, tag))
        line, done = last_line, end
    pieces.append(text[done:])
    return Masked("".join(pieces), tuple(tags))
