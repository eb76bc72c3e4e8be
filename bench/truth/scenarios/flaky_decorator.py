"""The flaky package's own decorator, ``from flaky import flaky``, instead of the marker."""

from bench.truth.scenario import Scenario

IMPORT = ("from flaky import flaky",)

SCENARIOS = (
    Scenario(
        "flaky-deco-max3-min1-T5",
        "flaky",
        ("@flaky(max_runs=3, min_passes=1)",),
        5,
        imports=IMPORT,
        expect_text=("max_runs=3", "5 trials"),
    ),
    Scenario(
        "flaky-deco-bare-T5",
        "flaky",
        ("@flaky",),
        5,
        imports=IMPORT,
        expect_text=("max_runs=2", "5 trials"),
        note="bare: max_runs=2, min_passes=1",
    ),
    Scenario(
        "flaky-deco-max2-T5",
        "flaky",
        ("@flaky(max_runs=2)",),
        5,
        imports=IMPORT,
        expect_text=("max_runs=2", "5 trials"),
    ),
)
