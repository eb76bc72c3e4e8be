"""flaky (box/flaky): max_runs/min_passes through the marker and a violation in a fixture."""

from bench.truth.scenario import Scenario

SCENARIOS = (
    Scenario(
        "flaky-max3-min1-T1",
        "flaky",
        ("@pytest.mark.flaky(max_runs=3, min_passes=1)",),
        1,
        expect_text=("max_runs=3",),
        fast=True,
    ),
    Scenario(
        "flaky-max3-min2-T1",
        "flaky",
        ("@pytest.mark.flaky(max_runs=3, min_passes=2)",),
        1,
        expect_text=("max_runs=3", "min_passes=2"),
    ),
    Scenario(
        "flaky-max3-min1-T5",
        "flaky",
        ("@pytest.mark.flaky(max_runs=3, min_passes=1)",),
        5,
        expect_text=("max_runs=3", "5 trials"),
    ),
    Scenario("flaky-bare-T1", "flaky", ("@pytest.mark.flaky",), 1),
    Scenario(
        "flaky-fixture-max3-T1",
        "flaky",
        ("@pytest.mark.flaky(max_runs=3, min_passes=1)",),
        1,
        where="fixture",
        expect_text=("max_runs=3",),
    ),
    Scenario(
        "flaky-fixture-max3-T5",
        "flaky",
        ("@pytest.mark.flaky(max_runs=3, min_passes=1)",),
        5,
        where="fixture",
        expect_text=("max_runs=3",),
    ),
)
