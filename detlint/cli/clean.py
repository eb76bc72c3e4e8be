"""``detlint clean``: remove the cache of facts read from unchanged files and of results
of unchanged trees."""

from __future__ import annotations

from pathlib import Path

import click

from detlint.cli.shared import CACHE_DIR


@click.command()
@CACHE_DIR
def clean(cache_dir: Path | None) -> None:
    """Remove detlint's cache (only the directories detlint made there)."""
    from detlint.base.facts_cache import clear, default_directory

    root = cache_dir or default_directory()
    entries, size = clear(root)
    if entries:
        amount = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.1f} KB"
        click.echo(f"Removed {entries} cache entries ({amount}) from {root}")
    else:
        click.echo(f"Nothing to remove in {root}")
