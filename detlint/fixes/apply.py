"""Applying fixes: choose the ones that fit together, check the files, write atomically.

Fixes to one file are applied together or not at all: their edits are put
into the text at once, the whole file must still parse, and it is written by
replacing it with a finished temporary file in the same directory (so a
crash leaves the old file or the new one, never half of each), with the old
file's mode, owner and group, and only if it still holds the bytes the fixes
were computed from. A file outside the project (through a symlink), a
read-only one and one with other hard links are not written. Fixes whose
edits overlap an accepted fix wait for the next round, when the check runs
again on the edited files (as ruff does).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from detlint.fixes.edits import Declined, Edit, Fix, apply_edits
from detlint.fixes.validate import parse_problem

if TYPE_CHECKING:
    from detlint.fixes.build import Sources
    from detlint.fixes.source_text import SourceText
    from detlint.rules.finding import Finding


class Change(NamedTuple):
    """One file's new text, and the text it replaces."""

    before: SourceText
    after: str


class Chosen(NamedTuple):
    """The fixes of one round that fit together, what they change, and what was left."""

    applied: tuple[tuple[Finding, Fix], ...]
    changes: dict[str, Change]
    declined: tuple[tuple[Finding, str], ...]  # fixes that could not be made, and why
    waiting: int  # fixes that overlap one applied this round


def usable(fix: Fix | str | None, unsafe: bool) -> bool:
    return isinstance(fix, Fix) and (unsafe or fix.applicability == "safe")


def choose(
    findings: Sequence[Finding],
    fixes: Sequence[Fix | str | None],
    sources: Sources,
    unsafe: bool,
) -> Chosen:
    """The fixes to apply this round, in the findings' order, each file still parsing."""
    accepted: dict[str, list[Edit]] = {}
    applied: list[tuple[Finding, Fix]] = []
    declined: list[tuple[Finding, str]] = []
    waiting = 0
    for finding, fix in zip(findings, fixes, strict=True):
        if isinstance(fix, str):
            if unsafe or _safe(finding):  # a fix this run would have applied
                declined.append((finding, fix))
            continue
        if not usable(fix, unsafe):
            continue
        assert isinstance(fix, Fix)
        if any(_overlaps(edit, accepted.get(edit.path, ())) for edit in fix.edits):
            waiting += 1
            continue
        applied.append((finding, fix))
        for edit in fix.edits:
            accepted.setdefault(edit.path, []).append(edit)
    changes: dict[str, Change] = {}
    broken: set[str] = set()
    for path, edits in accepted.items():
        before = sources(path)
        try:
            after = apply_edits(before.text, edits)
        except Declined:
            broken.add(path)
            continue
        # A file the check's own parser cannot read as it stands (a template) is left
        # to its builder's check; one that parsed must still parse.
        if parse_problem(path, after) is not None and parse_problem(path, before.text) is None:
            broken.add(path)
            continue
        changes[path] = Change(before, after)
    if broken:
        # Fixes that each parse but not together: none of them this round; one file's
        # failure also holds back the fixes that edit it together with another file.
        kept = [(f, fix) for f, fix in applied if not broken & set(fix.paths)]
        for finding, fix in applied:
            if broken & set(fix.paths):
                declined.append((finding, "the file would not parse with the other fixes"))
        applied = kept
        paths = {path for _, fix in applied for path in fix.paths}
        changes = {path: change for path, change in changes.items() if path in paths}
    return Chosen(tuple(applied), changes, tuple(declined), waiting)


def _safe(finding: Finding) -> bool:
    return finding.fix is not None and finding.fix.applicability == "safe"


def _overlaps(edit: Edit, others: Sequence[Edit]) -> bool:
    for other in others:
        if edit.start < other.end and other.start < edit.end:
            return True
        if edit.start == other.start and (edit.start == edit.end or other.start == other.end):
            return True  # two insertions at one point: their order would be a guess
    return False


def write_changes(
    changes: dict[str, Change], cwd: Path, root: Path | None = None
) -> dict[str, str]:
    """Write each changed file; the problems of the ones not written, by path. A file
    whose real path is outside ``root`` (the project) is not written."""
    problems: dict[str, str] = {}
    for path, change in sorted(changes.items()):
        data = change.before.encode(change.after)
        problem = write_atomic(cwd / path, data, change.before.data, root)
        if problem is not None:
            problems[path] = problem
    return problems


def write_atomic(path: Path, data: bytes, expected: bytes, root: Path | None = None) -> str | None:
    """Replace the file at ``path`` (through a symlink, its target) with ``data``, if it
    still holds ``expected``; the reason when it was not written.

    Declined: a target outside ``root`` (a symlink out of the project), one that is
    not a regular file, one without its owner's write permission (only the directory
    would need it), one with other hard links (a new file would split them from it),
    and one whose owner or group the new file cannot be given. The bytes are compared
    again just before the rename, so an edit saved meanwhile is kept.
    """
    target = Path(os.path.realpath(path))
    try:
        refusal = _refusal(target, root)
        if refusal is not None:
            return refusal
        if target.read_bytes() != expected:
            return "changed since detlint read it"
        fd, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as error:
        return f"cannot write: {error.strerror or error}"
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        problem = _replace(temporary, target, expected)
    except OSError as error:
        problem = f"cannot write: {error.strerror or error}"
    if problem is not None:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    return problem


def _refusal(target: Path, root: Path | None) -> str | None:
    """Why ``target`` (a real path) is not to be rewritten, or None."""
    if root is not None:
        top = os.path.realpath(root)
        if os.path.commonpath([top, str(target)]) != top:
            return f"its real path {target} is outside the project ({top})"
    info = target.stat()
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if not info.st_mode & stat.S_IWUSR:
        return f"read-only (mode {stat.S_IMODE(info.st_mode):04o})"
    if info.st_nlink > 1:
        return (
            f"has {info.st_nlink} hard links, which writing a new file would split "
            "(edit it by hand, or break the links first)"
        )
    return None


def _replace(temporary: str, target: Path, expected: bytes) -> str | None:
    """Give ``temporary`` the target's owner, group and mode, then rename it over the
    target if the target still holds ``expected``; the reason when not."""
    info = target.stat()
    made = os.stat(temporary)
    if (made.st_uid, made.st_gid) != (info.st_uid, info.st_gid):
        try:
            os.chown(temporary, info.st_uid, info.st_gid)
        except OSError:
            return f"its owner and group ({info.st_uid}:{info.st_gid}) cannot be kept by this user"
    os.chmod(temporary, stat.S_IMODE(info.st_mode))  # after chown, which clears setuid
    current = target.stat()
    if (current.st_ino, current.st_dev) != (info.st_ino, info.st_dev) or (
        target.read_bytes() != expected
    ):
        return "changed while detlint was writing it; the file is as it was changed"
    os.replace(temporary, target)
    return None
