"""Markers above the test: on its class, and in the module's ``pytestmark`` (one mark or a list)."""

from bench.truth.scenario import Scenario

SCENARIOS = (
    Scenario(
        "rr-class-reruns2-T5",
        "rerunfailures",
        trials=5,
        class_decorators=("@pytest.mark.flaky(reruns=2)",),
        expect_text=("reruns=2", "5 trials"),
        fast=True,
        note="the marker is on the test's class",
    ),
    Scenario(
        "rr-pytestmark-reruns2-T5",
        "rerunfailures",
        trials=5,
        module_code="pytestmark = pytest.mark.flaky(reruns=2)\n",
        expect_text=("reruns=2", "5 trials"),
    ),
    Scenario(
        "rr-pytestmark-list-reruns2-T5",
        "rerunfailures",
        trials=5,
        module_code="pytestmark = [pytest.mark.flaky(reruns=2)]\n",
        expect_text=("reruns=2", "5 trials"),
    ),
    Scenario(
        "retry-class-retries2-T5",
        "pytest-retry",
        trials=5,
        class_decorators=("@pytest.mark.flaky(retries=2)",),
        expect_text=("retries=2", "5 trials"),
    ),
    Scenario(
        "retry-pytestmark-retries2-T5",
        "pytest-retry",
        trials=5,
        module_code="pytestmark = pytest.mark.flaky(retries=2)\n",
        expect_text=("retries=2", "5 trials"),
    ),
    Scenario(
        "retry-pytestmark-list-retries2-T5",
        "pytest-retry",
        trials=5,
        module_code="pytestmark = [pytest.mark.flaky(retries=2)]\n",
        expect_text=("retries=2", "5 trials"),
    ),
)
