"""``detlint evidence``: what the reports CI keeps say about each test.

A report, not a gate: it exits 0 unless the command line is wrong or no report
given could be read (2: a CI step whose artifact download failed must not pass as
"0 builds, nothing flaky"), or with ``--fail-on-flaky`` (1) when a test passed only
after a rerun.

Each report that could not be read is said once to the person running it: in
the text report on standard output, or on standard error when the report is a
document for another program or a file (JSON, Markdown, ``-o``), which keeps
them too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from detlint.cli.shared import CONFIG, emit, settings_and_codes

if TYPE_CHECKING:
    from collections.abc import Sequence

    from detlint.evidence.match import PolicyMatcher
    from detlint.evidence.reports.records import ReportProblem
    from detlint.evidence.view import EvidenceView


@click.command()
@click.argument("reports", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--repo",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="The repository the tests come from: its knobs say what each measured rate "
    "means (reported under the knobs, and what green builds prove).",
)
@click.option(
    "--output-format",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
)
@click.option(
    "--output-file",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False, writable=True),
    help="Write the report to this file instead of standard output.",
)
@click.option(
    "--build-per-dir",
    is_flag=True,
    help="Each directory given is one build (its report files merged); by default each "
    "report file is a build.",
)
@click.option(
    "--infrastructure-share",
    type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True),
    default=0.8,
    show_default=True,
    help="A build where more than this share of the tests failed is an infrastructure "
    "failure, counted apart.",
)
@click.option("--fail-on-flaky", is_flag=True, help="Exit 1 when a test passed only after a rerun.")
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Print the tests worth a look and nothing else: no summary, no reports not read "
    "(an error that stops the run is still said).",
)
@CONFIG
def evidence(
    reports: tuple[Path, ...],
    repo: Path | None,
    output_format: str,
    output_file: Path | None,
    build_per_dir: bool,
    infrastructure_share: float,
    fail_on_flaky: bool,
    quiet: bool,
    config: tuple[str, ...],
) -> int:
    """What CI reports (JUnit XML, pytest --report-log) say about each test.

    \b
    Exit status: 0 read, 1 a test passed only after a rerun (with --fail-on-flaky),
    2 usage error or no readable report among the inputs.
    """
    from detlint.evidence.quotes import builds_of
    from detlint.evidence.view import evidence_view, flaky_tests

    policy_of = None
    if repo is not None:
        policy_of = _matcher(repo, config)
    problems: list[ReportProblem] = []
    view = evidence_view(
        builds_of(reports, build_per_dir, problems, None),
        policy_of,
        infrastructure_share,
    )
    said = list(dict.fromkeys(f"{problem.source}: {problem.message}" for problem in problems))
    if view.builds == 0:
        for problem in said:
            click.echo(f"detlint evidence: not read: {problem}", err=True)
        click.echo(
            f"detlint evidence: error: no readable report among the inputs ({len(reports)} given)",
            err=True,
        )
        return 2
    if (output_file is not None or output_format != "text") and not quiet:
        for problem in said:
            click.echo(f"detlint evidence: not read: {problem}", err=True)
    emit(_rendered(view, () if quiet else said, output_format, quiet), output_file)
    return 1 if fail_on_flaky and flaky_tests(view) else 0


def _rendered(view: EvidenceView, said: Sequence[str], output_format: str, quiet: bool) -> str:
    if output_format == "json":
        from detlint.report.evidence import render_json

        return render_json(view, said)
    if output_format == "markdown":
        from detlint.report.evidence import render_markdown

        return render_markdown(view, said)
    from detlint.report.evidence import render_text

    return render_text(view, said, quiet=quiet)


def _matcher(repo: Path, config: tuple[str, ...]) -> PolicyMatcher:
    from detlint.engine import analyse
    from detlint.evidence.match import PolicyMatcher

    settings, selected = settings_and_codes(config, (repo,), None, None, None)
    analysis = analyse((repo,), Path.cwd(), settings, selected)
    return PolicyMatcher(analysis.gates)
