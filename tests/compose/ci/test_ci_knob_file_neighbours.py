"""A CI knob acts on every test of a file it runs, not only on the file's marked tests.

The Python pass cuts a test file down to the tests that hold a knob, and a file with a
knob gets one gate per test listed, so an unmarked neighbour of a marked test used to
get no gate under any CI run: ``pytest --reruns 2`` quoted a single-attempt test it
does not run, a job retry or ``allow_failure`` quoted the marked test alone. The files
with knobs that such runs reach are now read again whole, and every test is quoted
with its own trial loop.

The numbers, checked against pytest 8.4 and pytest-rerunfailures 16.7 (the command
line's ``--reruns 2`` reruns an unmarked test twice; a ``flaky(reruns=1)`` marker keeps
its own count, semantics.md "Failure arithmetic"): a five-trial loop at a 10% violation
rate per trial fails an attempt 1 - 0.9**5 = 40.951% of the time, so three attempts
(two reruns, or a job run three times) report it 0.40951**3 = 6.9% of the time.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, check, findings, only

from detlint.readers.repository import Repository

TESTS = """\
import pytest


@pytest.mark.flaky(reruns=1)
def test_marked():
    assert run() == 1


def test_loop():
    for _ in range(5):
        assert run() == 1


def test_plain():
    assert run() == 1
"""
RERUNS_FLAG = """\
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest --reruns 2 tests
"""
ATTEMPT = 1 - 0.9**5  # one attempt of test_loop fails


def _gitlab(extra: str, command: str = "pytest tests") -> dict[str, str]:
    return {".gitlab-ci.yml": f"unit:\n  script:\n    - {command}\n{extra}"}


def _files(ci: dict[str, str]) -> dict[str, str]:
    return {**RERUNFAILURES, "tests/test_a.py": TESTS, **ci}


def test_reruns_flag_quotes_the_unmarked_looped_test(tmp_path) -> None:
    found = only(check(tmp_path, _files({".github/workflows/ci.yml": RERUNS_FLAG})), "DET421")
    assert found["line"] == 7
    assert found["message"] == (
        "`--reruns 2` reruns every failing test of step 'test': a 10% violation is reported "
        "6.9% of the time instead of 41.0% in tests/test_a.py::test_loop "
        "(gates 1 test file under tests)"
    )
    assert found["numbers"]["reported"] == pytest.approx(ATTEMPT**3)
    assert found["numbers"]["reported_without"] == pytest.approx(ATTEMPT)
    assert found["numbers"]["trials"] == 5


def test_job_retry_quotes_the_unmarked_looped_test(tmp_path) -> None:
    document = check(tmp_path, _files(_gitlab("  retry: 2\n")))
    found = only(document, "DET411")
    assert found["message"] == (
        "`unit.retry` runs a failing job up to 3 times: a 10% violation is reported 6.9% of "
        "the time instead of 41.0% in tests/test_a.py::test_loop (step 'unit'; gates 1 test "
        "file under tests)"
    )
    assert found["numbers"]["reported"] == pytest.approx(ATTEMPT**3)
    assert found["numbers"]["reported_without"] == pytest.approx(ATTEMPT)
    # The marked test's own numbers are unchanged: two attempts in pytest, three job runs.
    double = only(document, "DET501")
    assert double["message"].startswith(
        "tests/test_a.py::test_marked is retried inside pytest by reruns=1 "
        "(pytest-rerunfailures, 2 attempts) and again by `unit.retry` (3 job runs): "
        "up to 6 attempts in total; a 10% violation is reported <0.001% of the time "
        "instead of 10.0%"
    )
    assert double["numbers"]["reported"] == pytest.approx(0.1**6)
    marker = only(document, "DET101")
    assert (marker["line"], marker["numbers"]["reported"]) == (4, pytest.approx(0.1**2))


@pytest.mark.parametrize(
    ("ci", "code", "wording"),
    [
        (_gitlab("  allow_failure: true\n"), "DET401", "`unit.allow_failure: true` lets "),
        (_gitlab("", "pytest tests || true"), "DET431", "`|| true` hides pytest's exit "),
    ],
    ids=["allow_failure", "masked"],
)
def test_soft_fail_quotes_the_unmarked_looped_test(tmp_path, ci, code, wording) -> None:
    found = only(check(tmp_path, _files(ci)), code)
    assert found["message"].startswith(wording)
    assert (
        "reported 0% of the time instead of 41.0% in tests/test_a.py::test_loop"
        in (found["message"])
    )
    assert found["numbers"]["reported"] == 0
    assert found["numbers"]["reported_without"] == pytest.approx(ATTEMPT)


def test_a_file_without_the_looped_test_quotes_its_plain_test(tmp_path) -> None:
    """The unmarked single-trial neighbour has its own gate too: a flag that does nothing
    to the marked test still costs the plain one 10% -> 0.1%, and says which test."""
    plain_only = TESTS.replace(
        "def test_loop():\n    for _ in range(5):\n        assert run() == 1\n\n\n", ""
    )
    files = {**_files({".github/workflows/ci.yml": RERUNS_FLAG}), "tests/test_a.py": plain_only}
    found = only(check(tmp_path, files), "DET421")
    assert (
        "reported 0.10% of the time instead of 10.0% in tests/test_a.py::test_plain"
        in (found["message"])
    )


def test_files_are_read_again_only_under_a_run_that_changes_their_policy(
    tmp_path, monkeypatch
) -> None:
    """A pipeline that runs the file plainly costs no second, whole reading of it."""
    wholes: list[list[str]] = []
    scan = Repository.scan

    def recording(self, files, trials=False, named=False, whole=False):  # type: ignore[no-untyped-def]
        if whole:
            wholes.append(sorted(path.name for path in files))
        return scan(self, files, trials, named, whole)

    monkeypatch.setattr(Repository, "scan", recording)
    document = check(tmp_path / "plain", _files(_gitlab("")))
    assert [found["code"] for found in findings(document)] == ["DET101"]
    assert wholes == []
    check(tmp_path / "retried", _files(_gitlab("  retry: 2\n")))
    assert wholes == [["test_a.py"]]
