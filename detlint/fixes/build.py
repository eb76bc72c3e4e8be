"""Plans made into edits: each file read once, each plan to the builder of its kind.

The builders import what they need (libcst for Python, the YAML reader for
pipelines) only here, so a run that shows no fix never loads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.span import Span
from detlint.fixes.edits import Declined, Edit, Fix, Where
from detlint.fixes.source_text import SourceText
from detlint.rules.plans import (
    AddReason,
    DropMark,
    FixPlan,
    QuarantineMark,
    RemoveKey,
    RemoveOptions,
    ReplaceValue,
    UnmaskExit,
)

if TYPE_CHECKING:
    from detlint.rules.finding import Finding


class Sources:
    """The files fixes read, by displayed path (relative to ``cwd``), each read once.

    A file written by ``--fix`` is forgotten, so the next round reads it as written.
    """

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._files: dict[str, SourceText | str] = {}
        # What builders parsed of each file (libcst modules), kept while the file is.
        self.parsed: dict[str, object] = {}
        # The lines of each file that the plans being built point at, so that a
        # builder parses what all of them need at once.
        self.wanted: dict[str, set[int]] = {}

    def __call__(self, path: str) -> SourceText:
        if path not in self._files:
            self._files[path] = self._read(path)
        found = self._files[path]
        if isinstance(found, str):
            raise Declined(found)
        return found

    def _read(self, path: str) -> SourceText | str:
        from detlint.base.source import read_bytes

        data = read_bytes(self.cwd / path, path)
        if not isinstance(data, bytes):
            return data.message
        if b"\x00" in data:
            return "binary file"
        try:
            return SourceText.decode(path, data)
        except ValueError as error:
            return str(error)

    def forget(self, path: str) -> None:
        """Read ``path`` again next time (it was written)."""
        self._files.pop(path, None)
        self.parsed.pop(path, None)


def plan_edits(plan: FixPlan, read: Sources) -> tuple[Edit, ...]:
    """The edits that carry out ``plan``; raises ``Declined`` with the reason."""
    if isinstance(plan, DropMark | QuarantineMark | AddReason):
        from detlint.fixes.python_edits import python_edits

        return python_edits(plan, read)
    if isinstance(plan, RemoveKey | ReplaceValue):
        from detlint.fixes.yaml_edits import yaml_edits

        return yaml_edits(plan, read(plan.span.path))
    if isinstance(plan, RemoveOptions | UnmaskExit):
        from detlint.fixes.option_edits import option_edits

        return option_edits(plan, read(plan.span.path))
    raise Declined(f"no builder for {type(plan).__name__}")


def build_fix(plan: FixPlan, read: Sources) -> Fix:
    """The fix of ``plan``, or ``Declined``. A builder that fails unexpectedly
    declines: a fix detlint cannot make is reported, never a traceback."""
    try:
        edits = plan_edits(plan, read)
    except Declined:
        raise
    except Exception as error:  # any failure of a builder is a declined fix
        raise Declined(f"detlint could not build this fix ({type(error).__name__})") from None
    if not edits:
        raise Declined("nothing to change")
    ordered = tuple(sorted(edits))
    where = tuple(_where(edit, read(edit.path)) for edit in ordered)
    message = plan.message
    if isinstance(plan, RemoveKey) and any(edit.content.strip() for edit in ordered):
        message = (
            f"Set `{plan.key}: false` so that test failures fail the build (the job "
            "`extends` others, which may set it)"
        )
    return Fix(message, plan.applicability, ordered, plan.placeholder, where)


def _where(edit: Edit, source: SourceText) -> Where:
    line, column = source.position(edit.start)
    end_line, end_column = source.position(edit.end)
    start, end = source.byte_offset(edit.start), source.byte_offset(edit.end)
    return Where(line, column, end_line, end_column, start, end)


def _plan_spans(plan: FixPlan | None) -> tuple[Span, ...]:
    """The Python spans a plan's edits are found at."""
    if isinstance(plan, DropMark) and plan.trials is not None:
        return (plan.mark, plan.trials)
    if isinstance(plan, DropMark | QuarantineMark | AddReason):
        return (plan.mark,)
    return ()


def build_fixes(findings: Sequence[Finding], read: Sources) -> tuple[Fix | str | None, ...]:
    """Each finding's fix, the reason it has none (a string), or None without a plan."""
    for finding in findings:
        for span in _plan_spans(finding.fix):
            read.wanted.setdefault(span.path, set()).add(span.line)
    built: list[Fix | str | None] = []
    for finding in findings:
        if finding.fix is None:
            built.append(None)
            continue
        try:
            built.append(build_fix(finding.fix, read))
        except Declined as declined:
            built.append(str(declined))
    return tuple(built)
