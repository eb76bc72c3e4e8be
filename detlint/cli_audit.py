"""``detlint audit``: the inventory of every knob and each test's composed policy."""

from __future__ import annotations

from pathlib import Path

import click

from detlint.cli_shared import (
    CACHE_DIR,
    CONFIG,
    NO_CACHE,
    PATHS,
    emit,
    facts_cache,
    settings_and_codes,
)


@click.command()
@PATHS
@click.option("--output-format", type=click.Choice(["json"]), default="json", show_default=True)
@click.option(
    "--output-file",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False, writable=True),
    help="Write the inventory to this file instead of standard output.",
)
@CONFIG
@NO_CACHE
@CACHE_DIR
def audit(
    paths: tuple[Path, ...],
    output_format: str,
    output_file: Path | None,
    config: Path | None,
    no_cache: bool,
    cache_dir: Path | None,
) -> None:
    """The inventory: every knob, and each test's composed policy and numbers."""
    from detlint.engine import analyse
    from detlint.report.audit import render_audit_json

    settings, selected = settings_and_codes(config, paths, None, None, None)
    analysis = analyse(
        paths, Path.cwd(), settings, selected, cache=facts_cache(no_cache, cache_dir)
    )
    emit(render_audit_json(analysis, settings.reference_rate, settings.target), output_file)
