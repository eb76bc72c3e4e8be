"""``detlint evidence``: what the reports CI keeps say about each test.

A report, not a gate: it exits 0 unless the command line is wrong, or with
``--fail-on-flaky`` when a test passed only after a rerun.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from detlint.cli.shared import CONFIG, emit, settings_and_codes

if TYPE_CHECKING:
    from detlint.evidence.match import PolicyMatcher
    from detlint.evidence.reports.records import ReportProblem


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
@CONFIG
def evidence(
    reports: tuple[Path, ...],
    repo: Path | None,
    output_format: str,
    output_file: Path | None,
    build_per_dir: bool,
    infrastructure_share: float,
    fail_on_flaky: bool,
    config: tuple[str, ...],
) -> int:
    """What CI reports (JUnit XML, pytest --report-log) say about each test."""
    from detlint.evidence.quotes import builds_of
    from detlint.evidence.view import evidence_view, flaky_tests

    policy_of = None
    if repo is not None:
        policy_of = _matcher(repo, config)
    problems: list[ReportProblem] = []
    view = evidence_view(
        builds_of(reports, build_per_dir, problems, "detlint evidence"),
        policy_of,
        infrastructure_share,
    )
    said = [f"{problem.source}: {problem.message}" for problem in problems]  # read by now
    if output_format == "json":
        from detlint.report.evidence import render_json

        emit(render_json(view, said), output_file)
    elif output_format == "markdown":
        from detlint.report.evidence import render_markdown

        emit(render_markdown(view, said), output_file)
    else:
        from detlint.report.evidence import render_text

        emit(render_text(view, said), output_file)
    return 1 if fail_on_flaky and flaky_tests(view) else 0


def _matcher(repo: Path, config: tuple[str, ...]) -> PolicyMatcher:
    from detlint.engine import analyse
    from detlint.evidence.match import PolicyMatcher

    settings, selected = settings_and_codes(config, (repo,), None, None, None)
    analysis = analyse((repo,), Path.cwd(), settings, selected)
    return PolicyMatcher(analysis.gates)
