"""Scenario groups, one module each; ``ALL`` in the order the table prints them."""

from bench.truth.scenario import Scenario
from bench.truth.scenarios import flaky, handwritten, rerunfailures, retry, xfail_skip

ALL: tuple[Scenario, ...] = (
    *rerunfailures.SCENARIOS,
    *flaky.SCENARIOS,
    *retry.SCENARIOS,
    *xfail_skip.SCENARIOS,
    *handwritten.SCENARIOS,
)
