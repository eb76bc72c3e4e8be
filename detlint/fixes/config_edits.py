"""DET104 edits: remove rerun options from ``addopts`` in pytest's ini and TOML files.

The options are cut from the lines that set ``addopts`` (an ini value with
its continuation lines, a TOML string or array), so every other byte of the
file stays as written. The result is read again the way pytest reads it
(configparser for ``pytest.ini``/``tox.ini``/``setup.cfg``, tomllib for
``pyproject.toml``/``pytest.toml``) and must differ only in ``addopts``,
by exactly the removed options.
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Sequence

from detlint.base.toml_reader import TOMLDecodeError, load_toml
from detlint.fixes.edits import Declined, Edit, apply_edits
from detlint.fixes.option_tokens import (
    FLAGS_WITHOUT_VALUE,
    leaves_nothing,
    only_options_removed,
    removal_ranges,
    strings_differ_by_options,
)
from detlint.fixes.source_text import SourceText
from detlint.fixes.yaml_verify import differences
from detlint.rules.plans import RemoveOptions

_LINE = re.compile(r"[^\r\n]*(\r\n|\r|\n|$)")
_INI_KEY = re.compile(r"(?P<indent>[ \t]*)addopts[ \t]*[=:]", re.IGNORECASE)
_INI_SECTION = re.compile(r"\[(?P<name>[^\]]+)\]")
_TOML_KEY = re.compile(r"[ \t]*(addopts|\"addopts\"|'addopts')[ \t]*=[ \t]*")
_TOML_HEADER = re.compile(r"[ \t]*\[\[?[^\]\[\"'#]+\]\]?[ \t]*(#.*)?")
_TOML_TABLES = {("tool", "pytest", "ini_options"), ("tool", "pytest"), ("pytest",)}

Line = tuple[int, int, int]  # start, end of content, end with the line end


def lines(text: str) -> list[Line]:
    """Every line of ``text`` as SourceText counts them (``\\n``, ``\\r\\n``, ``\\r``)."""
    found = []
    for match in _LINE.finditer(text):
        if match.start() == len(text) and match.end() == len(text):
            break
        found.append((match.start(), match.start(1), match.end()))
    return found


def _edits(source: SourceText, ranges: Sequence[tuple[int, int]]) -> tuple[Edit, ...]:
    if not ranges:
        raise Declined("the options are not written on the reported lines")
    return tuple(Edit(source.path, start, stop, "") for start, stop in ranges)


# ----------------------------------------------------------------- ini / cfg


def ini_edits(plan: RemoveOptions, source: SourceText) -> tuple[Edit, ...]:
    """Cut the options from an ``addopts`` value and its continuation lines."""
    text = source.text
    table = lines(text)
    key_line, key = _ini_key_line(text, table, plan.span.line - 1)
    if key.group("indent"):
        raise Declined("`addopts` is indented; pytest and configparser read that differently")
    regions = [(key.end(), table[key_line][1], False)]
    covered = {key_line}
    for number in range(key_line + 1, len(table)):
        start, content, _ = table[number]
        stripped = text[start:content].strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        if text[start] not in " \t":
            break
        indent = len(text[start:content]) - len(text[start:content].lstrip(" \t"))
        regions.append((start + indent, content, True))
        covered.add(number)
    if plan.span.line - 1 not in covered:
        raise Declined("the reported line is not part of the `addopts` value")
    ranges: list[tuple[int, int]] = []
    for begin, end, continuation in regions:
        found = removal_ranges(text, begin, end, plan.options)
        if continuation and found and leaves_nothing(text, found, begin, end):
            number = source.position(begin)[0] - 1
            ranges.append((table[number][0], table[number][2]))
        else:
            ranges += found
    edits = _edits(source, ranges)
    section = _ini_section(text, table, key_line)
    expected = "tool:pytest" if source.path.lower().endswith(".cfg") else "pytest"
    if section != expected:
        raise Declined(f"pytest does not read `addopts` from [{section}] in this file")
    _check_ini(text, apply_edits(text, edits), section, plan.options)
    return edits


def _ini_key_line(text: str, table: list[Line], number: int) -> tuple[int, re.Match[str]]:
    """The line that names ``addopts``: the reported one or the nearest above it
    whose value continues down to it."""
    while number >= 0:
        start, content, _ = table[number]
        key = _INI_KEY.match(text, start, content)
        if key is not None:
            return number, key
        stripped = text[start:content].strip()
        if stripped and not stripped.startswith(("#", ";")) and text[start] not in " \t":
            break
        number -= 1
    raise Declined("cannot find the `addopts` line")


def _ini_section(text: str, table: list[Line], number: int) -> str:
    for start, content, _ in reversed(table[:number]):
        header = _INI_SECTION.fullmatch(text[start:content].strip())
        if header is not None:
            return header["name"]
    raise Declined("`addopts` is outside any section")


def _read_ini(text: str) -> dict[str, dict[str, str]]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text.replace("\r\n", "\n").replace("\r", "\n"))
    except configparser.Error as error:
        raise Declined(f"configparser cannot read the file: {error}") from None
    return {name: dict(parser.items(name, raw=True)) for name in parser.sections()}


def _check_ini(old_text: str, new_text: str, section: str, options: Sequence[str]) -> None:
    old, new = _read_ini(old_text), _read_ini(new_text)
    if section not in old or section not in new:
        raise Declined(f"configparser does not find the section [{section}]")
    before, after = old[section].pop("addopts", None), new[section].pop("addopts", None)
    if old != new or before is None or after is None:
        raise Declined("the edit would change more of the file than `addopts`")
    if not only_options_removed(before.split(), after.split(), options):
        raise Declined("the edit would change `addopts` beyond the options")


def tox_command_edits(plan: RemoveOptions, source: SourceText) -> tuple[Edit, ...]:
    """Cut the options from one line of a tox ``commands`` value (celery's
    ``smoke: pytest ... --reruns 5 --reruns-delay 10 {posargs}``): the span's own
    text, checked by reading the file again, where exactly one value may change and
    only by the option words."""
    text = source.text
    begin, end = source.span_range(plan.span)
    if plan.span.end_line != plan.span.line or end <= begin:
        start, stop = source.line_range(plan.span.line)
        begin, end = start, start + len(text[start:stop].rstrip("\r\n"))
    ranges = removal_ranges(text, begin, end, plan.options)
    if not ranges:
        raise Declined("the options are not written in the reported text")
    edits = _edits(source, ranges)
    old, new = _read_ini(text), _read_ini(apply_edits(text, edits))
    changed = [
        (section, key)
        for section in old
        for key in old[section]
        if new.get(section, {}).get(key) != old[section][key]
    ]
    if len(changed) != 1 or set(old) != set(new) or any(set(old[s]) != set(new[s]) for s in old):
        raise Declined("the edit would change more of the file than one command")
    section, key = changed[0]
    if not strings_differ_by_options(old[section][key], new[section][key], plan.options):
        raise Declined(f"the edit would change `{key}` beyond the options")
    return edits


# ----------------------------------------------------------------------- toml


def toml_edits(plan: RemoveOptions, source: SourceText) -> tuple[Edit, ...]:
    """Cut the options from an ``addopts`` string, or their items from an array."""
    text = source.text
    table = lines(text)
    if not 0 < plan.span.line <= len(table):
        raise Declined("the reported line is not in the file")
    key, content = _toml_key(text, table, plan.span.line - 1)
    value = key.end()
    if text.startswith(('"""', "'''"), value):
        raise Declined("`addopts` is a multi-line string")
    if text[value : value + 1] in ('"', "'"):
        close = _string_end(text, value, content)
        ranges = removal_ranges(text, value + 1, close - 1, plan.options)
        if text[value] == '"' and any("\\" in text[a:b] for a, b in ranges):
            raise Declined("the options are written with escapes")
    elif text[value : value + 1] == "[":
        ranges = _array_ranges(text, value, plan.options)
    else:
        raise Declined("`addopts` is neither a string nor an array")
    edits = _edits(source, ranges)
    _check_toml(text, apply_edits(text, edits), plan.options)
    return edits


