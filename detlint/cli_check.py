"""``detlint check``: lint, filter, report in the chosen format, exit by severity."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from detlint.cli_shared import (
    CACHE_DIR,
    CONFIG,
    EVIDENCE,
    EXTEND,
    IGNORE,
    NO_CACHE,
    PATHS,
    SELECT,
    emit,
    facts_cache,
    settings_and_codes,
)
from detlint.severity import SEVERITIES

if TYPE_CHECKING:
    from detlint.check_run import CheckOutcome
    from detlint.engine import Analysis

# The formats of `detlint check`; detlint.report.formats.FORMATS is the same tuple
# (a test keeps them equal), spelled out so that defining the option imports no formatter.
CHECK_FORMATS = ("concise", "full", "json", "sarif", "github", "junit", "buildkite")
# The formats whose findings carry their fix's edits (built only for them).
EDIT_FORMATS = ("json", "sarif")


@click.command()
@PATHS
@click.option(
    "--output-format",
    type=click.Choice(CHECK_FORMATS),
    default="concise",
    show_default=True,
    help="concise and full for people; json, sarif, github, junit and buildkite for tools.",
)
@click.option(
    "--output-file",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False, writable=True),
    help="Write the report to this file instead of standard output.",
)
@click.option("--statistics", is_flag=True, help="Print how many findings each rule has.")
@SELECT
@IGNORE
@EXTEND
@CONFIG
@click.option(
    "--fail-on",
    type=click.Choice(SEVERITIES),
    help="Exit 1 only for findings of this severity or worse (default: any finding).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Report only findings that this baseline file does not record.",
)
@click.option(
    "--write-baseline",
    type=click.Path(path_type=Path, dir_okay=False, writable=True),
    help="Record today's findings in this file and exit 0.",
)
@click.option(
    "--fix/--no-fix",
    default=None,
    help="Apply the fixes this run may apply (safe ones; unsafe ones too with --unsafe-fixes); "
    "the default is the `fix` setting.",
)
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help="Count unsafe fixes as applicable: nearly every detlint fix changes what CI does; "
    "the default is the `unsafe-fixes` setting.",
)
@click.option(
    "--diff",
    is_flag=True,
    help="Print a unified diff of what --fix would change and write nothing "
    "(exit 1 when there is a diff).",
)
@click.option("--show-fixes", is_flag=True, help="List what --fix fixed, by file and code.")
@click.option("--fix-only", is_flag=True, help="Apply fixes and report no remaining finding.")
@click.option(
    "--exit-non-zero-on-fix",
    is_flag=True,
    help="Exit 1 when --fix fixed anything, even if no finding remains.",
)
@EVIDENCE
@NO_CACHE
@CACHE_DIR
def check(
    paths: tuple[Path, ...],
    output_format: str,
    output_file: Path | None,
    statistics: bool,
    select: str | None,
    ignore: str | None,
    extend_select: str | None,
    config: Path | None,
    fail_on: str | None,
    exit_zero: bool,
    baseline: Path | None,
    write_baseline: Path | None,
    fix: bool | None,
    unsafe_fixes: bool | None,
    diff: bool,
    show_fixes: bool,
    fix_only: bool,
    exit_non_zero_on_fix: bool,
    evidence: tuple[Path, ...],
    no_cache: bool,
    cache_dir: Path | None,
) -> int:
    """Lint test files, pytest config, dependencies and CI pipelines for knobs that hide failures.

    \b
    Exit status: 0 clean, 1 findings (at or above --fail-on), 2 usage or internal
    error, whatever the output format.
    """
    from detlint.check_run import CheckOptions, finish_check
    from detlint.engine import analyse
    from detlint.report.formats import render, render_statistics

    settings, selected = settings_and_codes(config, paths, select, ignore, extend_select)
    if baseline is not None and write_baseline is not None:
        raise click.UsageError("--baseline and --write-baseline cannot be used together")
    options = CheckOptions(
        baseline=baseline,
        write_baseline=write_baseline,
        fail_on=fail_on if fail_on is not None else settings.fail_on,
        exit_zero=exit_zero,
    )
    cwd = Path.cwd()
    cache = facts_cache(no_cache, cache_dir)
    fix = settings.fix if fix is None else fix
    unsafe_fixes = settings.unsafe_fixes if unsafe_fixes is None else unsafe_fixes

    def run_check() -> CheckOutcome:
        analysis = analyse(paths, cwd, settings, selected, cache=cache)
        if evidence:
            analysis = quoting_evidence(analysis, evidence, settings.reference_rate)
        try:
            return finish_check(analysis, settings, selected, options, cwd)
        except ValueError as error:  # a baseline file that cannot be read or written
            raise click.UsageError(str(error)) from None

    if fix or fix_only or diff:
        if write_baseline is not None:
            raise click.UsageError("--write-baseline cannot be used with --fix or --diff")
        from detlint.cli_fix import FixFlags, check_with_fixes

        fixing = FixFlags(fix or fix_only, unsafe_fixes, diff, show_fixes, fix_only)
        return check_with_fixes(
            run_check, fixing, output_format, output_file, statistics, exit_non_zero_on_fix
        )
    outcome = run_check()
    if outcome.baseline_written is not None:
        count = outcome.baseline_written
        click.echo(
            f"Wrote {count} finding{'s' if count != 1 else ''} to {write_baseline}.", err=True
        )
        return 0
    if statistics:
        text = render_statistics(outcome.report)
    else:
        report = outcome.report._replace(unsafe_fixes=unsafe_fixes)
        if output_format in EDIT_FORMATS:
            from detlint.cli_fix import with_fixes

            report = with_fixes(report, output_format, unsafe_fixes)
        text = render(output_format, report)
    emit(text, output_file)
    return outcome.exit_status


def quoting_evidence(
    analysis: Analysis, reports: tuple[Path, ...], reference_rate: float
) -> Analysis:
    """``analysis`` with its findings quoting the reports; what was not read, on stderr."""
    from detlint.evidence_quotes import read_evidence, with_evidence

    view = read_evidence(analysis, reports)
    return with_evidence(analysis, view, reference_rate)
