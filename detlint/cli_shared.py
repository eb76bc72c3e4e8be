"""What the linting commands share: path and config options, rule selection, writing.

``check`` and ``audit`` read the same configuration the same way, so the
options and the merge of config file and command line live in one place.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from detlint.facts_cache import FactsCache
    from detlint.settings import Settings


def settings_and_codes(
    config: Path | None,
    paths: tuple[Path, ...],
    select: str | None,
    ignore: str | None,
    extend_select: str | None,
) -> tuple[Settings, frozenset[str]]:
    """Settings from the config file, overridden by the command line, and the codes to run."""
    from detlint.rules.catalogue import select_codes, unknown_codes
    from detlint.settings import SettingsError, load_settings

    try:
        settings = load_settings(config, paths[0] if paths else Path.cwd())
    except SettingsError as error:
        raise click.UsageError(str(error)) from None

    def codes(text: str | None) -> tuple[str, ...] | None:
        return None if text is None else tuple(c.strip() for c in text.split(",") if c.strip())

    chosen_select = codes(select) if select is not None else settings.select
    chosen_ignore = (codes(ignore) or ()) + settings.ignore
    chosen_extend = (codes(extend_select) or ()) + settings.extend_select
    for pattern_list in (chosen_select or (), chosen_ignore, chosen_extend):
        unknown = unknown_codes(pattern_list)
        if unknown:
            raise click.UsageError(f"unknown rule code {unknown[0]!r}")
    return settings, select_codes(chosen_select, chosen_ignore, chosen_extend)


PATHS = click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
CONFIG = click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="A pyproject.toml or detlint.toml to read [tool.detlint] from.",
)
SELECT = click.option("--select", help="Rule codes or prefixes to run, e.g. DET1,DET201 or ALL.")
IGNORE = click.option("--ignore", help="Rule codes or prefixes to skip.")
EXTEND = click.option("--extend-select", help="Rule codes to add to the defaults, e.g. DET301.")
NO_CACHE = click.option(
    "--no-cache",
    is_flag=True,
    envvar="DETLINT_NO_CACHE",
    help="Read every file afresh and keep nothing for the next run.",
)
CACHE_DIR = click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    envvar="DETLINT_CACHE_DIR",
    help="Where facts read from unchanged files are kept between runs "
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
    """The cache of pipeline facts a run reads and fills, or None with ``--no-cache``."""
    if no_cache:
        return None
    from detlint.facts_cache import FactsCache, default_directory

    return FactsCache(cache_dir or default_directory(), "pipelines")


def emit(text: str, output_file: Path | None) -> None:
    """Print the report, or write it to ``output_file`` (the only file check writes)."""
    if output_file is None:
        click.echo(text, nl=False)
        return
    try:
        output_file.write_text(text, encoding="utf-8")
    except OSError as error:
        raise click.FileError(str(output_file), error.strerror) from None
