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
