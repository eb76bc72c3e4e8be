"""Words near a skip that are not flakiness, and comments beside an explicit reason.

Distilled from jax (``self.skipTest(  # test is also sometimes slow, ...`` with the
reason ``'sensitive to random key - <issue URL>'`` on the next line: the quoted
"sometimes" came from the comment, about time) and pypy ("This test can't be run
reliably as root", "can fail to overflow on PyPy": limits of an environment, not
intermittent failures).
"""

from __future__ import annotations

import pytest
from realworld_cases import check, findings

PYTEST_ONLY = {"requirements-test.txt": "pytest==8.3.0\n"}


def _module(tmp_path, body: str) -> dict:
    return check(tmp_path, {**PYTEST_ONLY, "tests/test_s.py": body})


def test_a_comment_about_speed_beside_a_reason_is_not_a_flaky_skip(tmp_path):
    document = _module(
        tmp_path,
        """\
        import unittest


        class KSTest(unittest.TestCase):
            def test_generalized_normal(self):
                self.skipTest(  # test is also sometimes slow, with (300, ...)-shape draws
                    "sensitive to random key - https://github.com/jax-ml/jax/issues/18941")
                assert draw() == 1
        """,
    )
    assert findings(document) == []


def test_a_comment_that_says_the_test_fails_beside_a_reason_still_counts(tmp_path):
    document = _module(
        tmp_path,
        """\
        import unittest


        class KSTest(unittest.TestCase):
            def test_generalized_normal(self):
                self.skipTest(  # fails sometimes on the CPU runners
                    "sensitive to random key")
                assert draw() == 1
        """,
    )
    assert [(f["code"], f["line"]) for f in findings(document)] == [("DET202", 6)]
    assert findings(document)[0]["message"].startswith(
        "test skipped as 'fails sometimes': it never runs, so a 10% violation is never "
        "reported (was 10.0%) and nothing shows it"
    )


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("@pytest.mark.skip  # sometimes wrong on CI", "sometimes"),
        ("@pytest.mark.skip()  # flaky", "flaky"),
        ('@pytest.mark.skip(reason="")  # occasionally off by one', "occasionally"),
    ],
)
def test_a_comment_on_a_marker_with_no_reason_is_its_reason(tmp_path, line, word):
    document = _module(
        tmp_path,
        f"""\
        import pytest


        {line}
        def test_s():
            assert draw() == 1
        """,
    )
    (skip,) = findings(document)
    assert (skip["code"], skip["line"]) == ("DET202", 4)
    assert skip["message"].startswith(f"test skipped as {word!r}: it never runs")


@pytest.mark.parametrize(
    "reason",
    [
        "This test can't be run reliably as root (issue #1076467).",  # pypy
        "can fail to overflow on PyPy",  # pypy
        "test is sometimes slow",
    ],
)
def test_limits_of_an_environment_are_not_flaky_skips(tmp_path, reason):
    document = _module(
        tmp_path,
        f"""\
        import os

        import pytest


        @pytest.mark.skipif(os.geteuid() == 0, reason={reason!r})
        def test_on_error():
            assert run() == 1
        """,
    )
    assert findings(document) == []


def test_an_intermittent_failure_on_one_platform_is_still_a_flaky_skip(tmp_path):
    document = _module(
        tmp_path,
        """\
        import sys

        import pytest


        @pytest.mark.skipif(sys.platform == "win32", reason="can fail on Windows")
        def test_on_error():
            assert run() == 1
        """,
    )
    (skip,) = findings(document)
    assert skip["code"] == "DET202"
    assert skip["message"].startswith(
        "test skipped as 'can fail' where `sys.platform == \"win32\"`: there it never runs"
    )
