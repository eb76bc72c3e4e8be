"""Edits of command text: rerun options (DET104/DET421) and masked exits (DET431).

A command sits in a YAML string (a Buildkite ``command``, a GitHub ``run``,
a ``PYTEST_ADDOPTS`` value), in a shell script, or is pytest's own
``addopts`` (delegated to :mod:`detlint.fixes.config_edits`). The edit is cut
from the text between the span's columns, inside the string's quotes or
below its block header, and must not touch an escape; in a YAML file the
result is loaded again and the one string must differ exactly as intended:
its words less the options, less the ``|| true``, plus a ``set -o pipefail``
line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from detlint.fixes.config_edits import ini_edits, toml_edits, tox_command_edits
from detlint.fixes.edits import Declined, Edit, apply_edits
from detlint.fixes.option_tokens import (
    leaves_nothing,
    removal_ranges,
    removed_once,
    strings_differ_by_options,
    whole_line,
)
from detlint.fixes.source_text import SourceText
from detlint.fixes.yaml_locate import (
    Scalar,
    compose,
    content_end,
    find_scalar,
    scalar_content,
    start,
)
from detlint.fixes.yaml_shell import github_shell_bash
from detlint.fixes.yaml_verify import require_string
from detlint.rules.plans import RemoveOptions, UnmaskExit

# ``|| true``, ``|| :``, ``|| exit 0`` with the blanks before it, ending a command.
_OR_TRUE = re.compile(r"[ \t]*\|\|[ \t]*(?:true|:|exit[ \t]+0)(?![^\s;&|)])")
_MASKED_OR = re.compile(r"\|\|\s*(?:true|:|exit\s+0)")
_MASKED_TEE = re.compile(r"(?:^|[^|])\|\s*tee\b")
_PIPEFAIL = "set -o pipefail"
# A line that continues on the next one (a trailing backslash, pipe or list
# operator), so a new line cannot go in between.
_CONTINUES = re.compile(r"(\\|\||&&)[ \t]*$")


def option_edits(plan: RemoveOptions | UnmaskExit, source: SourceText) -> tuple[Edit, ...]:
    """The edits that carry out ``plan`` on the file it names, checked where the
    file's format allows reading it back."""
    kind = _kind(source.path)
    if isinstance(plan, RemoveOptions):
        if kind == "ini" and plan.command:
            return tox_command_edits(plan, source)
        if kind == "ini":
            return ini_edits(plan, source)
        if kind == "toml":
            return toml_edits(plan, source)
        return _remove_options(plan, source, kind == "yaml")
    return _unmask(plan, source, kind == "yaml")


