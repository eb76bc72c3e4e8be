"""A skip reached only in an ``except`` clause for errors no AssertionError is runs
after such an error ended the checks: it hides no violation, as ``xfail(raises=...)``
for another exception does not, and the audit says why it is left out."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_expectations import run_audit, run_check

SOCKET = """import errno
import socket
import unittest

import pytest


class RecvmsgTests(unittest.TestCase):
    def testRecvmsgEOF(self):
        try:
            super().testRecvmsgEOF()
        except {caught} as e:
            if e.errno != errno.ENOTCONN:
                raise
            self.skipTest("sporadic ENOTCONN (kernel issue?)")
"""


def _write(root: Path, text: str) -> None:
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests/test_socket.py").write_text(text)


@pytest.mark.parametrize("caught", ["OSError", "(OSError, ConnectionError)", "ssl.SSLError"])
def test_a_skip_only_after_another_error_hides_no_violation(repository, caught):
    _write(repository, SOCKET.format(caught=caught))
    _, document = run_check(repository)
    assert document["findings"] == []
    (test,) = run_audit(repository)["tests"]
    assert test["notes"] == [
        f"self.skipTest() at line 15 runs only in `except {caught}:`; "
        "an assertion violation fails the test"
    ]
    assert test["environments"] == []


@pytest.mark.parametrize(
    "caught",
    ["Exception", "(OSError, AssertionError)", "BaseException", "socket.timeout", "socket.error"],
)
def test_a_skip_after_what_may_be_an_assertion_failure_still_hides_it(repository, caught):
    # `socket.timeout` and `socket.error` are names detlint cannot tell from an assertion
    # class (they are not spelled as exception classes are): unchanged.
    _write(repository, SOCKET.format(caught=caught))
    _, document = run_check(repository)
    ((code, line, message),) = [(f["code"], f["line"], f["message"]) for f in document["findings"]]
    assert (code, line) == ("DET202", 15)
    assert message.startswith(
        f"test skipped as 'sporadic' where `{caught.strip('()')}` is raised and not "
        "`e.errno != errno.ENOTCONN`: there it never runs, so a 10% violation is never "
        "reported (was 10.0%)"
    )


def test_a_bare_except_takes_assertion_failures(repository):
    _write(
        repository,
        "import pytest\n\n\ndef test_x():\n    try:\n        assert run()\n"
        "    except:\n        pytest.skip('flaky network')\n",
    )
    _, document = run_check(repository)
    assert [(f["code"], f["line"]) for f in document["findings"]] == [("DET202", 8)]


def test_a_clause_inside_an_assertion_handler_is_reached_after_a_violation(repository):
    _write(
        repository,
        "import pytest\n\n\ndef test_x():\n    try:\n        assert run()\n"
        "    except AssertionError:\n        try:\n            cleanup()\n"
        "        except OSError:\n            pytest.skip('flaky cleanup')\n",
    )
    _, document = run_check(repository)
    assert [(f["code"], f["line"]) for f in document["findings"]] == [("DET202", 11)]


def test_pytest_skip_in_an_import_error_clause(repository):
    _write(
        repository,
        "import pytest\n\n\ndef test_x():\n    try:\n        import numpy\n"
        "    except ImportError:\n        pytest.skip('flaky: numpy missing')\n"
        "    assert numpy.ones(1)[0] == 1\n",
    )
    _, document = run_check(repository)
    assert document["findings"] == []
    (test,) = run_audit(repository)["tests"]
    assert test["notes"] == [
        "pytest.skip() at line 8 runs only in `except ImportError:`; "
        "an assertion violation fails the test"
    ]
