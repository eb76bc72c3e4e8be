"""A skip or xfail a test calls after some of its checks: those checks ran first, and a
violation among them has failed the test before the call is reached, so the finding
names them and gives its figure for the checks after the call only."""

from __future__ import annotations

from repo_expectations import run_audit, run_check


def _findings(root, text: str) -> list[tuple[str, int, str]]:
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests/test_order.py").write_text(text)
    _, document = run_check(root)
    return [(f["code"], f["line"], f["message"]) for f in document["findings"]]


XFAIL_AFTER_ASSERT = """import pytest


def test_long_run():
    result = run()
    assert result.ok
    diagnostics = result.diagnostics
    if diagnostics.get("ess") is None:
        pytest.xfail("long run unstable (missing ESS)")
    assert diagnostics["ess"] > 100
"""


def test_an_xfail_after_an_assert_hides_only_the_checks_after_it(repository):
    ((code, line, message),) = _findings(repository, XFAIL_AFTER_ASSERT)
    assert (code, line) == ("DET201", 9)
    assert message == (
        "pytest.xfail() quarantines a test as 'unstable' where `diagnostics.get(\"ess\") is "
        'None` with no tracking issue (reason "long run unstable (missing ESS)"): the check '
        "on line 6 runs before it and still fails the build on a violation; it hides the "
        "checks after it: a 10% violation in those shows as XFAIL 10.0% of the time but "
        "never fails the build (was reported 10.0%; 1 attempt, no trial loop recognised)"
    )


SKIPTEST_AFTER_ASSERT_EQUAL = """import unittest


class EnqueuerTest(unittest.TestCase):
    def test_context_switch(self):
        acc = collect(100)
        self.assertEqual(acc[-1], 99)
        acc = []
        self.skipTest("b/145555807 flakily timing out.")
        acc = collect(100)
        self.assertEqual(acc[-1], 99 * 15)
"""


def test_a_skiptest_after_an_assert_equal_leaves_that_check_running(repository):
    ((code, line, message),) = _findings(repository, SKIPTEST_AFTER_ASSERT_EQUAL)
    assert (code, line) == ("DET202", 9)
    assert message == (
        "test skipped as 'flakily': the check on line 7 runs before it and still fails the "
        "build on a violation, but the checks after it never run, so a 10% violation in "
        "those is never reported (was 10.0%) and nothing shows it (1 attempt, no trial loop "
        "recognised)"
    )


SKIP_UNDER_IF = """import pytest


def test_server():
    reply = ask()
    assert reply.status == 200
    assert check_headers(reply)
    if reply.slow:
        pytest.skip("flaky: server too slow")
    assert reply.body == b"ok"
"""


def test_a_skip_under_an_if_after_checks(repository):
    ((code, line, message),) = _findings(repository, SKIP_UNDER_IF)
    assert (code, line) == ("DET202", 9)
    assert message.startswith(
        "test skipped as 'flaky' where `reply.slow`: there the checks on lines 6 and 7 run "
        "before it and still fail the build on a violation, but the checks after it never "
        "run, so a 10% violation in those is never reported (was 10.0%)"
    )


SKIP_FIRST = """import pytest


def test_server():
    if slow():
        pytest.skip("flaky: server too slow")
    reply = ask()
    assert reply.status == 200
"""


def test_a_skip_before_every_check_is_unchanged(repository):
    ((code, line, message),) = _findings(repository, SKIP_FIRST)
    assert (code, line) == ("DET202", 6)
    assert message.startswith(
        "test skipped as 'flaky' where `slow()`: there it never runs, so a 10% violation "
        "is never reported (was 10.0%)"
    )


XFAIL_IN_EXCEPT = """import pytest


def test_fit():
    data = load()
    assert data.shape == (3, 2)
    try:
        result = fit(data)
        assert result.converged
    except {caught}:
        pytest.xfail("fit unstable")
    assert result.loss < 1
"""


def test_an_xfail_in_an_except_clause_that_takes_the_violation(repository):
    # A violation in the `try:` body raises into `except Exception:`: it shows as XFAIL;
    # the check before the `try:` still fails the build.
    ((code, line, message),) = _findings(repository, XFAIL_IN_EXCEPT.format(caught="Exception"))
    assert (code, line) == ("DET201", 11)
    assert '(reason "fit unstable"): the check on line 6 runs before it and still ' in message
    assert "a 10% violation in those shows as XFAIL 10.0% of the time" in message


def test_an_xfail_in_an_except_clause_for_another_error(repository):
    # `except OSError:` takes no AssertionError: the `try:` body's check fails the build.
    ((code, line, message),) = _findings(repository, XFAIL_IN_EXCEPT.format(caught="OSError"))
    assert (code, line) == ("DET201", 11)
    assert '(reason "fit unstable"): the checks on lines 6 and 9 run before it and ' in message


def test_an_xfail_in_an_except_clause_before_any_other_check(repository):
    text = (
        "import pytest\n\n\ndef test_fit():\n    try:\n        result = fit()\n"
        "        assert result.converged\n    except Exception:\n"
        "        pytest.xfail('fit unstable')\n"
    )
    ((code, line, message),) = _findings(repository, text)
    # The check ran, and its violation is what the clause turns into XFAIL.
    assert (code, line) == ("DET201", 9)
    assert '"fit unstable"): a 10% violation shows as XFAIL 10.0% of the time but' in message


SKIP_LAST = """import unittest


class ServerTest(unittest.TestCase):
    def test_server(self):
        reply = ask()
        self.assertEqual(reply.status, 200)
        self.skipTest("flaky: the rest is not written yet")
"""


def test_a_skip_after_every_check_hides_no_failure(repository):
    assert _findings(repository, SKIP_LAST) == []
    (test,) = run_audit(repository)["tests"]
    assert "self.skipTest() comes after every check: it hides no failure" in test["notes"]


SKIP_IN_LOOP = """import pytest


def test_rounds():
    assert setup_ok()
    for size in (1, 2, 3):
        reply = ask(size)
        if reply.slow:
            pytest.skip("flaky: slow round")
        assert reply.status == 200
"""


def test_a_skip_in_a_loop_is_followed_by_the_later_passes(repository):
    # The check after it by line ran in the passes before, and runs in the passes after:
    # the skip is not after every check, and only the check before the loop is named.
    ((code, line, message),) = _findings(repository, SKIP_IN_LOOP)
    assert (code, line) == ("DET202", 9)
    assert ": there the check on line 5 runs before it and still fails the build" in message


def test_an_xfail_after_a_try_that_calls_no_check_comes_before_every_check(repository):
    # The `try:` body runs library code, no check of the test's: the checks come after.
    text = (
        "import pytest\n\n\ndef test_fit():\n    try:\n        result = lib.fit()\n"
        "    except Exception as exc:\n        pytest.xfail(f'fit unstable: {exc}')\n"
        "    assert result.converged\n"
    )
    ((code, line, message),) = _findings(repository, text)
    assert (code, line) == ("DET201", 8)
    assert "it comes before every check, so the checks never run" in message
