"""pytest-retry retries a test's call phase only; the other rerun plugins rerun setup too.

Measured with pytest 8 and pytest-retry 1.7.0: under ``flaky(retries=2)`` a fixture that
fails is set up once and the test reported as an error at once, while a failing body
runs 3 times (a fixture is set up again for each retry, and a failure there during a
retry counts as a failed attempt). pytest-rerunfailures 16.7 and flaky 3.8.1 rerun a
failed setup. So a pytest-retry marker hides nothing of a test whose checks are all in
a fixture; of one that checks in its body too, the figures are for the body's checks.
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, RETRY, check, findings, only

FIXTURE = """\
import os

import pytest

TRIALS = int(os.getenv("NEEDLE_TRIALS", "5"))


@pytest.fixture
def checked():
    for _ in range(TRIALS):
        assert run() == run()
    return 1


@pytest.fixture
def plain():
    return make()


"""

ONLY_FIXTURE = """\
@pytest.mark.flaky({count})
def test_fixture_only(checked):
    \"\"\"The fixture checks; the body has nothing that fails.\"\"\"
    pass
"""

BOTH = """\
@pytest.mark.flaky(retries=2)
def test_both(checked):
    for _ in range(TRIALS):
        assert run() == run()
"""

HEAD = (
    "rerun marker hides intermittent failures: a 10% violation is reported 6.9% of the "
    "time instead of 41.0% (retries=2; pytest-retry==1.7.0 from requirements-test.txt:1; "
)


def test_a_test_checked_only_in_a_fixture_gets_no_masking_from_pytest_retry(tmp_path):
    files = {**RETRY, "tests/test_x.py": FIXTURE + ONLY_FIXTURE.format(count="retries=2")}
    assert findings(check(tmp_path, files), "DET101") == []


def test_pytest_rerunfailures_reruns_the_fixture_and_still_hides(tmp_path):
    files = {**RERUNFAILURES, "tests/test_x.py": FIXTURE + ONLY_FIXTURE.format(count="reruns=2")}
    finding = only(check(tmp_path, files), "DET101")
    assert finding["line"] == 20
    assert "retries the test's call only" not in finding["message"]
    # The fixture's trial loop runs again with each rerun's setup: it is the test's.
    assert finding["message"].endswith("; 5 trials from NEEDLE_TRIALS)")
    assert abs(finding["numbers"]["reported"] - (1 - 0.9**5) ** 3) < 1e-12


def test_checks_in_both_keep_the_body_figures_and_say_so(tmp_path):
    finding = only(check(tmp_path, {**RETRY, "tests/test_x.py": FIXTURE + BOTH}), "DET101")
    assert finding["line"] == 20
    assert finding["message"] == (
        HEAD + "pytest-retry retries the test's call only: a failure in fixture `checked` "
        "(line 9) at the first attempt's setup is reported at once, so these figures are for "
        "the body's checks; 5 trials from NEEDLE_TRIALS)"
    )
    detects = 1 - 0.9**5
    assert abs(finding["numbers"]["reported"] - detects**3) < 1e-12


def test_a_fixture_that_checks_nothing_changes_nothing(tmp_path):
    body = BOTH.replace("test_both(checked)", "test_both(plain)")
    finding = only(check(tmp_path, {**RETRY, "tests/test_x.py": FIXTURE + body}), "DET101")
    assert finding["message"] == HEAD + "5 trials from NEEDLE_TRIALS)"


def test_class_and_usefixtures_fixtures_are_read(tmp_path):
    klass = (
        "class TestGroup:\n"
        "    @pytest.fixture\n"
        "    def guard(self):\n"
        "        if not ready():\n"
        "            pytest.fail('not ready')\n"
        "\n"
        "    @pytest.mark.flaky(retries=2)\n"
        "    def test_in_class(self, guard):\n"
        "        pass\n"
        "\n"
        "\n"
        "@pytest.mark.usefixtures('checked')\n"
        "@pytest.mark.flaky(retries=2)\n"
        "def test_used():\n"
        "    ...\n"
    )
    document = check(tmp_path, {**RETRY, "tests/test_x.py": FIXTURE + klass})
    assert findings(document, "DET101") == []


def test_a_body_that_calls_code_may_fail_so_the_marker_still_counts(tmp_path):
    body = (
        "@pytest.mark.flaky(retries=2)\n"
        "def test_uses_the_result(checked):\n"
        "    result = compute(checked)\n"
        "    publish(result)\n"
    )
    finding = only(check(tmp_path, {**RETRY, "tests/test_x.py": FIXTURE + body}), "DET101")
    assert finding["message"] == (
        "rerun marker hides intermittent failures: a 10% violation is reported 0.10% of the "
        "time instead of 10.0% (retries=2; pytest-retry==1.7.0 from requirements-test.txt:1; "
        "pytest-retry retries the test's call only: a failure in fixture `checked` (line 9) "
        "at the first attempt's setup is reported at once, so these figures are for the "
        "body's checks; 1 attempt, no trial loop recognised)"
    )


def test_a_fixture_that_only_asserts_is_read_though_the_file_is_narrowed(tmp_path):
    text = (
        "import pytest\n\n\n"
        "def unrelated():\n    return 1\n\n\n"
        "@pytest.fixture\ndef server():\n    assert ping()\n    return connect()\n\n\n"
        "@pytest.mark.flaky(retries=2)\ndef test_server(server):\n    pass\n\n\n"
        "@pytest.mark.flaky(reruns=2)\ndef test_elsewhere():\n    assert ping()\n"
    )
    document = check(tmp_path, {**RETRY, "tests/test_x.py": text})
    # test_elsewhere's marker is read as pytest-retry's (one retry, `reruns=` ignored).
    assert [f["line"] for f in findings(document, "DET101")] == [19]
