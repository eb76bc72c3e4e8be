"""Every spelling of a rerun marker is found, and nothing else is."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_expectations import expected_findings, reported_findings, run_check

REPOS = Path(__file__).parent / "fixtures" / "repos"


@pytest.fixture(scope="module")
def spellings():
    return run_check(REPOS / "spellings")


def by_line(document, path, line):
    return [f for f in document["findings"] if f["path"] == path and f["line"] == line]


def test_every_spelling_found_and_nothing_else(spellings):
    code, document = spellings
    assert code == 1
    assert reported_findings(document) == expected_findings(REPOS / "spellings")


def test_needle_numbers_in_message(spellings):
    _, document = spellings
    (finding,) = by_line(document, "tests/test_decorators.py", 10)
    assert finding["code"] == "DET101"
    assert "a 10% violation is reported 2.8% of the time instead of 41.0%" in finding["message"]
    assert "5 trials from NEEDLE_TRIALS" in finding["message"]
    assert "pytest-rerunfailures==16.7 from requirements-test.txt:2" in finding["message"]
    assert "raise NEEDLE_TRIALS to 29" in finding["help"]
    assert "xfail(strict=False" in finding["help"]
    numbers = finding["numbers"]
    assert numbers["trials"] == 5
    assert numbers["trials_env"] == "NEEDLE_TRIALS"
    assert numbers["trials_needed"] == 29
    assert numbers["reported"] == pytest.approx((1 - 0.9**5) ** 4)
    assert numbers["reported_without"] == pytest.approx(1 - 0.9**5)
    assert (finding["column"], finding["end_line"]) == (2, 10)


@pytest.mark.parametrize(
    ("path", "line", "attempts"),
    [
        ("tests/test_decorators.py", 16, 2),  # bare: 1 rerun
        ("tests/test_decorators.py", 21, 3),  # flaky(2): 2 reruns
        ("tests/test_decorators.py", 26, 2),
        ("tests/test_decorators.py", 43, 6),  # method marker beats class marker
        ("tests/test_pytestmark.py", 3, 3),
        ("tests/test_aliases.py", 15, 6),
        ("tests/test_aliases.py", 20, 4),  # bare alias called with reruns=3
        ("tests/test_aliases.py", 30, 5),  # conftest alias reruns=4
    ],
)
def test_rerun_counts(spellings, path, line, attempts):
    _, document = spellings
    (finding,) = by_line(document, path, line)
    q = finding["numbers"]["reference_rate"]
    d = 1 - (1 - q) ** finding["numbers"]["trials"]
    assert finding["numbers"]["reported"] == pytest.approx(d**attempts)


def test_parametrized_instances_are_counted(spellings):
    _, document = spellings
    (finding,) = by_line(document, "tests/test_decorators.py", 31)
    assert finding["numbers"]["instances"] == 6
    assert "covers 6 test instances" in finding["message"]
    (param,) = by_line(document, "tests/test_params.py", 9)
    assert param["numbers"]["instances"] == 1


def test_class_marker_reaches_only_the_unmarked_method(spellings):
    _, document = spellings
    (finding,) = by_line(document, "tests/test_decorators.py", 38)
    assert finding["numbers"]["reported"] == pytest.approx(0.1**3)


def test_aliases_name_their_path_and_definition(spellings):
    _, document = spellings
    (conftest_alias,) = by_line(document, "tests/test_aliases.py", 30)
    assert "through conftest_flaky (conftest.conftest_flaky)" in conftest_alias["message"]
    assert conftest_alias["related"][0]["path"] == "tests/conftest.py"
    assert conftest_alias["related"][0]["line"] == 5
    assert "6 trials from CONFTEST_TRIALS" in conftest_alias["message"]
    (wrapper,) = by_line(document, "tests/test_aliases.py", 41)
    assert wrapper["related"][0]["path"] == "tests/helpers/marks.py"


def test_function_marker_with_zero_reruns_overrides_module(spellings):
    _, document = spellings
    module_mark = by_line(document, "tests/test_pytestmark.py", 3)[0]
    assert "covers 2 tests" in module_mark["message"]
