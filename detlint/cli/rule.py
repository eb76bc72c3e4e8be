"""``detlint rule``: a rule's page from the catalogue, as Markdown text or JSON, or with
no argument the list of every rule.

Importing this module imports click and nothing else of detlint's: the command
line registers every command on every run, and start-up time is benchmarked, so
the catalogue and its renderers load only when ``detlint rule`` runs.
"""

from __future__ import annotations

import click


@click.command()
@click.argument("key", required=False, metavar="[CODE|NAME]")
@click.option("--all", "show_all", is_flag=True, help="Every rule's page, in code order.")
@click.option(
    "--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def rule(key: str | None, show_all: bool, output_format: str) -> None:
    """Explain a rule: why it matters, what it flags, what to do instead, with examples.

    With no argument, list every rule: its code, name, whether it runs by
    default and the fix it offers (as JSON, the whole catalogue, as with --all).

    \b
    Examples:
      detlint rule
      detlint rule DET101
      detlint rule retry-marker
      detlint rule --all --output-format json
    """
    if show_all and key is not None:
        raise click.UsageError("give one rule code or name, or --all, not both")
    import json

    if key is None and not show_all and output_format == "text":
        # The list needs only the rules' headers: the prose and examples stay unread.
        from detlint.rules.catalogue import RULES
        from detlint.rules.docs import rule_table

        click.echo(rule_table(RULES.values()), nl=False)
        return

    from detlint.rules.catalogue import find_rule
    from detlint.rules.catalogue_pages import pages
    from detlint.rules.docs import catalogue_json, rule_json, rule_page

    catalogue = pages()
    if key is None:
        # --all, or the list as JSON: a program gets every rule's whole entry, one
        # document shape for both, of which the text list's columns are a part.
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