def _kind(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith((".yml", ".yaml")):
        return "yaml"
    if name.endswith(".toml"):
        return "toml"
    if name.endswith((".ini", ".cfg")):
        return "ini"
    return "text"


def _region(plan: RemoveOptions | UnmaskExit, source: SourceText) -> tuple[int, int]:
    """The text to search: the span, or its whole lines when the span is empty (a
    block scalar's line) or covers several (a command continued with backslashes)."""
    begin, end = source.span_range(plan.span)
    if end > begin and plan.span.end_line == plan.span.line:
        return begin, end
    line_start, _ = source.line_range(plan.span.line)
    last = max(plan.span.end_line, plan.span.line)
    last_start, last_end = source.line_range(last)
    return line_start, last_start + len(source.text[last_start:last_end].rstrip("\r\n"))


def _in_scalar(source: SourceText, begin: int, end: int) -> tuple[Scalar, int, int]:
    """The YAML string holding ``begin`` and the part of ``begin:end`` inside it."""
    document = compose(source.text)
    scalar = find_scalar(document, begin)
    first, last = scalar_content(scalar.node, source.text)
    begin, end = max(begin, first), min(end, last)
    if begin >= end:
        raise Declined("the reported text is not inside a YAML string")
    return scalar, begin, end


def _guard_escapes(text: str, scalar: Scalar | None, ranges: list[tuple[int, int]]) -> None:
    if (
        scalar is not None
        and scalar.node.style == '"'
        and any("\\" in text[a:b] for a, b in ranges)
    ):
        raise Declined("the text to remove holds escapes")


def _checked(
    source: SourceText,
    scalar: Scalar | None,
    edits: tuple[Edit, ...],
    check: Callable[[str, str], bool],
) -> tuple[Edit, ...]:
    if scalar is not None:
        require_string(source.text, apply_edits(source.text, edits), scalar.path, check)
    return edits


def _remove_options(plan: RemoveOptions, source: SourceText, yaml: bool) -> tuple[Edit, ...]:
    text = source.text
    begin, end = _region(plan, source)
    scalar: Scalar | None = None
    if yaml:
        scalar, begin, end = _in_scalar(source, begin, end)
    ranges = removal_ranges(text, begin, end, plan.options)
    if not ranges and scalar is not None and scalar.node.style == ">":
        # A folded script (`run: >`) is one command over many lines of the file: the
        # options may be on any of them. Only where the script runs pytest once.
        first, last = scalar_content(scalar.node, text)
        if len(re.findall(r"\bpytest\b", text[first:last])) == 1:
            # An option line of its own goes whole: left blank, it would fold to a
            # line break.
            ranges = [
                whole_line(text, a, b) or (a, b)
                for a, b in removal_ranges(text, first, last, plan.options)
            ]
    if not ranges:
        raise Declined("the options are not written in the reported text")
    _guard_escapes(text, scalar, ranges)
    edits = tuple(Edit(source.path, a, b, "") for a, b in ranges)
    if scalar is not None and scalar.node.style is None:
        node_start = start(scalar.node)
        node_end = content_end(scalar.node, text, 0)
        if leaves_nothing(text, ranges, node_start, node_end):
            # a plain value left empty would read as null: write an empty string
            edits = (Edit(source.path, node_start, node_end, '""'),)
    return _checked(
        source, scalar, edits, lambda old, new: strings_differ_by_options(old, new, plan.options)
    )


def _unmask(plan: UnmaskExit, source: SourceText, yaml: bool) -> tuple[Edit, ...]:
    masked = plan.masked.strip().strip("`").strip()
    if _MASKED_OR.search(masked):
        return _remove_or_true(plan, source, yaml)
    if _MASKED_TEE.search(masked):
        return _insert_pipefail(plan, source, yaml)
    if "set +e" in masked:
        raise Declined("`set +e` may guard more than pytest; remove it by hand")
    raise Declined(f"no fix for `{masked}`")


def _remove_or_true(plan: UnmaskExit, source: SourceText, yaml: bool) -> tuple[Edit, ...]:
    text = source.text
    begin = source.offset(plan.span.line, plan.span.column)
    line_start, line_end = source.line_range(plan.span.line)
    end = line_start + len(text[line_start:line_end].rstrip("\r\n"))
    scalar: Scalar | None = None
    if yaml:
        scalar, begin, end = _in_scalar(source, begin, end)
    match = _OR_TRUE.search(text[begin:end])
    if match is None:
        raise Declined(f"cannot find `{plan.masked.strip('`')}` after the pytest command")
    cut = (begin + match.start(), begin + match.end())
    piece = text[cut[0] : cut[1]]
    edits = (Edit(source.path, cut[0], cut[1], ""),)
    return _checked(source, scalar, edits, lambda old, new: removed_once(old, new, piece))


def _insert_pipefail(plan: UnmaskExit, source: SourceText, yaml: bool) -> tuple[Edit, ...]:
    """``set -o pipefail`` on a line of its own before the piped pytest line.

    Only in a literal block scalar (``run: |``) or a script: a one-line command
    has no line to add, and a folded scalar (``>``) would join the new line
    to the command.
    """
    text = source.text
    line_start, line_end = source.line_range(plan.span.line)
    content_stop = line_start + len(text[line_start:line_end].rstrip("\r\n"))
    scalar: Scalar | None = None
    first_line = 0
    if yaml:
        begin = max(line_start, source.offset(plan.span.line, plan.span.column))
        scalar, _, _ = _in_scalar(source, begin, content_stop)
        if scalar.node.style != "|":
            if plan.system == "github" and scalar.node.style != ">":
                return github_shell_bash(source, scalar)
            raise Declined(
                "the piped command is not in a literal block script (`|`); "
                "set `pipefail` in the job's shell by hand"
            )
        first_line, _ = scalar_content(scalar.node, text)
        if line_start < first_line:
            raise Declined("the reported line is not a line of the script")
    for number in range(plan.span.line - 1, source.position(first_line)[0] - 1, -1):
        above_start, above_end = source.line_range(number)
        above = text[above_start:above_end].strip()
        if above:
            if _CONTINUES.search(above):
                raise Declined("the piped command continues a previous line")
            break
    line = text[line_start:content_stop]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    inserted = f"{indent}{_PIPEFAIL}{source.line_end(line_start)}"
    edits = (Edit(source.path, line_start, line_start, inserted),)
    return _checked(source, scalar, edits, _pipefail_added)


def _pipefail_added(old: str, new: str) -> bool:
    """Whether ``new`` is ``old`` with one ``set -o pipefail`` line added."""
    pieces = set(re.findall(r"(?m)^[ \t]*set -o pipefail\n", new))
    return any(removed_once(new, old, piece) for piece in pieces)
