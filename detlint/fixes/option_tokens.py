"""Finding pytest option tokens in command text, and checking that only they went.

DET104 and DET421 fixes remove rerun options (``--reruns 3``, ``--reruns=3``)
from an ``addopts`` value or a CI command and must leave the rest of the line
as written, so the options are found as character ranges, each with its value
and one adjoining blank. The check after the edit compares the words of the
old and new values: the new ones must be the old ones with option tokens, and
nothing else, left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from detlint.fixes.edits import Declined

# The rerun plugins' options that take no value (store_true); every other
# option a plan names is taken to have one (pytest-rerunfailures'
# ``--force-reruns N``, pytest-retry's ``--cumulative-timing BOOL`` among them).
FLAGS_WITHOUT_VALUE = frozenset(
    {"--force-flaky", "--no-flaky-report", "--fail-on-flaky", "--rerun-show-tracebacks"}
)

# A value written after an option: one word without shell operators, or one quoted
# string without escapes (`--only-rerun "AssertionError"`).
_VALUE = re.compile(r"\"[^\"\\$`\s]*\"|'[^'\s]*'|[^\s;&|<>()\"'`\\]+")
_BLANKS = re.compile(r"[ \t]+")
_BLANK = " \t"


def _option_pattern(options: Iterable[str]) -> re.Pattern[str]:
    names = sorted(set(options), key=len, reverse=True)
    return re.compile(r"(?<!\S)(" + "|".join(re.escape(name) for name in names) + r")(?==|\s|$)")


def option_ranges(text: str, begin: int, end: int, options: Sequence[str]) -> list[tuple[int, int]]:
    """The ranges of ``text[begin:end]`` that hold the options and their values.

    ``Declined`` when an option that takes a value has none on this text
    (``--reruns`` at the end of a line, its value on the next).
    """
    if not options:
        raise Declined("the fix names no option to remove")
    region = text[begin:end]
    found: list[tuple[int, int]] = []
    for match in _option_pattern(options).finditer(region):
        name, stop = match.group(1), match.end()
        if name in FLAGS_WITHOUT_VALUE:
            if region[stop : stop + 1] == "=":
                raise Declined(f"`{name}` is written with a value")
        elif region[stop : stop + 1] == "=":
            value = _VALUE.match(region, stop + 1)
            if value is None:
                raise Declined(f"cannot read the value of `{name}`")
            stop = value.end()
        else:
            blanks = _BLANKS.match(region, stop)
            value = _VALUE.match(region, blanks.end()) if blanks else None
            if value is None or value.group().startswith("--"):
                raise Declined(f"`{name}` has no value on the same line")
            stop = value.end()
        found.append((begin + match.start(), begin + stop))
    return found


def removal_ranges(
    text: str, begin: int, end: int, options: Sequence[str]
) -> list[tuple[int, int]]:
    """What to delete: runs of adjacent options, each with one adjoining blank.

    A run takes the blank after it, else the one before it, so
    ``pytest --reruns 2 -x`` and ``pytest -x --reruns 2`` both become
    ``pytest -x``; a run that fills the whole region takes no blank.
    """
    runs: list[list[int]] = []
    for start, stop in option_ranges(text, begin, end, options):
        if runs and not text[runs[-1][1] : start].strip(_BLANK):
            runs[-1][1] = stop
        else:
            runs.append([start, stop])
    ranges = []
    for start, stop in runs:
        whole = _whole_line(text, start, stop, begin)
        if whole is not None:
            ranges.append(whole)
            continue
        if stop < end and text[stop] in _BLANK:
            stop += 1
        elif start > begin and text[start - 1] in _BLANK:
            start -= 1
        ranges.append((start, stop))
    return ranges


# What follows options that fill a continued line: blanks, the backslash, the line end.
_CONTINUED_LINE = re.compile(r"[ \t]*\\(?:\r\n|\r|\n)")
# What follows options that fill a line: blanks and the line end.
_LINE_END = re.compile(r"[ \t]*(?:\r\n|\r|\n)")


def line_start(text: str, offset: int) -> int:
    """Where the line holding ``offset`` starts (``\n``, ``\r\n`` or ``\r`` ends a line)."""
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


def whole_line(
    text: str, start: int, stop: int, trailer: re.Pattern[str] = _LINE_END
) -> tuple[int, int] | None:
    """The line holding ``start:stop``, with its line end, when it holds nothing else
    but blanks before it and what ``trailer`` matches after it; else None."""
    first = line_start(text, start)
    if text[first:start].strip(_BLANK):
        return None
    after = trailer.match(text, stop)
    return (first, after.end()) if after is not None else None


def _whole_line(text: str, start: int, stop: int, begin: int) -> tuple[int, int] | None:
    """The whole line, when the options are all that a continued line of a command
    holds (``    --reruns 3 \\`` after ``pytest \\``): deleting the line keeps the
    command's other lines as they are, where cutting the words would leave a line of
    a lone backslash. The command's first line is never one, and its last line (no
    backslash) is cut by words: deleting it would join the line before it to whatever
    follows."""
    if line_start(text, start) <= begin:
        return None
    return whole_line(text, start, stop, _CONTINUED_LINE)


def leaves_nothing(text: str, ranges: Sequence[tuple[int, int]], begin: int, end: int) -> bool:
    """Whether removing ``ranges`` leaves nothing but blanks of ``text[begin:end]``."""
    kept, position = [], begin
    for start, stop in sorted(ranges):
        kept.append(text[position:start])
        position = max(position, stop)
    kept.append(text[position:end])
    return not "".join(kept).strip()


def _token_length(words: Sequence[str], index: int, options: Sequence[str]) -> int:
    """How many words the option at ``words[index]`` takes up, 0 when it is none."""
    word = words[index]
    for name in options:
        if word == name:
            return 1 if name in FLAGS_WITHOUT_VALUE else 2
        if word.startswith(f"{name}=") and name not in FLAGS_WITHOUT_VALUE:
            return 1
    return 0


def only_options_removed(old: Sequence[str], new: Sequence[str], options: Sequence[str]) -> bool:
    """Whether ``new`` is ``old`` with at least one option token (and value) left out."""
    index = position = 0
    removed = False
    while index < len(old):
        if position < len(new) and old[index] == new[position]:
            index += 1
            position += 1
            continue
        length = _token_length(old, index, options)
        if length == 0 or index + length > len(old):
            return False
        index += length
        removed = True
    return removed and position == len(new)


def strings_differ_by_options(old: str, new: str, options: Sequence[str]) -> bool:
    """A string value's check: the same lines (less continued lines that held only
    options), its words less the option tokens."""

    def words(text: str) -> list[str]:
        return [word for word in text.split() if word != "\\"]

    return new.count("\n") <= old.count("\n") and only_options_removed(
        words(old), words(new), options
    )


def removed_once(old: str, new: str, piece: str) -> bool:
    """Whether ``new`` is ``old`` with one occurrence of ``piece`` cut out."""
    if not piece or len(old) != len(new) + len(piece):
        return False
    index = old.find(piece)
    while index >= 0:
        if old[:index] + old[index + len(piece) :] == new:
            return True
        index = old.find(piece, index + 1)
    return False
