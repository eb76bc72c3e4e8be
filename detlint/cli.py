"""The ``detlint`` command line: the group, its error handling and its commands.

Errors are one line on stderr and exit status 2, never a traceback: detlint
runs in pre-commit hooks and CI logs, where a usage banner or a stack trace
buries the one sentence that matters. ``DETLINT_DEBUG=1`` shows tracebacks
for internal errors.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from detlint import __version__
from detlint.cli_rule import rule
from detlint.cli_values import observed_option, probability_option, rates_option
from detlint.settings import Settings

EXIT_USAGE = 2


class DetlintGroup(click.Group):
    """A click group that reports every error in one line with exit status 2."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            result = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:
            error.show()  # bare `detlint`: the help text, not an error line
            sys.exit(EXIT_USAGE)
        except click.ClickException as error:
            context = getattr(error, "ctx", None)
            where = context.command_path if context is not None else "detlint"
            click.echo(f"{where}: error: {error.format_message()}", err=True)
            sys.exit(EXIT_USAGE)
        except click.Abort:
            click.echo("detlint: aborted", err=True)
            sys.exit(EXIT_USAGE)
        except Exception as error:  # an internal error must not reach users as a traceback
            if os.environ.get("DETLINT_DEBUG"):
                raise
            click.echo(
                f"detlint: internal error: {type(error).__name__}: {error} "
                "(set DETLINT_DEBUG=1 for the traceback and please report it)",
                err=True,
            )
            sys.exit(EXIT_USAGE)
        sys.exit(result if isinstance(result, int) else 0)


@click.group(cls=DetlintGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="detlint")
def cli() -> None:
    """Find the knobs that make CI quiet and say, in numbers, what each one hides."""


@cli.command()
@click.option(
    "--trials",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Trials per attempt; the test fails if any trial shows a violation.",
)
@click.option(
    "--reruns",
    type=click.IntRange(min=0),
    help="pytest-rerunfailures reruns (a bare @pytest.mark.flaky is 1).",
)
@click.option(
    "--retries", type=click.IntRange(min=0), help="pytest-retry retries (a bare marker is 1)."
)
@click.option(
    "--max-runs",
    type=click.IntRange(min=1),
    help="The flaky package's max_runs (default 2 when --min-passes is given).",
)
@click.option(
    "--min-passes",
    type=click.IntRange(min=1),
    help="The flaky package's min_passes (default 1 when --max-runs is given).",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    help="pytest-repeat count: every copy must pass (raises detection).",
)
@click.option(
    "--job-retries",
    type=click.IntRange(min=0),
    help="CI job retries whose rules cover the test-failure exit status.",
)
@click.option(
    "--soft-fail",
    is_flag=True,
    help="The CI gate never blocks (soft_fail, continue-on-error, allow_failure).",
)
@click.option(
    "--rates",
    callback=rates_option,
    default="0.05,0.1,0.2,0.5,0.9",
    show_default=True,
    help="Per-trial violation rates for the table, as fractions or percentages.",
)
@click.option(
    "--reference-rate",
    callback=probability_option,
    default="0.1",
    show_default=True,
    help="The violation rate the trial recommendation is computed for (q_ref).",
)
@click.option(
    "--target",
    callback=probability_option,
    default="0.95",
    show_default=True,
    help="The chance of a report the recommended trial count must reach.",
)
@click.option(
    "--observed",
    callback=observed_option,
    metavar="K/N",
    help="K violations seen in N trials: the rate, its Wilson 95%% interval, and "
    "what the knob makes of it.",
)
@click.option(
    "--green-runs",
    type=click.IntRange(min=1),
    metavar="N",
    help="The upper bound on the rate that N green CI runs establish.",
)
@click.option(
    "--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def power(
    trials: int,
    reruns: int | None,
    retries: int | None,
    max_runs: int | None,
    min_passes: int | None,
    repeat: int | None,
    job_retries: int | None,
    soft_fail: bool,
    rates: tuple[float, ...],
    reference_rate: float,
    target: float,
    observed: tuple[int, int] | None,
    green_runs: int | None,
    output_format: str,
) -> None:
    """How much a retry or soft-fail knob lowers the chance a violation is reported.

    \b
    Example, a test with 5 trials and @pytest.mark.flaky(reruns=3):
      detlint power --trials 5 --reruns 3
    """
    from detlint.power import Knobs, analyse, build_policy
    from detlint.report.power import render_json, render_text

    knobs = Knobs(trials, reruns, retries, max_runs, min_passes, repeat, job_retries, soft_fail)
    try:
        policy = build_policy(knobs)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    analysis = analyse(policy, rates, reference_rate, target, observed, green_runs)
    render = render_json if output_format == "json" else render_text
    click.echo(render(analysis), nl=False)


