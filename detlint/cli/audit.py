"""``detlint audit``: the inventory of every knob and each test's composed policy.

JSON for machines, self-contained HTML for a team lead deciding what to change,
Markdown for a CI summary or a PR comment, and a short text summary for a person
at a terminal (the default there; JSON is the default when the output is piped or
written to a file).
"""

from __future__ import annotations

import datetime
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from detlint.cli.shared import (
    CACHE_DIR,
    CONFIG,
    EVIDENCE,
    EXCLUDE,
    EXTEND_EXCLUDE,
    ISOLATED,
    NO_CACHE,
    PATHS,
    emit,
    facts_cache,
    flag_layers,
    resolve,
)

if TYPE_CHECKING:
    from detlint.base.progress import Progress
    from detlint.engine import Analysis

FORMATS = ("json", "html", "markdown", "text")
REPORT_EXTRA = "pip install 'detlint[report]'"


def _report_libraries_missing() -> str | None:
    """The first library the HTML report needs that is not installed, if any."""
    import importlib.util

    for name in ("jinja2", "matplotlib"):
        if importlib.util.find_spec(name) is None:
            return name
    return None


def _date() -> str:
    """Now, or ``SOURCE_DATE_EPOCH`` when set (reproducible reports)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    moment = (
        datetime.datetime.fromtimestamp(int(epoch), tz=datetime.timezone.utc)
        if epoch.isdigit()
        else datetime.datetime.now(tz=datetime.timezone.utc)
    )
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def _command() -> str:
    return shlex.join(["detlint", *sys.argv[1:]])


@click.command()
@PATHS
@click.option(
    "--output-format",
    type=click.Choice(FORMATS),
    default=None,
    help="json: the whole inventory (the default when the output is not a terminal); "
    "html: one offline page with plots (needs the report extra); markdown: a summary for "
    "a CI step or a PR comment; text: a summary to read (the default on a terminal).",
)
@click.option(
    "--output-file",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False, writable=True),
    help="Write the report to this file instead of standard output.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@EVIDENCE
@CONFIG
@ISOLATED
@EXCLUDE
@EXTEND_EXCLUDE
@NO_CACHE
@CACHE_DIR
def audit(
    paths: tuple[Path, ...],
    output_format: str | None,
    output_file: Path | None,
    quiet: bool,
    evidence: tuple[Path, ...],
    config: tuple[str, ...],
    isolated: bool,
    exclude: str | None,
    extend_exclude: str | None,
    no_cache: bool,
    cache_dir: Path | None,
) -> None:
    """The inventory: every knob, and each test's composed policy and numbers."""
    from detlint.engine import analyse

    if output_format is None:
        on_terminal = output_file is None and sys.stdout.isatty()
        output_format = "text" if on_terminal else "json"
    if output_format == "html" and (missing := _report_libraries_missing()) is not None:
        raise click.UsageError(
            f"the HTML report needs {missing}, which is not installed: {REPORT_EXTRA}"
        )
    from detlint.base.progress import progress_bar

    flags = flag_layers(exclude=exclude, extend_exclude=extend_exclude)
    resolved, selected = resolve(config, paths, isolated=isolated, flags=flags)
    settings = resolved.settings
    # The bar is erased when the block ends, before the report is written.
    with progress_bar(not quiet) as progress:
        analysis = analyse(
            paths,
            Path.cwd(),
            settings,
            selected,
            cache=facts_cache(no_cache, cache_dir),
            progress=progress,
        )
        measured: dict[str, str] = {}
        if evidence:
            measured = _measured(analysis, evidence, settings.reference_rate)
        text = _render(
            analysis,
            settings.reference_rate,
            settings.target,
            output_format,
            paths,
            progress,
            measured,
        )
    emit(text, output_file)


def _render(
    analysis: Analysis,
    reference_rate: float,
    target: float,
    output_format: str,
    paths: tuple[Path, ...],
    progress: Progress,
    measured: dict[str, str],
) -> str:
    """The report as text; its steps are counted, so that a bar due on screen shows
    while the plots are drawn (a bar appears only when it is updated)."""
    progress.phase("writing the report", 3, "steps")
    if output_format == "json":
        from detlint.report.audit.inventory import render_audit_json

        return render_audit_json(analysis, reference_rate, target)
    from detlint.report.audit.view import audit_view

    view = audit_view(analysis, Path.cwd(), reference_rate, target, _command(), _date(), measured)
    progress.advance()
    title = " ".join(path.as_posix() for path in paths) or Path.cwd().name
    if output_format == "text":
        from detlint.report.audit.terminal import render_terminal

        return render_terminal(view, title)
    if output_format == "html":
        from detlint.report.audit.html import plots, render_html

        drawn = plots(view)
        progress.advance()
        return render_html(view, title, drawn)
    from detlint.report.audit.markdown import render_markdown

    return render_markdown(view, title)


def _measured(
    analysis: Analysis, reports: tuple[Path, ...], reference_rate: float
) -> dict[str, str]:
    """What the reports say of each test, by node id; the JSON audit is left as it is,
    the HTML rows and the findings quote it."""
    from detlint.evidence.quotes import quote, read_evidence

    view = read_evidence(analysis, reports)
    return {test.matched: quote(test, reference_rate) for test in view.tests if test.matched}