def _toml_key(text: str, table: list[Line], number: int) -> tuple[re.Match[str], int]:
    """The ``addopts =`` on the reported line, or above it when the line is an item
    of its multi-line array; and where that key's line ends."""
    reported = table[number][0]
    for line in range(number, -1, -1):
        start, content, _ = table[line]
        key = _TOML_KEY.match(text, start, content)
        if key is not None:
            if line != number and (
                text[key.end() : key.end() + 1] != "["
                or _array_items(text, key.end())[2] < reported
            ):
                break
            return key, content
        if _TOML_HEADER.fullmatch(text, start, content):
            break
    raise Declined("the reported line does not set `addopts`")


def _string_end(text: str, start: int, limit: int) -> int:
    """Where a one-line TOML string starting at ``start`` ends (after its quote)."""
    quote, position = text[start], start + 1
    while position < limit:
        char = text[position]
        if char == "\\" and quote == '"':
            position += 2
            continue
        if char == quote:
            return position + 1
        position += 1
    raise Declined("cannot find the end of the string")


def _array_ranges(text: str, start: int, options: Sequence[str]) -> list[tuple[int, int]]:
    """The ranges that remove the option items (and their value items) of an array."""
    items, comments, close = _array_items(text, start)
    remove: list[int] = []
    index = 0
    while index < len(items):
        value = items[index][2]
        name = next((name for name in options if value == name), None)
        if name is not None:
            width = 1 if name in FLAGS_WITHOUT_VALUE else 2
            if index + width > len(items):
                raise Declined(f"`{name}` has no value item")
            remove += range(index, index + width)
            index += width
            continue
        if any(value.startswith(f"{name}=") for name in options):
            remove.append(index)
        index += 1
    groups: list[list[int]] = []
    for index in remove:
        if groups and groups[-1][1] == index - 1:
            groups[-1][1] = index
        else:
            groups.append([index, index])
    ranges = []
    for first, last in groups:
        if first == 0 and last == len(items) - 1:
            ranges.append((start + 1, close))
        elif last + 1 < len(items):
            ranges.append((items[first][0], items[last + 1][0]))
        else:
            ranges.append((items[first - 1][1], items[last][1]))
    for begin, end in ranges:
        if any(begin <= comment < end for comment in comments):
            raise Declined("removing the items would remove a comment")
    return ranges


