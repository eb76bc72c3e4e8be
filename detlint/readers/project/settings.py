"""detlint's own settings, as one value: what a run is told by the config and the command line.

Where they come from (the nearest config file, ``--config KEY=VALUE``, the command
line) and how each ``[tool.detlint]`` key is checked is the command line's business
(``detlint/cli/config_files.py`` and ``config_keys.py``); the run reads this value.

``exclude`` replaces the directories detlint never walks by default (version
control, virtualenvs, caches, build output; see ``DEFAULT_EXCLUDES`` in
``exclusions.py``), as ruff's ``exclude`` does; ``extend-exclude`` adds to them, and
is what a project usually wants. ``vendored-dirs`` names the directories of vendored
code skipped by default (``DEFAULT_VENDORED``; ``[]`` reads them). ``per-file-ignores``
is applied to findings by ``detlint/rules/per_file_ignores.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from detlint.readers.project.exclusions import DEFAULT_EXCLUDES, DEFAULT_VENDORED
from detlint.readers.reasons import DEFAULT_TRACKING_PATTERN


@dataclass(frozen=True)
class Settings:
    path: Path | None = None
    reference_rate: float = 0.10
    target: float = 0.95
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None  # None: DEFAULT_EXCLUDES
    extend_exclude: tuple[str, ...] = ()
    force_exclude: bool = False  # explicitly named paths that exclude names stay out
    vendored_dirs: tuple[str, ...] = DEFAULT_VENDORED
    respect_gitignore: bool = True
    max_file_size: int = 5_000_000  # bytes; a larger file is a DET901, not read
    tracking_issue_pattern: str = DEFAULT_TRACKING_PATTERN
    # The reason a quarantine fix writes, a placeholder for the tracking issue; None
    # when not configured (DET201 then offers no fix: nobody knows the issue).
    quarantine_reason: str | None = None
    fix: bool = False  # `fix = true`: `detlint check` applies fixes unless --no-fix
    unsafe_fixes: bool = False  # `unsafe-fixes = true`: as --unsafe-fixes
    retry_decorators: frozenset[str] = frozenset()
    trial_env_readers: frozenset[str] = frozenset()
    # (glob, codes or prefixes) in file order; globs are relative to the config file's directory.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Where per-file-ignores globs start when they did not come from `path`'s file (the
    # command line's, relative to the working directory); None: `path`'s directory.
    ignores_base: Path | None = None
    fail_on: str | None = None  # the least severity that fails a run; None: any finding

    def walk_excludes(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(directory names never walked, globs matched against names and paths):
        the defaults and ``extend-exclude``, or ``exclude`` in place of the defaults."""
        if self.exclude is None:
            return DEFAULT_EXCLUDES, self.extend_exclude
        return (), self.exclude + self.extend_exclude