def _settings(
    config: Path | None,
    paths: tuple[Path, ...],
    select: str | None,
    ignore: str | None,
    extend_select: str | None,
) -> tuple[Settings, frozenset[str]]:
    """Settings from the config file, overridden by the command line, and the codes to run."""
    from detlint.rules.catalogue import select_codes, unknown_codes
    from detlint.settings import SettingsError, load_settings

    try:
        settings = load_settings(config, paths[0] if paths else Path.cwd())
    except SettingsError as error:
        raise click.UsageError(str(error)) from None

    def codes(text: str | None) -> tuple[str, ...] | None:
        return None if text is None else tuple(c.strip() for c in text.split(",") if c.strip())

    chosen_select = codes(select) if select is not None else settings.select
    chosen_ignore = (codes(ignore) or ()) + settings.ignore
    chosen_extend = (codes(extend_select) or ()) + settings.extend_select
    for pattern_list in (chosen_select or (), chosen_ignore, chosen_extend):
        unknown = unknown_codes(pattern_list)
        if unknown:
            raise click.UsageError(f"unknown rule code {unknown[0]!r}")
    return settings, select_codes(chosen_select, chosen_ignore, chosen_extend)


PATHS = click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
CONFIG = click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="A pyproject.toml or detlint.toml to read [tool.detlint] from.",
)
SELECT = click.option("--select", help="Rule codes or prefixes to run, e.g. DET1,DET201 or ALL.")
IGNORE = click.option("--ignore", help="Rule codes or prefixes to skip.")
EXTEND = click.option("--extend-select", help="Rule codes to add to the defaults, e.g. DET301.")


# The formats of `detlint check`; detlint.report.formats.FORMATS is the same tuple
# (a test keeps them equal), spelled out here so that `--help` imports nothing.
CHECK_FORMATS = ("concise", "full", "json", "sarif", "github", "junit", "buildkite")
SEVERITIES = ("info", "warning", "error")


@cli.command()
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
) -> int:
    """Lint test files, pytest config, dependencies and CI pipelines for knobs that hide failures.

    \b
    Exit status: 0 clean, 1 findings (at or above --fail-on), 2 usage or internal
    error, whatever the output format.
    """
    from detlint.check_run import CheckOptions, finish_check
    from detlint.engine import analyse
    from detlint.report.formats import render, render_statistics

    settings, selected = _settings(config, paths, select, ignore, extend_select)
    if baseline is not None and write_baseline is not None:
        raise click.UsageError("--baseline and --write-baseline cannot be used together")
    options = CheckOptions(
        baseline=baseline,
        write_baseline=write_baseline,
        fail_on=fail_on if fail_on is not None else settings.fail_on,
        exit_zero=exit_zero,
    )
    cwd = Path.cwd()
    analysis = analyse(paths, cwd, settings, selected)
    try:
        outcome = finish_check(analysis, settings, selected, options, cwd)
    except ValueError as error:  # a baseline file that cannot be read or written
        raise click.UsageError(str(error)) from None
    if outcome.baseline_written is not None:
        count = outcome.baseline_written
        click.echo(
            f"Wrote {count} finding{'s' if count != 1 else ''} to {write_baseline}.", err=True
        )
        return 0
    if statistics:
        text = render_statistics(outcome.report)
    else:
        text = render(output_format, outcome.report)
    _emit(text, output_file)
    return outcome.exit_status


def _emit(text: str, output_file: Path | None) -> None:
    """Print the report, or write it to ``output_file`` (the only file check writes)."""
    if output_file is None:
        click.echo(text, nl=False)
        return
    try:
        output_file.write_text(text, encoding="utf-8")
    except OSError as error:
        raise click.FileError(str(output_file), error.strerror) from None


@cli.command()
@PATHS
@click.option("--output-format", type=click.Choice(["json"]), default="json", show_default=True)
@click.option(
    "--output-file",
    type=click.Path(path_type=Path, dir_okay=False, writable=True),
    help="Write the inventory to this file instead of standard output.",
)
@CONFIG
def audit(
    paths: tuple[Path, ...], output_format: str, output_file: Path | None, config: Path | None
) -> None:
    """The inventory: every knob, and each test's composed policy and numbers."""
    from detlint.engine import analyse
    from detlint.report.audit import render_audit_json

    settings, selected = _settings(config, paths, None, None, None)
    analysis = analyse(paths, Path.cwd(), settings, selected)
    _emit(render_audit_json(analysis, settings.reference_rate, settings.target), output_file)


cli.add_command(rule)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="detlint")
