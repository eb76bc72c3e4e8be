"""Scenario groups, one module each; ``ALL`` in the order the table prints them."""

from bench.truth.scenario import Scenario
from bench.truth.scenarios import (
    ci_retries,
    combined,
    conditions,
    flaky,
    flaky_decorator,
    handwritten,
    marker_levels,
    rerunfailures,
    retry,
    run_options,
    xfail_skip,
)

ALL: tuple[Scenario, ...] = (
    *rerunfailures.SCENARIOS,
    *flaky.SCENARIOS,
    *retry.SCENARIOS,
    *xfail_skip.SCENARIOS,
    *handwritten.SCENARIOS,
    *marker_levels.SCENARIOS,
    *flaky_decorator.SCENARIOS,
    *run_options.SCENARIOS,
    *ci_retries.SCENARIOS,
    *combined.SCENARIOS,
    *conditions.SCENARIOS,
)
