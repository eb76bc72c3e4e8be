"""pytest-retry: retries=N, and a violation raised in a fixture (which it never retries)."""

from bench.truth.scenario import Scenario

SCENARIOS = (
    Scenario(
        "retry-retries2-T1",
        "pytest-retry",
        ("@pytest.mark.flaky(retries=2)",),
        1,
        expect_text=("retries=2",),
        fast=True,
    ),
    Scenario(
        "retry-retries2-T5",
        "pytest-retry",
        ("@pytest.mark.flaky(retries=2)",),
        5,
        expect_text=("retries=2", "5 trials"),
    ),
    Scenario("retry-bare-T1", "pytest-retry", ("@pytest.mark.flaky",), 1),
    Scenario(
        "retry-fixture-retries2-T1",
        "pytest-retry",
        ("@pytest.mark.flaky(retries=2)",),
        1,
        where="fixture",
        fast=True,
        note="pytest-retry does not retry setup errors",
    ),
    Scenario(
        "retry-fixture-retries2-T5",
        "pytest-retry",
        ("@pytest.mark.flaky(retries=2)",),
        5,
        where="fixture",
        note="pytest-retry does not retry setup errors",
    ),
    Scenario(
        "retry-module-fixture-retries2-T1",
        "pytest-retry",
        ("@pytest.mark.flaky(retries=2)",),
        1,
        where="module-fixture",
        fast=True,
        note="pytest-retry does not retry setup errors; the fixture is in the test module",
    ),
    Scenario(
        "retry-module-fixture-retries2-T5",
        "pytest-retry",
        ("@pytest.mark.flaky(retries=2)",),
        5,
        where="module-fixture",
        note="pytest-retry does not retry setup errors; the fixture is in the test module",
    ),
)
