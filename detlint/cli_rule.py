"""``detlint rule``: a rule's page from the catalogue, as Markdown text or JSON.

Importing this module imports click and nothing else of detlint's: the command
line registers every command on every run, and start-up time is benchmarked, so
the catalogue and its renderers load only when ``detlint rule`` runs.
"""

from __future__ import annotations

import click


@click.command()
@click.argument("key", required=False, metavar="[CODE|NAME]")
@click.option("--all", "show_all", is_flag=True, help="Every rule, in code order.")
@click.option(
    "--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def rule(key: str | None, show_all: bool, output_format: str) -> None:
    """Explain a rule: why it matters, what it flags, what to do instead, with examples.

    \b
    Examples:
      detlint rule DET101
      detlint rule retry-marker
      detlint rule --all --output-format json
    """
    if show_all == (key is not None):
        raise click.UsageError("give one rule code or name, or --all")
    import json

    from detlint.rules.catalogue import find_rule, pages
    from detlint.rules.docs import catalogue_json, rule_json, rule_page

    catalogue = pages()
    if key is None:
        chosen = list(catalogue.values())
        document: object = catalogue_json(chosen)
    else:
        code = find_rule(key)
        if code is None:
            raise click.UsageError(f"unknown rule {key!r}")
        chosen = [catalogue[code]]
        document = rule_json(chosen[0])
    if output_format == "json":
        click.echo(json.dumps(document, indent=2))
    else:
        click.echo("\n".join(rule_page(page) for page in chosen), nl=False)
