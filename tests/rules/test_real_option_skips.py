"""A conftest hook that skips a marker's tests unless a command-line option is given.

Distilled from xarray (``conftest.py``: ``if "flaky" in item.keywords and not
item.config.getoption("--run-flaky"): pytest.skip("set --run-flaky option to run flaky
tests")`` in ``pytest_runtest_setup``; bare ``@pytest.mark.flaky`` on tests in
``xarray/tests/test_backends.py``; no rerun plugin declared) and from pytest's own
documentation ("Control skipping of tests according to command line option": the
``pytest_collection_modifyitems`` form with ``item.add_marker(skip_slow)``).
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, audit, check, findings, one_test

PYTEST_ONLY = {"requirements-test.txt": "pytest==8.3.0\n"}
MARKED = """\
import pytest


@pytest.mark.{name}
def test_roundtrip():
    assert roundtrip() == 1
"""
RUNTEST_SETUP = """\
import pytest


def pytest_addoption(parser):
    parser.addoption("--run-flaky", action="store_true", help="runs flaky tests")


def pytest_runtest_setup(item):
    if "flaky" in item.keywords and not item.config.getoption("--run-flaky"):
        pytest.skip("set --run-flaky option to run flaky tests")
"""
MODIFYITEMS = """\
import pytest


def pytest_addoption(parser):
    parser.addoption("--run-{name}", action="store_true", default=False)


def pytest_collection_modifyitems(config, items):
    if config.getoption("run_{name}"):
        return
    skip_marked = pytest.mark.skip(reason="need --run-{name} option to run")
    for item in items:
        if item.get_closest_marker("{name}") is not None:
            item.add_marker(skip_marked)
"""
INLINE = """\
import pytest


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--run-flaky"):
        for item in items:
            if "flaky" in item.keywords:
                item.add_marker(pytest.mark.skip(reason="needs --run-flaky"))
"""
UNLESS = "unless `--run-flaky` is given"


def _project(conftest: str, name: str = "flaky", deps: dict[str, str] = PYTEST_ONLY) -> dict:
    return {**deps, "conftest.py": conftest, "tests/test_m.py": MARKED.format(name=name)}


def test_the_runtest_setup_form_skips_the_flaky_tests_unless_the_option_is_given(tmp_path):
    (skipped,) = findings(check(tmp_path, _project(RUNTEST_SETUP)))
    assert (skipped["code"], skipped["path"], skipped["line"]) == ("DET202", "tests/test_m.py", 4)
    assert skipped["message"] == (
        f"test skipped as 'flaky' {UNLESS} (the hook at conftest.py:10 skips every test "
        "marked `flaky`): in a run without it, it never runs, so a 10% violation is never "
        "reported (was 10.0%) and nothing shows it (1 attempt, no trial loop recognised)"
    )


def test_the_audit_composes_it_as_a_conditional_skip_not_a_project_marker(tmp_path):
    test = one_test(audit(tmp_path, _project(RUNTEST_SETUP)), "test_roundtrip")
    assert [(k["kind"], k["line"], k["condition"]) for k in test["knobs"]] == [
        ("skip", 4, "`--run-flaky` is not given")
    ]
    assert test["plugin"] is None
    assert not any("not judged" in note for note in test["notes"])
    (environment,) = test["environments"]
    assert (environment["condition"], environment["effect"]) == (
        "`--run-flaky` is not given",
        "skipped",
    )


def test_the_collection_hook_form_with_a_bound_skip_mark_and_an_early_return(tmp_path):
    """``getoption("run_flaky")`` names the option by its dest: quoted as the flag."""
    (skipped,) = findings(check(tmp_path, _project(MODIFYITEMS.format(name="flaky"))))
    assert (skipped["code"], skipped["line"]) == ("DET202", 4)
    assert skipped["message"].startswith(
        f"test skipped as 'flaky' {UNLESS} (the hook at conftest.py:14 skips every test "
        "marked `flaky`): in a run without it, it never runs, so a 10% violation is never "
        "reported (was 10.0%)"
    )


def test_an_inline_skip_mark_under_not_getoption(tmp_path):
    (skipped,) = findings(check(tmp_path, _project(INLINE)))
    assert (skipped["code"], skipped["line"]) == ("DET202", 4)
    assert "the hook at conftest.py:8 skips every test marked `flaky`" in skipped["message"]


def test_a_quarantine_marker_whose_skip_reason_says_flaky(tmp_path):
    conftest = RUNTEST_SETUP.replace('"flaky" in', '"quarantined" in').replace(
        '"set --run-flaky option to run flaky tests"', '"fails intermittently"'
    )
    (skipped,) = findings(check(tmp_path, _project(conftest, "quarantined")))
    assert skipped["message"].startswith(
        f"test skipped as 'intermittently' {UNLESS} (the hook at conftest.py:10 "
        "skips every test marked `quarantined`)"
    )


def test_a_slow_marker_gated_the_same_way_hides_no_flaky_failure(tmp_path):
    document = check(tmp_path, _project(MODIFYITEMS.format(name="slow"), "slow"))
    assert findings(document) == []


@pytest.mark.parametrize(
    "conftest",
    [
        # another condition beside the marker's lookup
        RUNTEST_SETUP.replace(" and not", " and item.config.getoption('--ci') and not"),
        # an else branch: the skip is not all the hook does with the marker
        RUNTEST_SETUP + "    else:\n        item.add_marker(pytest.mark.timeout(60))\n",
        # the marker read a second time elsewhere, for something else
        RUNTEST_SETUP
        + '\n\ndef pytest_runtest_call(item):\n    if "flaky" in item.keywords:\n'
        + "        item.config.flaky_seen = True\n",
        # the skip's reason is code
        RUNTEST_SETUP.replace('"set --run-flaky option to run flaky tests"', "REASON"),
    ],
)
def test_a_hook_of_another_shape_stays_not_judged(tmp_path, conftest):
    files = _project(conftest)
    assert findings(check(tmp_path, files)) == []
    test = one_test(audit(tmp_path / "audit", files), "test_roundtrip")
    assert [knob["kind"] for knob in test["knobs"]] == ["project-marker"]
    assert any("the marker means what that code does, not judged" in n for n in test["notes"])


def test_a_declared_rerun_plugin_keeps_its_meaning_of_the_marker(tmp_path):
    """pytest-rerunfailures reads ``flaky`` wherever the test runs: composed as today."""
    document = check(tmp_path, _project(RUNTEST_SETUP, deps=RERUNFAILURES))
    (rerun,) = findings(document)
    assert (rerun["code"], rerun["line"]) == ("DET101", 4)
    assert "a 10% violation is reported 1.0% of the time instead of 10.0%" in rerun["message"]


WORKFLOW = """\
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest tests
  flaky:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest {words} tests
"""


@pytest.mark.parametrize(
    ("words", "said"),
    [
        ("--run-flaky", "the CI run at .github/workflows/ci.yml:12 passes `--run-flaky`"),
        ("-m flaky", ""),  # selecting the marker does not lift the hook's skip
    ],
)
def test_a_ci_run_that_passes_the_option_is_named(tmp_path, words, said):
    files = {**_project(RUNTEST_SETUP), ".github/workflows/ci.yml": WORKFLOW.format(words=words)}
    (skipped,) = findings(check(tmp_path, files))
    assert (skipped["code"], skipped["line"]) == ("DET202", 4)
    hook = "the hook at conftest.py:10 skips every test marked `flaky`"
    assert f"{hook}{'; ' + said if said else ''}): in a run without it" in skipped["message"]
