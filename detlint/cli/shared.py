"""What the linting commands share: path and config options, rule selection, writing.

``check`` and ``audit`` read the same configuration the same way, so the
options and the merge of config file and command line live in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from detlint.base.facts_cache import FactsCache
    from detlint.cli.config_files import Layer, Resolved
    from detlint.readers.project.settings import Settings


def _codes(text: str | None) -> list[str] | None:
    return None if text is None else [c.strip() for c in text.split(",") if c.strip()]


def _per_file_ignores(values: Sequence[str]) -> dict[str, list[str]]:
    """``--per-file-ignores 'tests/*:DET101,DET2'``: ``GLOB:CODE`` items, comma-separated
    as ruff's are; an item without a glob adds a code to the glob before it."""
    table: dict[str, list[str]] = {}
    for value in values:
        glob: str | None = None
        for item in filter(None, (part.strip() for part in value.split(","))):
            head, colon, code = item.rpartition(":")
            if colon:
                glob = head.strip()
            elif glob is None:
                raise click.BadParameter(
                    f"{value!r} is not GLOB:CODES, e.g. 'tests/legacy/*:DET101,DET2'",
                    param_hint="'--per-file-ignores'",
                )
            table.setdefault(glob, []).append((code if colon else item).strip())
    return table


def flag_layers(
    select: str | None = None,
    ignore: str | None = None,
    extend_select: str | None = None,
    exclude: str | None = None,
    extend_exclude: str | None = None,
    per_file_ignores: Sequence[str] = (),
    force_exclude: bool | None = None,
    max_file_size: int | None = None,
) -> tuple[Layer, ...]:
    """The command line's settings, as layers over the config file's."""
    from detlint.cli.config_files import Layer

    layers = []
    for flag, key, value, adds in (
        ("--select", "select", _codes(select), False),
        ("--ignore", "ignore", _codes(ignore), True),
        ("--extend-select", "extend-select", _codes(extend_select), True),
        ("--exclude", "exclude", _codes(exclude), False),
        ("--extend-exclude", "extend-exclude", _codes(extend_exclude), True),
    ):
        if value is not None:
            layers.append(Layer(flag, {key: value}, adds))
    if per_file_ignores:
        table = {"per-file-ignores": _per_file_ignores(per_file_ignores)}
        layers.append(Layer("--per-file-ignores", table))
    if force_exclude is not None:
        flag = "--force-exclude" if force_exclude else "--no-force-exclude"
        layers.append(Layer(flag, {"force-exclude": force_exclude}))
    if max_file_size is not None:
        layers.append(Layer("--max-file-size", {"max-file-size": max_file_size}))
    return tuple(layers)


def resolve(
    config: Sequence[str],
    paths: Sequence[Path],
    *,
    isolated: bool = False,
    flags: Sequence[Layer] = (),
) -> tuple[Resolved, frozenset[str]]:
    """The run's settings (config file, ``--config KEY=VALUE``, flags) and the codes to run."""
    from detlint.cli.config_files import resolve_settings
    from detlint.cli.config_keys import SettingsError
    from detlint.rules.catalogue import select_codes

    cwd = Path.cwd()
    try:
        resolved = resolve_settings(
            config, paths[0] if paths else cwd, cwd, isolated=isolated, command_line=flags
        )
    except SettingsError as error:
        raise click.UsageError(str(error)) from None
    settings = resolved.settings
    return resolved, select_codes(settings.select, settings.ignore, settings.extend_select)


def settings_and_codes(
    config: Sequence[str],
    paths: Sequence[Path],
    select: str | None = None,
    ignore: str | None = None,
    extend_select: str | None = None,
    *,
    isolated: bool = False,
) -> tuple[Settings, frozenset[str]]:
    """Settings from the config file, overridden by the command line, and the codes to run."""
    flags = flag_layers(select, ignore, extend_select)
    resolved, codes = resolve(config, paths, isolated=isolated, flags=flags)
    return resolved.settings, codes


