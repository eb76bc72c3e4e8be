"""Reruns from pytest's config reach every test it collects: each is read, gets the
layer in the audit, and DET104 quotes the worst of them.

Checked against pytest 8.4 and pytest-rerunfailures 16.7 under ``addopts = --reruns 2``, on
3000 parametrized cases of five seeded trials at a 10% violation rate per trial: an
unmarked test failed 194 times (6.5%; model 0.40951**3 = 6.9%), one marked
``flaky(reruns=1)`` 532 times (17.7%; model 0.40951**2 = 16.8%): in the default strict
mode the marker's count replaces the global one.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, audit, check, one_test, only

LOOPED = """\
def test_looped():
    for _ in range(5):
        assert run() == 1
"""
PLAIN = """\
def test_plain():
    assert run() == 1
"""
MARKED = """\
import pytest


@pytest.mark.flaky(reruns=1)
def test_marked():
    assert run() == 1
"""
FILES = {
    **RERUNFAILURES,
    "tests/test_looped.py": LOOPED,
    "tests/test_plain.py": PLAIN,
    "tests/test_marked.py": MARKED,
}
CONFIGS = {
    "pytest.ini": {"pytest.ini": "[pytest]\naddopts = --reruns 2\n"},
    "pyproject": {"pyproject.toml": '[tool.pytest.ini_options]\naddopts = "--reruns 2"\n'},
}


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_every_collected_test_gets_the_config_reruns(tmp_path, config) -> None:
    document = audit(tmp_path, {**FILES, **config})
    looped, plain = one_test(document, "test_looped"), one_test(document, "test_plain")
    assert [layer["description"] for layer in plain["layers"]] == [
        "reruns=2 (pytest-rerunfailures, 3 attempts)"
    ]
    assert looped["numbers"]["reported"] == pytest.approx((1 - 0.9**5) ** 3)
    assert plain["numbers"]["reported"] == pytest.approx(0.1**3)
    # The marker's own count replaces the global one (--reruns-mode strict).
    marked = one_test(document, "test_marked")
    assert marked["numbers"]["reported"] == pytest.approx(0.1**2)


@pytest.mark.parametrize(
    ("config", "line"), [(CONFIGS["pytest.ini"], 2), (CONFIGS["pyproject"], 2)], ids=CONFIGS.keys()
)
def test_det104_quotes_the_worst_test_it_covers(tmp_path, config, line) -> None:
    found = only(check(tmp_path, {**FILES, **config}), "DET104")
    assert found["line"] == line
    assert found["message"] == (
        "addopts --reruns 2 reruns every test without its own marker: a 10% violation is "
        "reported 6.9% of the time instead of 41.0% in tests/test_looped.py::test_looped "
        "(5 trials (literal loop bound)); covers 2 tests, 2 test instances"
    )
    assert found["numbers"]["reported"] == pytest.approx((1 - 0.9**5) ** 3)


def test_det104_without_a_test_it_covers_quotes_a_single_attempt(tmp_path) -> None:
    files = {**RERUNFAILURES, **CONFIGS["pytest.ini"], "tests/test_marked.py": MARKED}
    found = only(check(tmp_path, files), "DET104")
    assert found["message"] == (
        "addopts --reruns 2 reruns every test without its own marker: a test failing 10% of "
        "its attempts is reported 0.10% of the time instead of 10%"
    )
