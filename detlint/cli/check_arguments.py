"""The options of ``detlint check`` as one value, from the command line to the run.

Thirty-two options would otherwise travel as thirty-two parameters through the
command, its ``--fix`` rounds and its report; one value carries them, with click's
parameter names, so that adding an option is one field.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click


class CheckArguments:
    """Every option of ``detlint check``, as one value (click's parameter names).

    A plain class with slots rather than a NamedTuple: defining a 32-field NamedTuple
    costs most of a millisecond on every run, a one-file pre-commit run included. It is
    not changed once made.
    """

    __slots__ = (
        "baseline",
        "cache_dir",
        "color",
        "config",
        "diff",
        "evidence",
        "exclude",
        "exit_non_zero_on_fix",
        "exit_zero",
        "extend_exclude",
        "extend_select",
        "fail_on",
        "fix",
        "fix_only",
        "force_exclude",
        "ignore",
        "isolated",
        "max_file_size",
        "no_cache",
        "output_file",
        "output_format",
        "paths",
        "per_file_ignores",
        "quiet",
        "select",
        "show_files",
        "show_fixes",
        "show_settings",
        "statistics",
        "stdin_filename",
        "unsafe_fixes",
        "verbose",
        "write_baseline",
    )

    paths: tuple[Path, ...]
    output_format: str
    output_file: Path | None
    statistics: bool
    color: str
    select: str | None
    ignore: str | None
    extend_select: str | None
    exclude: str | None
    extend_exclude: str | None
    per_file_ignores: tuple[str, ...]
    force_exclude: bool | None
    max_file_size: int | None
    config: tuple[str, ...]
    isolated: bool
    show_settings: bool
    show_files: bool
    stdin_filename: str | None
    verbose: bool
    quiet: bool
    fail_on: str | None
    exit_zero: bool
    baseline: Path | None
    write_baseline: Path | None
    fix: bool | None
    unsafe_fixes: bool | None
    diff: bool
    show_fixes: bool
    fix_only: bool
    exit_non_zero_on_fix: bool
    evidence: tuple[Path, ...]
    no_cache: bool
    cache_dir: Path | None

    def __init__(self, **options: Any) -> None:
        missing = set(self.__slots__) - set(options)
        if missing:
            raise TypeError(f"check options missing: {', '.join(sorted(missing))}")
        for name, value in options.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"check options are read-only ({name})")

    @property
    def fixing(self) -> bool:
        """Whether fixes are applied or shown (``fix`` as the command line says)."""
        return bool(self.fix) or self.fix_only or self.diff


def stdin_paths(
    paths: tuple[Path, ...], stdin_filename: str | None
) -> tuple[tuple[Path, ...], bytes | None]:
    """The paths to check, and standard input's bytes when ``-`` (or ``--stdin-filename``
    alone) asks for them; the stand-in path is the one ``--stdin-filename`` names."""
    wants_stdin = Path("-") in paths or (stdin_filename is not None and not paths)
    if not wants_stdin:
        if stdin_filename is not None:
            raise click.UsageError("--stdin-filename needs `-` as the path to check")
        return paths, None
    if len(paths) > 1:
        raise click.UsageError("`-` (standard input) cannot be checked with other paths")
    if stdin_filename is None:
        raise click.UsageError(
            "reading standard input needs --stdin-filename PATH: the path says whether the "
            "text is a test module or a pipeline, and which config applies"
        )
    return (Path(stdin_filename),), sys.stdin.buffer.read()
