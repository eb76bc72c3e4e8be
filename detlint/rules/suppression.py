"""Inline suppression applied to a run's findings: what each comment hides, and DET902.

The comments and where each applies are read in ``suppression_comments.py``; a
finding a comment covers is set aside and counted. With DET902 on, every comment
of the checked files is judged (``checks/unused_suppression.py``). DET902 findings
are themselves suppressed only by a comment that names DET902 explicitly: a bare
ignore that hid its own report could never be reported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from detlint.base.paths import display_path
from detlint.base.source import read_bytes
from detlint.rules.catalogue import RULES
from detlint.rules.checks.unused_suppression import UNUSED_CODE, unused_suppression
from detlint.rules.finding import Finding
from detlint.rules.suppression_comments import (
    FileComments,
    applies,
    holds_directive,
    parse_comments,
)


@dataclass(frozen=True)
class Suppressed:
    """The findings of a run, split by the inline suppressions in the files."""

    kept: tuple[Finding, ...]  # findings still reported
    suppressed: tuple[Finding, ...]  # findings an ignore comment hid
    unused: tuple[Finding, ...]  # DET902 findings (only when report_unused)


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
            and applies(comment, finding.span, in_file or FileComments())
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
            if data is not None and holds_directive(data):
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
            found = unused_suppression(
                display, comment, used.get((display, index), set()), chosen, known
            )
            if found is not None:
                reports.append(found)
    unused, hidden_unused = _split(reports, comments, used, explicit_only=True)
    return Suppressed(
        tuple(kept),
        tuple(hidden + hidden_unused),
        tuple(sorted(unused, key=lambda finding: finding.sort_key)),
    )


def unknown_code_warnings(files: Sequence[Path], cwd: Path) -> tuple[str, ...]:
    """One warning line per ignore comment in ``files`` that names a code no rule has:
    such a comment suppresses nothing, and a typo in it would otherwise go unseen
    (DET902, when selected, reports it as a finding instead). Only files whose
    bytes hold the directive are looked at line by line."""
    known = frozenset(RULES) | {UNUSED_CODE}
    warnings = []
    for path in files:
        absolute = Path(os.path.normpath(os.path.join(cwd, os.fspath(path))))
        display = display_path(absolute, cwd)
        data = _read(absolute, display)
        if data is None or not holds_directive(data):
            continue
        for comment in parse_comments(data, display.endswith(".py")).comments:
            unknown = [code for code in comment.codes or () if code not in known]
            if unknown:
                which = "an unknown code" if len(unknown) == 1 else "unknown codes"
                warnings.append(
                    f"warning: {display}:{comment.line}: `# {comment.text}` names {which} "
                    f"{', '.join(unknown)}, which suppresses nothing (codes are exact, e.g. DET101)"
                )
    return tuple(warnings)
