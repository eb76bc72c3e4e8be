"""``per-file-ignores``: codes that are not reported for files matching a glob.

A legacy directory, a generated pipeline or a vendored conftest may carry knobs
a team has decided to live with; listing them in config keeps that decision in
one reviewed place instead of a comment on every line.

Matching follows ruff's ``per-file-ignores``: a glob is relative to the
directory of the config file that sets it (the working directory when there is
none) and is matched against the file's path from there, and also against the
file's name alone, so ``"conftest.py"`` covers every conftest. ``*`` matches
across ``/``, ``**/`` at the start also matches no directory at all, a glob
that matches a directory covers the files below it, and a leading ``!``
negates: the codes are ignored in every file the rest of the glob does not
match. Codes are codes or prefixes, as in ``ignore``.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Sequence
from pathlib import Path

from detlint.readers.project.settings import Settings
from detlint.rules.finding import Finding

# (compiled glob, negated, codes or prefixes)
_Entry = tuple[re.Pattern[str], bool, tuple[str, ...]]


def _translate(glob: str) -> re.Pattern[str]:
    glob = glob.strip().removeprefix("./").rstrip("/")
    alternatives = [glob, glob[3:]] if glob.startswith("**/") else [glob]
    flags = re.IGNORECASE if os.path.normcase("A") == "a" else 0
    return re.compile("|".join(fnmatch.translate(g) for g in alternatives), flags)


@functools.lru_cache(maxsize=8)
def _compile(entries: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[_Entry, ...]:
    compiled = []
    for glob, codes in entries:
        negated = glob.startswith("!")
        compiled.append((_translate(glob.removeprefix("!")), negated, codes))
    return tuple(compiled)


def _candidates(path: str, cwd: Path, base: Path) -> tuple[str, ...]:
    """What a glob is matched against: the path from ``base`` and each directory
    above the file up to ``base``, and the file's name."""
    absolute = os.path.abspath(os.path.join(cwd, path))
    name = os.path.basename(absolute)
    relative = os.path.relpath(absolute, base) if _is_under(absolute, str(base)) else None
    if relative is None:
        return (name,)
    parts = relative.replace(os.sep, "/").split("/")
    return (name, *("/".join(parts[:end]) for end in range(len(parts), 0, -1)))


def _is_under(path: str, directory: str) -> bool:
    try:
        return os.path.commonpath([path, directory]) == directory
    except ValueError:  # different drives on Windows
        return False


def ignored_by_file(settings: Settings, path: str, cwd: Path) -> frozenset[str]:
    """The code patterns ``per-file-ignores`` sets for the file at ``path``
    (as findings show it: relative to ``cwd``, or absolute)."""
    if not settings.per_file_ignores:
        return frozenset()
    if settings.ignores_base is not None:
        base = settings.ignores_base
    else:
        base = Path(os.path.abspath(settings.path.parent if settings.path is not None else cwd))
    candidates = _candidates(path, cwd, base)
    ignored: set[str] = set()
    for pattern, negated, codes in _compile(settings.per_file_ignores):
        matched = any(pattern.fullmatch(candidate) for candidate in candidates)
        if matched != negated:
            ignored.update(codes)
    return frozenset(ignored)


def _covered(code: str, patterns: frozenset[str]) -> bool:
    return any(p.upper() == "ALL" or code.startswith(p.upper()) for p in patterns)


def apply_per_file_ignores(
    findings: Sequence[Finding], settings: Settings, cwd: Path
) -> tuple[Finding, ...]:
    """The findings ``per-file-ignores`` does not ignore, in their order; a finding is
    judged by the file of its primary span."""
    if not settings.per_file_ignores:
        return tuple(findings)
    by_path: dict[str, frozenset[str]] = {}
    kept = []
    for finding in findings:
        path = finding.span.path
        if path not in by_path:
            by_path[path] = ignored_by_file(settings, path, cwd)
        if not _covered(finding.code, by_path[path]):
            kept.append(finding)
    return tuple(kept)
