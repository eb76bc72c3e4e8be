"""Module marks written in a branch, and names defined twice.

Distilled from real suites: ``pytestmark`` assigned inside ``try:`` (after an
optional import), ``if``/``else`` and ``with`` blocks reached no test, because the
narrowing pass dropped the tests of such a file and the index kept one branch's
assignment only; a test (or method) defined twice kept the marks of its first
definition, which Python throws away.
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, check, findings, only

from detlint.readers.python.module_scan import scan_module
from detlint.readers.python.narrowing import narrow
from detlint.readers.python.options import ScanOptions
from detlint.readers.python.prefilter import Prefilter


def _marks(source: str, path: str = "tests/test_m.py") -> dict[str, list[tuple[str, tuple]]]:
    """Each test's marks (kind, guards) as the Python pass reads the file, narrowed as a
    run narrows it."""
    narrowed = narrow(source, Prefilter().wants_block)
    facts, _ = scan_module(path, source, ScanOptions(), narrowed=narrowed)
    return {test.nodeid: [(mark.kind, mark.guards) for mark in test.marks] for test in facts.tests}


def test_a_pytestmark_inside_try_reaches_every_test(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_numpy.py": """\
                import pytest

                try:
                    import numpy

                    pytestmark = pytest.mark.flaky(reruns=2)
                except ImportError:
                    numpy = None


                def test_ones():
                    assert numpy.ones(1)[0] == 1


                def test_zeros():
                    assert numpy.zeros(1)[0] == 0
                """,
        },
    )
    found = only(document, "DET101")
    assert (found["path"], found["line"]) == ("tests/test_numpy.py", 6)
    assert found["message"].startswith(
        "rerun marker hides intermittent failures: a 10% violation is reported 0.10% of the "
        "time instead of 10.0% (reruns=2;"
    )
    assert "covers 2 tests" in found["message"]


def test_a_pytestmark_under_if_applies_where_its_condition_holds(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_windows.py": """\
                import sys

                import pytest

                if sys.platform == "win32":
                    pytestmark = [pytest.mark.flaky(reruns=3)]


                def test_pipe():
                    assert run() == 1
                """,
        },
    )
    found = only(document, "DET101")
    assert found["line"] == 6
    assert '(reruns=3 where `sys.platform == "win32"`;' in found["message"]
    assert "0.010% of the time instead of 10.0%" in found["message"]


def test_a_pytestmark_inside_with_applies_everywhere(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_warned.py": """\
                import warnings

                import pytest

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    pytestmark = pytest.mark.flaky(reruns=1)


                def test_warned():
                    assert run() == 1
                """,
        },
    )
    found = only(document, "DET101")
    assert found["line"] == 7
    assert "reported 1.0% of the time instead of 10.0% (reruns=1;" in found["message"]


def test_each_branch_keeps_its_own_pytestmark():
    source = """\
import sys

import pytest

if sys.platform == "win32":
    pytestmark = pytest.mark.skip(reason="hangs")
else:
    pytestmark = pytest.mark.flaky(reruns=2)
try:
    import numpy
    pytestmark += [pytest.mark.xfail(reason="numpy race")]
except ImportError:
    pytestmark = pytest.mark.skip(reason="no numpy")


def test_a():
    assert run() == 1
"""
    assert _marks(source) == {
        "tests/test_m.py::test_a": [
            ("skip", ('`sys.platform == "win32"`',)),
            ("flaky", ('not `sys.platform == "win32"`',)),
            ("xfail", ("the `try:` on line 9 succeeds",)),
            ("skip", ("`ImportError` is raised on line 9",)),
        ]
    }


def test_a_later_pytestmark_at_the_top_level_replaces_the_branches():
    source = """\
import sys

import pytest

if sys.platform == "win32":
    pytestmark = pytest.mark.skip(reason="hangs")
pytestmark = pytest.mark.flaky(reruns=2)


def test_a():
    assert run() == 1
"""
    assert _marks(source) == {"tests/test_m.py::test_a": [("flaky", ())]}


def test_a_test_defined_twice_is_the_last_definition(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_twice.py": """\
                import pytest


                class TestA:
                    @pytest.mark.flaky(reruns=2)
                    def test_x(self):
                        assert run() == 1

                    def test_x(self):
                        assert run() == 2

                    test_gone = None


                @pytest.mark.flaky(reruns=3)
                def test_y():
                    assert run() == 1


                def test_y():
                    assert run() == 2


                def test_z():
                    assert run() == 2


                @pytest.mark.flaky(reruns=4)
                def test_z():
                    assert run() == 1


                class TestB:
                    @pytest.mark.flaky(reruns=2)
                    def test_b(self):
                        assert run() == 1


                class TestB:
                    def test_b(self):
                        assert run() == 1
                """,
        },
    )
    # Only the marks of the definitions Python keeps are left: test_z's.
    assert [(f["code"], f["line"]) for f in findings(document)] == [("DET101", 28)]
    assert "reruns=4" in findings(document)[0]["message"]


def test_the_plain_redefinition_of_a_marked_method_is_parsed():
    source = """\
import pytest


class TestA:
    @pytest.mark.flaky(reruns=2)
    def test_x(self):
        assert run() == 1

    def test_x(self):
        assert run() == 2

    def test_other(self):
        assert run() == 3


def test_plain():
    assert run() == 4
"""
    assert _marks(source) == {"tests/test_m.py::TestA::test_x": []}


def test_versions_registered_with_a_dispatcher_keep_the_first():
    """torchrl: `@implement_for("gym", ...)` on each definition registers a version; the
    one the installed package matches is kept, which detlint cannot tell."""
    source = """\
import pytest

from pyvers import implement_for


class TestGym:
    @implement_for("gymnasium", "1.1.0")
    @pytest.mark.flaky(reruns=5)
    def test_vecenvs(self):
        assert run() == 1

    @implement_for("gym", None, "0.18")
    def test_vecenvs(self):
        assert run() == 2

    @staticmethod
    @pytest.mark.flaky(reruns=2)
    def test_static():
        assert run() == 1

    @staticmethod
    def test_static():
        assert run() == 2
"""
    assert _marks(source) == {
        "tests/test_m.py::TestGym::test_vecenvs": [("flaky", ())],
        "tests/test_m.py::TestGym::test_static": [],
    }
