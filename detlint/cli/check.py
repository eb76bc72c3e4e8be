"""``detlint check``: lint, filter, report in the chosen format, exit by severity."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from detlint.base.severity import SEVERITIES
from detlint.cli.check_arguments import CheckArguments, stdin_paths
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
    MAX_FILE_SIZE,
    NO_CACHE,
    PATHS,
    PER_FILE_IGNORES,
    SELECT,
    facts_cache,
    flag_layers,
    print_report,
    resolve,
)
from detlint.report.formats import FORMATS, TEXT_FORMATS

if TYPE_CHECKING:
    from detlint.cli.check_run import CheckedFindings, CheckOutcome
    from detlint.cli.config_files import Resolved
    from detlint.cli.run_cache import RunCache
    from detlint.engine import Analysis
    from detlint.readers.project.discovery import Discovery


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
@MAX_FILE_SIZE
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
def check(**arguments: Any) -> int:
    """Lint test files, pytest config, dependencies and CI pipelines for knobs that hide failures.

    \b
    Exit status: 0 clean, 1 findings (at or above --fail-on), 2 usage or internal
    error, whatever the output format.
    """
    return run_check_command(CheckArguments(**arguments))


def run_check_command(arguments: CheckArguments) -> int:
    """Set the run up, check (in rounds with ``--fix``), report and exit by severity."""
    paths, stdin = stdin_paths(arguments.paths, arguments.stdin_filename)
    flags = flag_layers(
        arguments.select,
        arguments.ignore,
        arguments.extend_select,
        arguments.exclude,
        arguments.extend_exclude,
        arguments.per_file_ignores,
        arguments.force_exclude,
        arguments.max_file_size,
    )
    resolved, selected = resolve(arguments.config, paths, isolated=arguments.isolated, flags=flags)
    if arguments.show_settings or arguments.show_files:
        from detlint.cli.inspect import show_setup

        shown = show_setup(
            resolved, selected, paths, Path.cwd(), arguments.show_files, arguments.show_settings
        )
        click.echo(shown, nl=False)
        return 0
    if arguments.baseline is not None and arguments.write_baseline is not None:
        raise click.UsageError("--baseline and --write-baseline cannot be used together")
    checker = Checker(arguments, paths, stdin, resolved, selected)
    settings = resolved.settings
    # Standard input is fixed when the command line asks (its fixed text is the output),
    # never by the `fix` setting, so that an editor piping a buffer gets findings.
    fix = (
        arguments.fix
        if stdin is not None
        else settings.fix
        if arguments.fix is None
        else arguments.fix
    )
    fix = bool(fix)
    # A run that writes (fixes, a baseline) or reads more than the tree (evidence,
    # standard input) analyses afresh; any other reuses an unchanged tree's result.
    checker.reuse = not (fix or arguments.fix_only or arguments.diff or arguments.evidence) and (
        arguments.write_baseline is None and stdin is None
    )
    if fix or arguments.fix_only or arguments.diff:
        if arguments.write_baseline is not None:
            raise click.UsageError("--write-baseline cannot be used with --fix or --diff")
        from detlint.cli.fix_options import FixFlags, check_with_fixes

        flags_of_fixes = FixFlags(
            fix or arguments.fix_only,
            checker.unsafe_fixes,
            arguments.diff,
            arguments.show_fixes,
            arguments.fix_only,
            checker.cwd / paths[0] if stdin is not None else None,
        )
        return check_with_fixes(checker.run, flags_of_fixes, arguments)
    return report_check(arguments, checker.run(), checker.unsafe_fixes)


class Checker:
    """One check as the command line set it up; ``run`` analyses and filters (once, or
    once per ``--fix`` round)."""

    def __init__(
        self,
        arguments: CheckArguments,
        paths: tuple[Path, ...],
        stdin: bytes | None,
        resolved: Resolved,
        selected: frozenset[str],
    ) -> None:
        from detlint.cli.check_run import CheckOptions
        from detlint.readers.project.discovery import find_root
        from detlint.report.colour import colour_enabled

        settings = resolved.settings
        self.arguments, self.paths, self.resolved, self.selected = (
            arguments,
            paths,
            resolved,
            selected,
        )
        self.cwd = Path.cwd()
        self.stdin = stdin
        self.options = CheckOptions(
            baseline=arguments.baseline,
            write_baseline=arguments.write_baseline,
            project_root=None if arguments.write_baseline is None else find_root(paths),
            fail_on=arguments.fail_on if arguments.fail_on is not None else settings.fail_on,
            exit_zero=arguments.exit_zero,
            paths=paths,
        )
        self.cache = (
            None if stdin is not None else facts_cache(arguments.no_cache, arguments.cache_dir)
        )
        unsafe = arguments.unsafe_fixes
        self.unsafe_fixes = settings.unsafe_fixes if unsafe is None else unsafe
        # Colour is for the text a person reads: the concise and full formats, and the
        # statistics lines (every format but json); never a machine-readable document.
        output_format = arguments.output_format
        text_output = output_format in TEXT_FORMATS or (
            arguments.statistics and output_format != "json"
        )
        stream = sys.stdout if arguments.output_file is None else None
        self.coloured = text_output and colour_enabled(arguments.color, stream, os.environ)
        self.timings: list[float] = []  # seconds of each analysis (--fix runs one per round)
        self.reuse = False  # whether the run cache may give (and keep) the result
        self.warned: set[str] = set()  # warnings printed already
        if stdin is not None:
            # Standard input's text stands in for its file until the command ends: for
            # the analysis, and for the fixes and source lines the output reads after it.
            from detlint.base.source import unsaved_text

            click.get_current_context().with_resource(unsaved_text(self.cwd / paths[0], stdin))

    def run(self) -> CheckOutcome:
        from detlint.cli.check_run import finish_check

        arguments = self.arguments
        started = time.perf_counter()
        entry, discovery = self.stored() if self.reuse and self.cache is not None else (None, None)
        checked = entry.get() if entry is not None else None
        if checked is None:
            checked = self.analysed(started, discovery)
            if entry is not None:
                if entry.tree_settled and arguments.write_baseline is None:
                    from detlint.cli.fix_options import built_with

                    checked = built_with(checked, self.cwd)  # a repeat run builds none
                entry.put(checked)
        else:
            self.timings.append(time.perf_counter() - started)
            self.say(checked.described)
        self.warn(checked.warnings)
        try:
            outcome = finish_check(checked, self.options, self.cwd)
        except ValueError as error:  # a baseline file that cannot be read or written
            raise click.UsageError(str(error)) from None
        report = outcome.report._replace(
            elapsed=sum(self.timings), color=self.coloured, quiet=arguments.quiet
        )
        return outcome._replace(report=report)

    def analysed(self, started: float, discovery: Discovery | None) -> CheckedFindings:
        """Analyse the tree (walked already when ``discovery`` is given), quote the
        evidence, and filter the findings."""
        from detlint.cli.check_run import UNUSED_SUPPRESSION, CheckedFindings, filter_findings
        from detlint.cli.inspect import described_analysis
        from detlint.engine import analyse

        arguments, settings, cwd = self.arguments, self.resolved.settings, self.cwd
        analysis = analyse(
            self.paths, cwd, settings, self.selected, cache=self.cache, discovery=discovery
        )
        if self.stdin is None:
            from detlint.cli.dependency_change import altered

            analysis = altered(analysis, self.paths, cwd, settings, self.selected)
        self.timings.append(time.perf_counter() - started)
        described = described_analysis(analysis)
        self.say(described)
        if arguments.evidence:
            analysis = quoting_evidence(analysis, arguments.evidence, settings.reference_rate)
        findings, suppressed = filter_findings(analysis, settings, self.selected, cwd)
        warnings: tuple[str, ...] = ()
        if UNUSED_SUPPRESSION not in self.selected:  # DET902 reports these as findings
            from detlint.rules.suppression import unknown_code_warnings

            warnings = unknown_code_warnings(analysis.checked, cwd)
        return CheckedFindings(findings, suppressed, analysis.files_checked, described, warnings)

    def warn(self, warnings: tuple[str, ...]) -> None:
        """Each warning on stderr once (``--fix`` checks in rounds); none with ``-q``."""
        if self.arguments.quiet:
            return
        for line in warnings:
            if line not in self.warned:
                self.warned.add(line)
                click.echo(line, err=True)

    def say(self, described: tuple[str, ...]) -> None:
        """With ``-v`` (and not ``-q``), say on stderr how the run was set up."""
        if self.arguments.verbose and not self.arguments.quiet:
            from detlint.cli.inspect import verbose_lines

            for line in verbose_lines(self.resolved, described, self.cwd):
                click.echo(line, err=True)

    def stored(self) -> tuple[RunCache | None, Discovery]:
        """The run cache's entry for this check of the tree as walked now (None for a
        run on part of a tree, which reads the rest as context), and the walk."""
        from detlint.readers.ci.context import covers_tree
        from detlint.readers.project.discovery import discover_files
        from detlint.readers.project.scope import widened

        assert self.cache is not None
        settings, cwd = self.resolved.settings, self.cwd
        asked = widened(self.paths, cwd)
        discovery = discover_files(asked, cwd, settings)
        if not covers_tree(asked, discovery.root, cwd):
            return None, discovery  # a pre-commit run imports nothing of the cache's
        from detlint.base.facts_cache import FactsCache
        from detlint.cli.run_cache import run_cache

        store = FactsCache(self.cache.root, "runs-check")
        return run_cache(store, self.paths, cwd, settings, self.selected, discovery), discovery


def report_check(arguments: CheckArguments, outcome: CheckOutcome, unsafe_fixes: bool) -> int:
    """Print (or write) the report of a check without fixes, and its exit status."""
    if outcome.baseline_written is not None:
        count = outcome.baseline_written
        written = arguments.write_baseline
        click.echo(f"Wrote {count} finding{'s' if count != 1 else ''} to {written}.", err=True)
        return 0
    from detlint.cli.fix_options import with_fixes

    report = with_fixes(outcome.report, unsafe_fixes)
    output_format = arguments.output_format
    if arguments.statistics:
        from detlint.report.statistics import render_statistics

        text = render_statistics(report, output_format)
    else:
        from detlint.report.formats import render

        text = render(output_format, report)
    print_report(text, report.color, arguments.output_file)
    return outcome.exit_status


def quoting_evidence(
    analysis: Analysis, reports: tuple[Path, ...], reference_rate: float
) -> Analysis:
    """``analysis`` with its findings quoting the reports; what was not read, on stderr."""
    from detlint.evidence.quotes import read_evidence, with_evidence

    view = read_evidence(analysis, reports)
    return with_evidence(analysis, view, reference_rate)
