"""``detlint check``: lint, filter, report in the chosen format, exit by severity."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from detlint.base.severity import SEVERITIES
from detlint.cli.shared import (
    CACHE_DIR,
    CONFIG,
    EVIDENCE,
    EXCLUDE,
    EXTEND,
    EXTEND_EXCLUDE,
    FORCE_EXCLUDE,
    IGNORE,
    ISOLATED,
    NO_CACHE,
    PATHS,
    PER_FILE_IGNORES,
    SELECT,
    emit,
    facts_cache,
    flag_layers,
    resolve,
)
from detlint.report.formats import EDIT_FORMATS, FORMATS, TEXT_FORMATS

if TYPE_CHECKING:
    from detlint.cli.check_run import CheckOutcome
    from detlint.engine import Analysis


@click.command()
@PATHS
@click.option(
    "--output-format",
    type=click.Choice(FORMATS),
    default="concise",
    show_default=True,
    help="concise and full for people; json, sarif, gitlab, github, junit and buildkite for tools.",
)
@click.option(
    "--output-file",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False, writable=True),
    help="Write the report to this file instead of standard output.",
)
@click.option("--statistics", is_flag=True, help="Print how many findings each rule has.")
@click.option(
    "--color",
    type=click.Choice(("auto", "always", "never")),
    default="auto",
    show_default=True,
    help="Colour the concise and full output: auto colours it on a terminal, never in a "
    "file or when NO_COLOR is set (FORCE_COLOR forces it). Machine formats are never coloured.",
)
@SELECT
@IGNORE
@EXTEND
@EXCLUDE
@EXTEND_EXCLUDE
@PER_FILE_IGNORES
@FORCE_EXCLUDE
@CONFIG
@ISOLATED
@click.option(
    "--show-settings", is_flag=True, help="Print the settings and where each came from, and exit."
)
@click.option("--show-files", is_flag=True, help="List the files a check would read, and exit.")
@click.option(
    "--stdin-filename",
    metavar="PATH",
    help="Read the file's text from standard input (give `-` as the path): PATH says what "
    "it is, where it lives and which config applies.",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Say on stderr which config file, pytest config and plugin declarations were used.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print the findings and nothing else.")
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
    color: str,
    select: str | None,
    ignore: str | None,
    extend_select: str | None,
    exclude: str | None,
    extend_exclude: str | None,
    per_file_ignores: tuple[str, ...],
    force_exclude: bool | None,
    config: tuple[str, ...],
    isolated: bool,
    show_settings: bool,
    show_files: bool,
    stdin_filename: str | None,
    verbose: bool,
    quiet: bool,
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
    from detlint.cli.check_run import CheckOptions, finish_check
    from detlint.engine import analyse
    from detlint.report.formats import render
    from detlint.report.statistics import render_statistics

    paths, stdin = _stdin_paths(paths, stdin_filename, fix or fix_only or diff)
    flags = flag_layers(
        select, ignore, extend_select, exclude, extend_exclude, per_file_ignores, force_exclude
    )
    resolved, selected = resolve(config, paths, isolated=isolated, flags=flags)
    settings = resolved.settings
    if show_settings or show_files:
        from detlint.cli.inspect import show_setup

        shown = show_setup(resolved, selected, paths, Path.cwd(), show_files, show_settings)
        click.echo(shown, nl=False)
        return 0
    if baseline is not None and write_baseline is not None:
        raise click.UsageError("--baseline and --write-baseline cannot be used together")
    options = CheckOptions(
        baseline=baseline,
        write_baseline=write_baseline,
        fail_on=fail_on if fail_on is not None else settings.fail_on,
        exit_zero=exit_zero,
    )
    cwd = Path.cwd()
    cache = None if stdin is not None else facts_cache(no_cache, cache_dir)
    fix = settings.fix if fix is None else fix
    unsafe_fixes = settings.unsafe_fixes if unsafe_fixes is None else unsafe_fixes
    fix = fix and stdin is None  # `fix = true` in config: standard input has no file to write

    from detlint.report.colour import colour_enabled

    # Colour is for the text a person reads: the concise and full formats, and the
    # statistics lines (every format but json); never a machine-readable document.
    text_output = output_format in TEXT_FORMATS or (statistics and output_format != "json")
    stream = sys.stdout if output_file is None else None
    coloured = text_output and colour_enabled(color, stream, os.environ)
    timings: list[float] = []  # seconds of each analysis (--fix runs one per round)
    if stdin is not None:
        # Standard input's text stands in for its file until the command ends: for the
        # analysis, and for the fixes and source lines the output reads after it.
        from detlint.base.source import unsaved_text

        click.get_current_context().with_resource(unsaved_text(cwd / paths[0], stdin))

    def run_check() -> CheckOutcome:
        started = time.perf_counter()
        analysis = analyse(paths, cwd, settings, selected, cache=cache)
        timings.append(time.perf_counter() - started)
        if verbose and not quiet:
            from detlint.cli.inspect import verbose_lines

            for line in verbose_lines(resolved, analysis, cwd):
                click.echo(line, err=True)
        if evidence:
            analysis = quoting_evidence(analysis, evidence, settings.reference_rate)
        try:
            outcome = finish_check(analysis, settings, selected, options, cwd)
        except ValueError as error:  # a baseline file that cannot be read or written
            raise click.UsageError(str(error)) from None
        report = outcome.report._replace(elapsed=sum(timings), color=coloured, quiet=quiet)
        return outcome._replace(report=report)

    if fix or fix_only or diff:
        if write_baseline is not None:
            raise click.UsageError("--write-baseline cannot be used with --fix or --diff")
        from detlint.cli.fix_options import FixFlags, check_with_fixes

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
    report = outcome.report._replace(unsafe_fixes=unsafe_fixes)
    if statistics:
        text = render_statistics(report, output_format)
    else:
        if output_format in EDIT_FORMATS:
            from detlint.cli.fix_options import with_fixes

            report = with_fixes(report, output_format, unsafe_fixes)
        text = render(output_format, report)
    if report.color and output_file is None:
        click.echo(text, nl=False, color=True)  # click would strip the codes off a pipe
    else:
        emit(text, output_file)
    return outcome.exit_status


def quoting_evidence(
    analysis: Analysis, reports: tuple[Path, ...], reference_rate: float
) -> Analysis:
    """``analysis`` with its findings quoting the reports; what was not read, on stderr."""
    from detlint.evidence.quotes import read_evidence, with_evidence

    view = read_evidence(analysis, reports)
    return with_evidence(analysis, view, reference_rate)


def _stdin_paths(
    paths: tuple[Path, ...], stdin_filename: str | None, fixing: bool
) -> tuple[tuple[Path, ...], bytes | None]:
    """The paths to check, and standard input's bytes when ``-`` (or ``--stdin-filename``
    alone) asks for them; the stand-in path is the one ``--stdin-filename`` names."""
    wants_stdin = Path("-") in paths or (stdin_filename is not None and not paths)
    if not wants_stdin:
        if stdin_filename is not None:
            raise click.UsageError("--stdin-filename needs `-` as the path to check")
        return paths, None
    if len(paths) > 1:
        raise click.UsageError("`-` (standard input) cannot be checked with other paths")
    if stdin_filename is None:
        raise click.UsageError(
            "reading standard input needs --stdin-filename PATH: the path says whether the "
            "text is a test module or a pipeline, and which config applies"
        )
    if fixing:
        raise click.UsageError("--fix and --diff cannot be used with standard input")
    return (Path(stdin_filename),), sys.stdin.buffer.read()
