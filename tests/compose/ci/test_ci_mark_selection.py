"""A CI rule quotes a test the step runs: ``pytest -m EXPR`` runs only the tests whose
markers EXPR keeps, read with pytest's grammar (names, ``and``, ``or``, ``not``,
parentheses), never evaluated as Python.

With ``--reruns 2`` (three attempts, pytest-rerunfailures 16.7), a five-trial loop at a 10%
violation rate per trial, 1 - 0.9**5 = 41.0% per attempt, is reported 0.41**3 = 6.9% of the
time; a single-attempt test 0.1**3 = 0.10%.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, check, findings

from detlint.compose.ci.mark_expressions import keeps

TESTS = """\
import pytest


@pytest.mark.flaky(reruns=1)
def test_marked():
    assert run() == 1


def test_unit_loop():
    for _ in range(5):
        assert run() == 1


@pytest.mark.integration
def test_service():
    assert run() == 1
"""
WORKFLOW = """\
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest -m integration --reruns 2 tests
      - run: pytest -m "not integration" --reruns 2 tests
"""


def test_each_step_quotes_a_test_its_expression_keeps(tmp_path) -> None:
    files = {**RERUNFAILURES, "tests/test_a.py": TESTS, ".github/workflows/ci.yml": WORKFLOW}
    by_line = {f["line"]: f for f in findings(check(tmp_path, files), "DET421")}
    integration, unit = by_line[7], by_line[8]
    # The integration step runs test_service alone: a single attempt, rerun twice.
    assert (
        "0.10% of the time instead of 10.0% in tests/test_a.py::test_service"
        in (integration["message"])
    )
    assert integration["numbers"]["reported"] == pytest.approx(0.1**3)
    # The other step runs the unmarked loop (test_marked keeps its own reruns=1).
    assert (
        "6.9% of the time instead of 41.0% in tests/test_a.py::test_unit_loop" in (unit["message"])
    )
    assert unit["numbers"]["reported"] == pytest.approx((1 - 0.9**5) ** 3)


@pytest.mark.parametrize(
    ("expression", "markers", "kept"),
    [
        ("integration", {"integration"}, True),
        ("integration", set(), False),
        ("not integration", {"integration", "flaky"}, False),
        ("not integration", {"flaky"}, True),
        ("slow and not gpu", {"slow"}, True),
        ("slow and not gpu", {"slow", "gpu"}, False),
        ("(a or b) and not c", {"b"}, True),
        ("(a or b) and not c", {"b", "c"}, False),
        ("not not a", {"a"}, True),
        ("a or b and c", {"a"}, True),  # "and" binds tighter, as in pytest
        ("a or b and c", {"b"}, False),
    ],
)
def test_expressions_read_with_pytest_grammar(expression, markers, kept) -> None:
    assert keeps(expression, frozenset(markers)) is kept


@pytest.mark.parametrize(
    "expression",
    ["mark(level=1)", "a or", "(a and b", "a b", "and a", "", None],
)
def test_what_is_not_read_keeps_every_test(expression) -> None:
    assert keeps(expression, frozenset()) is True


def test_unknown_markers_keep_the_test() -> None:
    # The tests of a file detlint did not read: their markers are not known.
    assert keeps("integration", None) is True


SKIPPED_FIRST = """\
import pytest


@pytest.mark.integration
@pytest.mark.flaky(reruns=1)
def test_marked():
    assert run() == 1


@pytest.mark.integration
def test_live():
    assert run() == 1


@pytest.mark.integration
@pytest.mark.skip(reason="the service lacks this")
def test_unsupported():
    assert run() == 1
"""


def test_of_tests_the_flag_costs_alike_one_that_runs_is_quoted(tmp_path) -> None:
    # test_live and test_unsupported lose the same (0.1 -> 0.1**3 when run); the skipped
    # one never runs, so the message names test_live.
    workflow = WORKFLOW.replace('      - run: pytest -m "not integration" --reruns 2 tests\n', "")
    files = {
        **RERUNFAILURES,
        "tests/test_a.py": SKIPPED_FIRST,
        ".github/workflows/ci.yml": workflow,
    }
    (found,) = findings(check(tmp_path, files), "DET421")
    assert "0.10% of the time instead of 10.0% in tests/test_a.py::test_live" in found["message"]
