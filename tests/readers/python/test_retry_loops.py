"""Loops that retry one check are one trial; loops that check and then pause are trials.

Shaped on skyportal's Playwright helpers (`for attempt in range(5):` click, `break`
on success, the timeout swallowed unless it is the last attempt; `_enable_switch(page,
name, attempts=3)` re-clicking until `expect(...)` passes, `return` on success) and on
sentinela's heartbeat test (`for _ in range(2): await monitor.refresh(); assert
monitor.last_heartbeat > ...; await asyncio.sleep(0.1)` in an `async def` test).
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, check, only

NO_LOOP = "1 attempt, no trial loop recognised"


def _message(tmp_path, body: str, helpers: str = "", asynchronous: bool = False) -> str:
    define = "async def" if asynchronous else "def"
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_loop.py": "import asyncio\nimport time\n\nimport pytest\n"
            + helpers
            + f"\n\n@pytest.mark.flaky(reruns=3)\n{define} test_loop(page):\n"
            + "".join(f"    {line}\n" for line in body.strip("\n").split("\n")),
        },
    )
    return only(document, "DET101")["message"]


ONE_TRIAL = "a 10% violation is reported 0.010% of the time instead of 10.0%"

STOPPING_HELPER = """

def add_request(page):
    for attempt in range(5):
        page.select.click(force=True)
        try:
            page.allocation.click(timeout=15000)
            break
        except TimeoutError:
            if attempt == 4:
                raise
    page.submit.click()
"""

SWITCH_HELPER = """

def enable_switch(page, name, attempts=3):
    switch = page.locator(name)
    for attempt in range(attempts):
        if switch.count() > 0:
            return
        switch.click()
        try:
            assert switch.is_visible()
            return
        except AssertionError:
            if attempt == attempts - 1:
                raise
"""

SWALLOWING_HELPER = """

def wait_visible(page):
    for attempt in range(4):
        page.click()
        try:
            assert page.visible()
        except AssertionError:
            if attempt == 3:
                raise