def _array_items(text: str, start: int) -> tuple[list[tuple[int, int, str]], list[int], int]:
    """A TOML array's string items (start, end, value), its comments' starts and
    where its ``]`` is; ``Declined`` for anything but an array of one-line strings."""
    items: list[tuple[int, int, str]] = []
    comments: list[int] = []
    position = start + 1
    expect_item = True
    while position < len(text):
        char = text[position]
        if char in " \t\r\n":
            position += 1
        elif char == "#":
            comments.append(position)
            while position < len(text) and text[position] not in "\r\n":
                position += 1
        elif char == "]":
            return items, comments, position
        elif char == "," and not expect_item:
            expect_item = True
            position += 1
        elif char in "\"'" and expect_item and not text.startswith(char * 3, position):
            end = _string_end(text, position, len(text))
            try:
                value = load_toml(f"v = {text[position:end]}")["v"]
            except TOMLDecodeError:
                raise Declined("cannot read an item of the `addopts` array") from None
            items.append((position, end, str(value)))
            position, expect_item = end, False
        else:
            raise Declined("`addopts` holds an item that is not a one-line string")
    raise Declined("cannot find the end of the `addopts` array")


def _check_toml(old_text: str, new_text: str, options: Sequence[str]) -> None:
    try:
        old, new = load_toml(old_text), load_toml(new_text)
    except TOMLDecodeError as error:
        raise Declined(f"the edited file would not parse as TOML: {error}") from None
    found = differences(old, new)
    if len(found) != 1 or found[0].path[-1:] != ("addopts",):
        raise Declined("the edit would change more of the file than `addopts`")
    if found[0].path[:-1] not in _TOML_TABLES:
        raise Declined("`addopts` is not in a pytest table")
    before, after = found[0].old, found[0].new
    if isinstance(before, str) and isinstance(after, str):
        accepted = strings_differ_by_options(before, after, options)
    elif isinstance(before, list) and isinstance(after, list):
        accepted = only_options_removed(
            [str(item) for item in before], [str(item) for item in after], options
        )
    else:
        accepted = False
    if not accepted:
        raise Declined("the edit would change `addopts` beyond the options")
