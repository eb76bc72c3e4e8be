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

BODY_LOOP = """
for attempt in range(3):
    try:
        assert draws.random() >= 0.1
        break
    except AssertionError:
        if attempt == 2:
            raise
"""

TENACITY_HELPER = """
@retry(stop=stop_after_attempt(3), reraise=True)
def check(draws):
    assert draws.random() >= 0.1

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
    Scenario(
        "handwritten-body-loop3-T1",
        "rerunfailures",
        body=BODY_LOOP,
        expect_text=("for attempt in range(3)", "3 attempts"),
        note="the retry loop is in the test body: 3 attempts",
    ),
    Scenario(
        "tenacity-helper-stop3-T1",
        "tenacity",
        imports=("from tenacity import retry, stop_after_attempt",),
        module_code=TENACITY_HELPER,
        body="check(draws)",
        expect_text=("3 attempts", "on check"),
        note="tenacity on a helper the test calls",
    ),
)