"""


COUNTED_LOOP = (
    "for attempt in range(5):\n    page.click()\n    try:\n        assert page.ok()\n"
    "        break\n    except AssertionError:\n        if attempt == 4:\n            raise"
)


def test_a_counted_retry_loop_in_the_body_is_one_trial_and_a_retry_of_its_own(tmp_path):
    """Five passes inside each of the marker's four attempts: 0.1^20, and DET103 at the
    loop says what the loop alone hides (0.1^5)."""
    message = _message(tmp_path, COUNTED_LOOP)
    assert "a 10% violation is reported <0.001% of the time instead of 10.0%" in message
    assert message.endswith(f"{NO_LOOP})")
    document = check(
        tmp_path / "again",
        {
            **RERUNFAILURES,
            "tests/test_loop.py": "def test_loop(page):\n"
            + "".join(f"    {line}\n" for line in COUNTED_LOOP.split("\n")),
        },
    )
    loop = only(document, "DET103")
    assert loop["line"] == 2
    assert "reported <0.001% of the time instead of 10.0% (5 attempts;" in loop["message"]
    assert abs(loop["numbers"]["reported"] - 0.1**5) < 1e-15


@pytest.mark.parametrize(
    ("body", "helpers"),
    [
        # A function the test calls: `break` once the step succeeds, re-raise on the last pass.
        ("add_request(page)", STOPPING_HELPER),
        # Its bound a parameter's default, `return` on success, called three times.
        (
            'enable_switch(page, "a")\nenable_switch(page, "b")\nenable_switch(page, "c")',
            SWITCH_HELPER,
        ),
        # No `break`: the failing check is swallowed on every pass but the last.
        ("wait_visible(page)", SWALLOWING_HELPER),
        # The same loops in the test's own body (the counted one: test below).
        (
            "for _ in range(5):\n    page.click()\n    try:\n        assert page.ok()\n"
            "    except AssertionError:\n        time.sleep(1)",
            "",
        ),
        (
            "for _ in range(5):\n    out = page.run()\n    assert out.ok\n    if out.done:\n"
            "        break",
            "",
        ),
        # tenacity's Retrying: each attempt swallows its block's failure until the stop.
        (
            "for attempt in Retrying(retry=retry_if_exception_type(AssertionError),\n"
            "                        stop=stop_after_delay(60)):\n"
            "    with attempt:\n        assert page.run() == 1",
            "\nfrom tenacity import Retrying, retry_if_exception_type, stop_after_delay\n",
        ),
        (
            "retrying = tenacity.Retrying(stop=tenacity.stop_after_attempt(3))\n"
            "for attempt in retrying:\n    with attempt:\n        assert page.run() == 1",
            "\nimport tenacity\n",
        ),
    ],
)
def test_a_loop_that_retries_one_check_is_one_trial(tmp_path, body, helpers):
    message = _message(tmp_path, body, helpers)
    assert ONE_TRIAL in message
    assert message.endswith(f"{NO_LOOP})")


@pytest.mark.parametrize(
    ("body", "trials", "figures"),
    [
        # A `try` that steps over an error of the code it runs swallows no check.
        (
            "for _ in range(5):\n    try:\n        page.reload()\n    except TimeoutError:\n"
            "        pass\n    assert page.run() == 1",
            "5 trials (literal loop bound)",
            "reported 2.8% of the time instead of 41.0%",
        ),
        # Failures counted in the handler, read by a check after the loop: trials.
        (
            "failures = 0\nfor _ in range(5):\n    try:\n        assert page.run() == 1\n"
            "    except AssertionError:\n        failures += 1\nassert failures == 0",
            "5 trials (literal loop bound)",
            "reported 2.8% of the time instead of 41.0%",
        ),
    ],
)
def test_a_loop_that_does_not_retry_keeps_its_trials(tmp_path, body, trials, figures):
    message = _message(tmp_path, body)
    assert figures in message
    assert message.endswith(f"{trials})")


@pytest.mark.parametrize(
    ("body", "trials", "figures"),
    [
        # sentinela: refresh, assert, then pause before the next pass: 2 trials,
        # 1 - 0.9**2 = 19.0% an attempt, 0.19**4 = 0.13% with three reruns.
        (
            "for _ in range(2):\n    await page.refresh()\n    assert page.beat > 3\n"
            "    await asyncio.sleep(0.1)",
            "2 trials (literal loop bound)",
            "reported 0.13% of the time instead of 19.0%",
        ),
        (
            "for _ in range(4):\n    await page.refresh()\n    assert page.beat > 3\n"
            "    time.sleep(0.1)",
            "4 trials (literal loop bound)",
            "reported 1.4% of the time instead of 34.4%",
        ),
        # An awaited function of the module that asserts is a check each pass.
        (
            "for _ in range(3):\n    await check_beat(page)",
            "3 trials (literal loop bound)",
            "reported 0.54% of the time instead of 27.1%",
        ),
        # ipykernel: each pass checks the i-th step of one sequence, paced by a sleep.
        (
            "for i in range(5):\n    await page.reenter()\n    assert str(i) in page.text\n"
            "    time.sleep(0.2)",
            NO_LOOP,
            ONE_TRIAL,
        ),
        # A loop that sleeps before it looks waits for something: no trials.
        (
            "for _ in range(4):\n    await asyncio.sleep(0.1)\n    await page.refresh()\n"
            "    assert page.beat > 3",
            NO_LOOP,
            ONE_TRIAL,
        ),
    ],
)
def test_awaited_trial_loops_are_counted(tmp_path, body, trials, figures):
    helper = "\n\nasync def check_beat(page):\n    assert await page.beat() > 3\n"
    message = _message(tmp_path, body, helper, asynchronous=True)
    assert figures in message
    assert message.endswith(f"{trials})")


def test_an_async_tenacity_loop_is_one_trial(tmp_path):
    """`async for attempt in AsyncRetrying(...)` polls until its checks pass
    (osparc-simcore's service status loop): no trial loop, whatever its stop."""
    body = (
        "async for attempt in AsyncRetrying(reraise=True, stop=stop_after_delay(60)):\n"
        "    with attempt:\n        response = await page.get()\n"
        "        assert response.status_code == 200\n"
        '        assert response.json()["state"] == "running"'
    )
    helpers = "\nfrom tenacity import AsyncRetrying, stop_after_delay\n"
    message = _message(tmp_path, body, helpers, asynchronous=True)
    assert ONE_TRIAL in message
    assert message.endswith(f"{NO_LOOP})")


TENACITY_LOOPS = """\
import tenacity
from tenacity import AsyncRetrying, Retrying, retry_if_exception_type, stop_after_attempt
from tenacity import stop_after_delay

_PARAMS = {"stop": stop_after_delay(5)}

def test_counted(page):
    for attempt in Retrying(
        retry=retry_if_exception_type(AssertionError), stop=stop_after_attempt(3)
    ):
        with attempt:
            assert page.run() == 1


async def test_timed(page):
    async for attempt in AsyncRetrying(reraise=True, stop=stop_after_delay(60)):
        with attempt:
            assert (await page.get()).ok


def test_other_errors(page):
    for attempt in Retrying(retry=retry_if_exception_type(OSError), stop=stop_after_attempt(5)):
        with attempt:
            assert page.run() == 1


async def test_splat(page):
    async for attempt in AsyncRetrying(**_PARAMS):
        with attempt:
            assert page.run() == 1


def test_made_elsewhere(page):
    retrying = tenacity.Retrying(stop=stop_after_attempt(3))
    for attempt in retrying:
        with attempt:
            assert page.run() == 1


async def test_own_attempts(page):
    async for attempt in retry_asserts(max_attempts=3):
        with attempt:
            assert page.run() == 1
"""


def test_tenacity_loops_are_a_retry_of_their_checks(tmp_path):
    """A literal `stop_after_attempt(3)` with an AssertionError retried: three attempts
    over the loop's checks; a stop on time, `**params`, a `Retrying` made elsewhere or
    attempts of the repository's own: named without a count;
    `retry_if_exception_type(OSError)` retries no assertion: nothing."""
    document = check(
        tmp_path,
        {"requirements-test.txt": "pytest\ntenacity\n", "tests/test_loop.py": TENACITY_LOOPS},
    )
    found = {f["line"]: f for f in document["findings"] if f["code"] == "DET103"}
    assert set(found) == {8, 16, 28, 35, 41}
    assert found[8]["message"] == (
        "the retry loop `for attempt in Retrying(...)` in the test body hides intermittent "
        "failures: a 10% violation is reported 0.10% of the time instead of 10.0% (3 attempts; "
        "it retries the checks the loop holds (the test's other checks run once), and the "
        f"figure is for a violation among them; {NO_LOOP})"
    )
    assert found[8]["numbers"]["reported"] == pytest.approx(0.1**3)
    assert found[16]["message"] == (
        "the retry loop `async for attempt in AsyncRetrying(...)` in the test body has no "
        "literal attempt limit (stop=`stop_after_delay(60)`): a violation is reported only if "
        "every attempt shows it (it retries the checks the loop holds (the test's other "
        f"checks run once); {NO_LOOP})"
    )
    assert found[35]["message"] == (
        "the retry loop `for attempt in retrying` in the test body has no literal attempt "
        "limit (`retrying` gives the attempts; it is not read): a violation is reported "
        "only if every attempt shows it (it retries the checks the loop holds (the test's "
        f"other checks run once); {NO_LOOP})"
    )
    assert found[41]["message"].startswith(
        "the retry loop `async for attempt in retry_asserts(...)` in the test body has no "
        "literal attempt limit (`retry_asserts(...)` gives the attempts; it is not read)"
    )
    assert (
        "(its arguments come from `**_PARAMS`, not read; taken to retry an assertion "
        "failure, as tenacity does by default)" in found[28]["message"]
    )
