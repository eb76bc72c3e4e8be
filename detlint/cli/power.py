"""``detlint power``: the calculator, one knob's detection curve in numbers."""

from __future__ import annotations

import click

from detlint.cli.values import observed_option, probability_option, rates_option


@click.command()
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
    help="Per-trial violation rates for the table, as fractions or percentages, each in (0, 1].",
)
@click.option(
    "--reference-rate",
    callback=probability_option,
    default="0.1",
    show_default=True,
    help="The violation rate the trial recommendation is computed for (q_ref), in (0, 1).",
)
@click.option(
    "--target",
    callback=probability_option,
    default="0.95",
    show_default=True,
    help="The chance of a report the recommended trial count must reach, in (0, 1).",
)
@click.option(
    "--observed",
    callback=observed_option,
    metavar="K/N",
    help="K violations seen in N trials: the rate, its Wilson 95% interval, and "
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
    from detlint.model.power import Knobs, analyse, build_policy
    from detlint.report.power import render_json, render_text

    knobs = Knobs(trials, reruns, retries, max_runs, min_passes, repeat, job_retries, soft_fail)
    try:
        policy = build_policy(knobs)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    analysis = analyse(policy, rates, reference_rate, target, observed, green_runs)
    render = render_json if output_format == "json" else render_text
    click.echo(render(analysis), nl=False)
