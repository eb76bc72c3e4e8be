"""Tests reached through their class: skips collected through a base of the module,
and trial loops in methods a test calls as ``self.name(...)``.

Distilled from CPython's suite (as RustPython carries it): ``MappingTestCase(TestBase)``
is a unittest.TestCase only through ``TestBase``, and ``run_server`` /
``run_test_for_event`` are methods that hold the loop the test's checks run in.
"""

from __future__ import annotations

from realworld_cases import check


def _messages(tmp_path, module: str) -> dict[int, str]:
    document = check(tmp_path, {"tests/test_case.py": module})
    return {
        finding["line"]: finding["message"]
        for finding in document["findings"]
        if finding["code"] == "DET202"
    }


BASE = """import unittest


class TestBase(unittest.TestCase):
    def setUp(self):
        self.calls = 0


class MappingTestCase(TestBase):
    @unittest.skip("TODO: occasionally crash (malloc corruption)")
    def test_copy(self):
        self.assertEqual(len({}), 0)
"""


def test_a_class_collected_through_its_base_keeps_its_skips(tmp_path):
    messages = _messages(tmp_path, BASE)
    assert list(messages) == [10]
    assert messages[10].startswith("test skipped as 'occasionally crash': it never runs")


METHODS = """import sys
import unittest


class Base(unittest.TestCase):
    def run_for_event(self, event):
        for i in range(sys.getrecursionlimit() + 1):
            try:
                self.f(event)
            except ValueError:
                pass
            else:
                self.fail("exception not raised!")

    def run_three(self):
        for i in range(3):
            self.assertEqual(self.f(i), 1)


class EventsTestCase(Base):
    @unittest.skip("spurious error?")
    def test_call(self):
        self.run_for_event("call")

    @unittest.skip("flaky")
    def test_three(self):
        self.run_three()
"""


def test_a_method_called_through_self_holds_the_tests_loop(tmp_path):
    messages = _messages(tmp_path, METHODS)
    assert messages[21] == (
        "test skipped as 'spurious error': it never runs, so a 10% violation is never "
        "reported (was 10.0%) and nothing shows it (the loop over "
        "`range(sys.getrecursionlimit() + 1)` (line 7) in `run_for_event` checks each "
        "iteration; detlint cannot count them, so the figures are per iteration checked)"
    )
    assert messages[25] == (
        "test skipped as 'flaky': it never runs, so a 10% violation is never reported "
        "(was 27.1%) and nothing shows it (3 trials (literal loop bound))"
    )
