"""A ``flaky`` marker where flaky is declared beside another rerun plugin.

Measured with pytest 8, pytest-rerunfailures 16.7, flaky 3.8.1 and pytest-retry 1.7.0
all installed, in both load orders (``-p flaky`` registers flaky first): flaky's setup
hook reads the marker whichever plugin's protocol runs the test, so ``reruns=3`` (or
``reruns_delay=``, or pytest-retry's ``retries=``) is a TypeError at setup and the test
errors on every run, even one that would pass: it blocks, it hides nothing. A bare
marker runs twice either way; ``max_runs=4`` ran 4 times where flaky won and twice
(read as bare) where pytest-rerunfailures won.
"""

from __future__ import annotations

from realworld_cases import check, findings, only

BOTH = {"requirements-test.txt": "pytest-rerunfailures==16.7\nflaky==3.8.1\n"}
THREE = {"requirements-test.txt": "pytest-rerunfailures==16.7\nflaky==3.8.1\npytest-retry==1.7.0\n"}


def _marked(arguments: str) -> dict[str, str]:
    return {
        "tests/test_x.py": (
            f"import pytest\n\n\n@pytest.mark.flaky{arguments}\ndef test_x():\n    assert run()\n"
        )
    }


def test_reruns_under_both_errors_on_every_run_and_hides_nothing(tmp_path):
    document = check(tmp_path, {**BOTH, **_marked("(reruns=3)")})
    assert findings(document, "DET101") == []
    finding = only(document, "DET102")
    assert finding["line"] == 4
    assert finding["message"] == (
        "`reruns=` is not an argument of the flaky package's marker, and flaky is declared "
        "beside pytest-rerunfailures: flaky's setup hook raises a TypeError whichever plugin "
        "runs the test, so the test errors on every run, in either install order (reported "
        "100% of the time, violation or not)"
    )
    # Every run is red, violation or not: the numbers say so (the truth harness measured
    # 1000 of 1000 instances erroring).
    assert finding["numbers"]["reported"] == 1.0
    assert finding["numbers"]["visible"] == 1.0
    assert abs(finding["numbers"]["reported_without"] - 0.1) < 1e-12
    assert "install order, and the other's" not in finding["message"]
    assert finding["help"].startswith("keep one rerun plugin in the dependencies")


def test_every_keyword_flaky_rejects_is_named(tmp_path):
    document = check(tmp_path, {**BOTH, **_marked("(reruns=2, reruns_delay=1)")})
    assert findings(document, "DET101") == []
    assert only(document, "DET102")["message"].startswith(
        "`reruns=`, `reruns_delay=` are not arguments of the flaky package's marker, and "
        "flaky is declared beside pytest-rerunfailures:"
    )


def test_retries_with_flaky_and_two_others_errors_too(tmp_path):
    document = check(tmp_path, {**THREE, **_marked("(retries=2)")})
    assert findings(document, "DET101") == []
    assert only(document, "DET102")["message"].startswith(
        "`retries=` is not an argument of the flaky package's marker, and flaky is declared "
        "beside pytest-rerunfailures and pytest-retry: flaky's setup hook raises"
    )


def test_a_bare_marker_under_both_still_runs_twice(tmp_path):
    document = check(tmp_path, {**BOTH, **_marked("")})
    assert findings(document, "DET102") == []
    finding = only(document, "DET101")
    assert abs(finding["numbers"]["reported"] - 0.1**2) < 1e-15
    assert "whichever takes it, a bare marker runs twice" in finding["message"]


def test_max_runs_under_both_depends_on_which_plugin_runs_the_test(tmp_path):
    document = check(tmp_path, {**BOTH, **_marked("(max_runs=4)")})
    rerun = only(document, "DET101")
    assert abs(rerun["numbers"]["reported"] - 0.1**4) < 1e-15
    assert (
        "both flaky and pytest-rerunfailures are declared; they fight over `flaky`: where "
        "pytest-rerunfailures takes the test it reruns it once, as a bare marker"
    ) in rerun["message"]
    assert "depends on install order" in only(document, "DET102")["message"]


def test_flaky_alone_is_not_the_two_plugin_finding(tmp_path):
    flaky = {"requirements-test.txt": "flaky==3.8.1\n"}
    finding = only(check(tmp_path, {**flaky, **_marked("(reruns=3)")}), "DET102")
    message = finding["message"]
    assert "declared beside" not in message
    assert message.startswith(
        "`reruns=` is not an argument of the flaky package's marker: the test errors with a "
        "TypeError at setup instead of running (reported 100% of the time, violation or not) ("
    )
    assert finding["numbers"]["reported"] == 1.0


def test_a_keyword_pytest_rerunfailures_ignores_has_no_numbers_of_its_own(tmp_path):
    rerun = {"requirements-test.txt": "pytest-rerunfailures==16.7\n"}
    finding = only(check(tmp_path, {**rerun, **_marked("(reruns=2, max_runs=3)")}), "DET102")
    assert "100%" not in finding["message"]
    assert finding["numbers"] is None
