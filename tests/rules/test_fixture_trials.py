"""A trial loop in a fixture, and checks in conftest.py fixtures a test requests.

pytest-rerunfailures 16.7 and flaky 3.8.1 set a function-scoped fixture up again on each
attempt, so a test whose body checks nothing runs the fixture's trial loop per attempt
(``bench/truth``: ``rr-fixture-reruns2-T5`` and ``flaky-fixture-max3-T5``, 23/300 reported
against a claim of 6.9%). pytest-retry 1.7.0 retries no setup: its marker hides nothing of
such a test, whether the fixture is in the test module or in a conftest.py that reaches it
(``retry-fixture-retries2-T1``: 36/300 reported, 10%).
"""

from __future__ import annotations

from realworld_cases import FLAKY, RERUNFAILURES, RETRY, audit, check, findings, one_test, only

CONFTEST = """\
import random

import pytest


@pytest.fixture
def violation(request):
    draws = random.Random(request.node.nodeid)
    for _ in range(5):
        assert draws.random() >= 0.1
    yield
"""

TEST = """\
import pytest


@pytest.mark.flaky({knob})
def test_case(violation):
    pass
"""

DETECTS = 1 - 0.9**5


def _head(reported: str, base: str, knob: str, requirement: str) -> str:
    return (
        f"rerun marker hides intermittent failures: a 10% violation is reported {reported} of "
        f"the time instead of {base} ({knob}; {requirement} from requirements-test.txt:1; "
    )


def test_a_conftest_fixture_trial_loop_is_the_test_s_under_rerunfailures(tmp_path):
    files = {
        **RERUNFAILURES,
        "tests/conftest.py": CONFTEST,
        "tests/unit/test_x.py": TEST.format(knob="reruns=2"),
    }
    finding = only(check(tmp_path, files), "DET101")
    assert finding["line"] == 4
    assert finding["message"] == _head(
        "6.9%", "41.0%", "reruns=2", "pytest-rerunfailures==16.7"
    ) + ("5 trials (literal loop bound in fixture `violation` of tests/conftest.py))")
    assert finding["numbers"]["trials"] == 5
    assert abs(finding["numbers"]["reported"] - DETECTS**3) < 1e-12


def test_a_module_fixture_trial_loop_is_the_test_s_under_flaky(tmp_path):
    module = CONFTEST + "\n\n" + TEST.format(knob="max_runs=3").replace("import pytest\n", "")
    finding = only(check(tmp_path, {**FLAKY, "tests/test_x.py": module}), "DET101")
    assert finding["line"] == 16
    assert "5 trials (literal loop bound in fixture `violation`))" in finding["message"]
    assert abs(finding["numbers"]["reported"] - DETECTS**3) < 1e-12


def test_pytest_retry_hides_nothing_of_a_conftest_fixture_check(tmp_path):
    files = {
        **RETRY,
        "tests/conftest.py": CONFTEST,
        "tests/test_x.py": TEST.format(knob="retries=2"),
    }
    assert findings(check(tmp_path, files), "DET101") == []
    test = one_test(audit(tmp_path / "audit", files), "test_case")
    assert test["trials"]["count"] == 5
    assert (
        test["trials"]["origin"] == "literal loop bound in fixture `violation` of tests/conftest.py"
    )
    assert test["notes"] == [
        "pytest-retry retries the test's call only, and its checks are in fixture `violation`: "
        "a failure there is reported at once"
    ]
    assert abs(test["numbers"]["reported"] - DETECTS) < 1e-12


def test_a_module_fixture_of_the_same_name_hides_the_conftest_one(tmp_path):
    module = (
        "import pytest\n\n\n@pytest.fixture\ndef violation():\n    return 1\n\n\n"
        "@pytest.mark.flaky(retries=2)\ndef test_case(violation):\n    pass\n"
    )
    files = {**RETRY, "tests/conftest.py": CONFTEST, "tests/test_x.py": module}
    finding = only(check(tmp_path, files), "DET101")
    assert (
        finding["message"]
        == _head("0.10%", "10.0%", "retries=2", "pytest-retry==1.7.0")
        + "1 attempt, no trial loop recognised)"
    )


def test_the_nearest_conftest_definition_is_the_one_read(tmp_path):
    nearer = "import pytest\n\n\n@pytest.fixture\ndef violation():\n    yield 1\n"
    files = {
        **RETRY,
        "tests/conftest.py": CONFTEST,
        "tests/unit/conftest.py": nearer,
        "tests/unit/test_x.py": TEST.format(knob="retries=2"),
    }
    finding = only(check(tmp_path, files), "DET101")
    assert "1 attempt, no trial loop recognised" in finding["message"]
    assert "retries the test's call only" not in finding["message"]


def test_a_wider_scoped_fixture_checks_at_setup_but_gives_no_trial_count(tmp_path):
    conftest = CONFTEST.replace("@pytest.fixture\n", '@pytest.fixture(scope="module")\n')
    files = {
        **RERUNFAILURES,
        "tests/conftest.py": conftest,
        "tests/test_x.py": TEST.format(knob="reruns=2"),
    }
    finding = only(check(tmp_path, files), "DET101")
    assert (
        finding["message"]
        == _head("0.10%", "10.0%", "reruns=2", "pytest-rerunfailures==16.7")
        + "1 attempt, no trial loop recognised)"
    )
    retried = {**files, **RETRY}
    assert findings(check(tmp_path / "retry", retried), "DET101") == []


def test_a_body_that_checks_too_keeps_its_own_trial_count(tmp_path):
    test = (
        "import pytest\n\n\n@pytest.mark.flaky(retries=2)\ndef test_case(violation):\n"
        "    for _ in range(3):\n        assert run() == run()\n"
    )
    files = {**RETRY, "tests/conftest.py": CONFTEST, "tests/test_x.py": test}
    finding = only(check(tmp_path, files), "DET101")
    assert finding["message"] == _head("2.0%", "27.1%", "retries=2", "pytest-retry==1.7.0") + (
        "pytest-retry retries the test's call only: a failure in fixture `violation` at the "
        "first attempt's setup is reported at once, so these figures are for the body's "
        "checks; 3 trials (literal loop bound))"
    )
