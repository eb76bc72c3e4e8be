"""Rerun conditions: a literal bool, and rerunfailures' string condition."""

from bench.truth.scenario import Scenario

SCENARIOS = (
    Scenario(
        "rr-condition-false-T5",
        "rerunfailures",
        ("@pytest.mark.flaky(reruns=2, condition=False)",),
        5,
        note="condition=False: nothing is rerun",
    ),
    Scenario(
        "rr-condition-true-T5",
        "rerunfailures",
        ("@pytest.mark.flaky(reruns=2, condition=True)",),
        5,
        expect_text=("reruns=2", "5 trials"),
    ),
    Scenario(
        "rr-condition-string-T5",
        "rerunfailures",
        ("@pytest.mark.flaky(reruns=2, condition=\"sys.platform != 'zz'\")",),
        5,
        expect_text=("reruns=2", "5 trials"),
        note="a string condition true on every platform",
    ),
    Scenario(
        "retry-condition-false-T5",
        "pytest-retry",
        ("@pytest.mark.flaky(retries=2, condition=False)",),
        5,
        note="condition=False: nothing is retried",
    ),
)