PATHS = click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
CONFIG = click.option(
    "--config",
    multiple=True,
    metavar="FILE|KEY=VALUE",
    help="A pyproject.toml or detlint.toml to read instead of the nearest one, or one "
    "setting as TOML that overrides the file's, e.g. --config 'fail-on = \"error\"'. "
    "Repeat for more.",
)
ISOLATED = click.option(
    "--isolated", is_flag=True, help="Read no config file: defaults, --config KEY=VALUE and flags."
)
SELECT = click.option("--select", help="Rule codes or prefixes to run, e.g. DET1,DET201 or ALL.")
IGNORE = click.option("--ignore", help="Rule codes or prefixes to skip.")
EXTEND = click.option("--extend-select", help="Rule codes to add to the defaults, e.g. DET301.")
EXCLUDE = click.option(
    "--exclude",
    metavar="GLOBS",
    help="Comma-separated globs of paths never checked, in place of the defaults "
    "(.git, .venv, build, ...) and the config's `exclude`.",
)
EXTEND_EXCLUDE = click.option(
    "--extend-exclude",
    metavar="GLOBS",
    help="Comma-separated globs of paths never checked, in addition to the defaults.",
)
PER_FILE_IGNORES = click.option(
    "--per-file-ignores",
    multiple=True,
    metavar="GLOB:CODES",
    help="Codes not reported in files matching a glob (relative to the working directory), "
    "e.g. 'tests/legacy/*:DET101,DET2'; replaces the config's. Repeat for more.",
)
FORCE_EXCLUDE = click.option(
    "--force-exclude/--no-force-exclude",
    default=None,
    help="Leave out paths that exclude names even when they are named on the command line "
    "(pre-commit names every changed file).",
)
MAX_FILE_SIZE = click.option(
    "--max-file-size",
    type=click.IntRange(min=1),
    metavar="BYTES",
    help="Skip files larger than this, each with a DET901 (default 5000000, 5 MB).",
)
NO_CACHE = click.option(
    "--no-cache",
    is_flag=True,
    envvar="DETLINT_NO_CACHE",
    help="Read every file afresh and keep nothing for the next run.",
)
CACHE_DIR = click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),
    envvar="DETLINT_CACHE_DIR",
    help="Where facts read from unchanged files, and results of unchanged trees, are kept "
    "between runs "
    "(default: ~/.cache/detlint, or $XDG_CACHE_HOME/detlint).",
)


EVIDENCE = click.option(
    "--evidence",
    multiple=True,
    type=click.Path(path_type=Path, exists=True),
    help="A CI report (JUnit XML, pytest --report-log) or a directory of them: findings on "
    "tests it holds quote the measured failure rate. Repeat for more.",
)


def facts_cache(no_cache: bool, cache_dir: Path | None) -> FactsCache | None:
    """The cache of pipeline facts a run reads and fills, or None with ``--no-cache``,
    and None after a one-line warning when the directory cannot be used safely (not a
    directory, someone else's, writable by others): a cache only ever saves time."""
    if no_cache:
        return None
    from detlint.base.facts_cache import FactsCache, default_directory, unsafe

    root = cache_dir or default_directory()
    reason = unsafe(root)
    if reason is not None:
        warning = f"cache directory {root} not used ({reason}); running without a cache"
        click.echo(f"detlint: warning: {warning}", err=True)
        return None
    return FactsCache(root, "pipelines")


def emit(text: str, output_file: Path | None) -> None:
    """Print the report, or write it to ``output_file`` (the only file check writes)."""
    if output_file is None:
        click.echo(text, nl=False)
        return
    try:
        output_file.write_text(text, encoding="utf-8")
    except OSError as error:
        raise click.FileError(str(output_file), error.strerror) from None


def print_report(text: str, coloured: bool, output_file: Path | None) -> None:
    """The report on standard output (coloured as asked) or in ``output_file``."""
    if coloured and output_file is None:
        click.echo(text, nl=False, color=True)  # click would strip the codes off a pipe
    else:
        emit(text, output_file)
