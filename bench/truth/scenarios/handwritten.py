"""Retries written by hand in the test module, and tenacity."""

from bench.truth.scenario import Scenario

RETRY_LOOP = """
import functools


def retry(test):
    @functools.wraps(test)
    def attempts(*args, **kwargs):
        for attempt in range(3):
            try:
                return test(*args, **kwargs)
            except AssertionError:
                if attempt == 2:
                    raise

    return attempts

"""

SCENARIOS = (
    Scenario(
        "handwritten-retry-loop3-T1",
        "rerunfailures",
        ("@retry",),
        1,
        module_code=RETRY_LOOP,
        note="a decorator in the module: 3 attempts",
    ),
    Scenario(
        "tenacity-stop3-T1",
        "tenacity",
        ("@tenacity.retry(stop=tenacity.stop_after_attempt(3), reraise=True)",),
        1,
        imports=("import tenacity",),
        expect_text=("3",),
    ),
)
