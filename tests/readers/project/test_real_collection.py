"""What pytest collects, and what applies to it.

Distilled from celery (`python_classes = "test_*"`: its class-based tests were
all missed), prefect (`python_functions = ["test_*", "bench_*"]`), celery's
`test_EventletDrainer(GreenletDrainerTests)` (tests inherited from a base class)
and unittest-style suites.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, check, findings, only
from repo_expectations import run_check

FLAKY_METHOD = """\
    @pytest.mark.flaky(reruns=2)
    def {name}(self):
        assert run() == 1
"""


def _lines(document: dict, code: str = "DET101") -> set[tuple[str, int]]:
    return {(f["path"], f["line"]) for f in findings(document, code)}


def test_configured_class_and_function_patterns_are_collected(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "pyproject.toml": (
                "[tool.pytest.ini_options]\n"
                'python_classes = "test_* Test*"\n'
                'python_functions = ["test_*", "bench_*"]\n'
            ),
            "tests/test_canvas.py": """\
                import pytest


                class test_chain:
                    @pytest.mark.flaky(reruns=2)
                    def test_simple(self):
                        assert chain() == 7


                @pytest.mark.flaky(reruns=2)
                def bench_throughput():
                    assert throughput() > 10


                @pytest.mark.flaky(reruns=2)
                def testable_helper():
                    assert True
                """,
        },
    )
    # `testable_helper` does not match `test_*`: pytest does not collect it.
    assert _lines(document) == {("tests/test_canvas.py", 5), ("tests/test_canvas.py", 10)}


def test_the_default_patterns_leave_other_names_out(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_canvas.py": """\
                import pytest


                class test_chain:
                    @pytest.mark.flaky(reruns=2)
                    def test_simple(self):
                        assert chain() == 7


                class TestWithInit:
                    def __init__(self):
                        self.x = 1

                    @pytest.mark.flaky(reruns=2)
                    def test_never_collected(self):
                        assert self.x


                class TestHidden:
                    __test__ = False

                    @pytest.mark.flaky(reruns=2)
                    def test_hidden(self):
                        assert True
                """,
        },
    )
    assert findings(document) == []


def test_tests_a_subclass_inherits_are_its_own(tmp_path):
    """celery: `class test_EventletDrainer(GreenletDrainerTests)` under a flaky skip."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_drainers.py": """\
                import sys

                import pytest


                class DrainerTests:
                    __test__ = False

                    @pytest.mark.flaky(reruns=2)
                    def test_drain_events(self):
                        assert self.drainer.drain() == []


                class TestEventletDrainer(DrainerTests):
                    __test__ = True


                @pytest.mark.skipif(sys.platform == "win32", reason="hangs intermittently")
                class TestGeventDrainer(DrainerTests):
                    __test__ = True
                """,
        },
    )
    found = only(document, "DET101")
    assert found["line"] == 9
    assert "covers 2 tests" in found["message"]
    skipped = only(document, "DET202")
    assert skipped["line"] == 18
    assert 'where `sys.platform == "win32"`' in skipped["message"]


def test_unittest_skips_and_expected_failures(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_unit.py": """\
                import os
                import unittest

                import pytest


                class KernelTests(unittest.TestCase):
                    @unittest.skip("flaky on the shared runners")
                    def test_skipped(self):
                        self.assertEqual(run(), 1)

                    @unittest.skipIf(os.name == "nt", "sporadically fails on Windows")
                    def test_skipped_on_windows(self):
                        self.assertEqual(run(), 1)

                    @unittest.skipUnless(HAS_GPU, "needs a GPU")
                    @pytest.mark.flaky(reruns=2)
                    def test_gpu(self):
                        self.assertEqual(run(), 1)

                    def test_skip_test(self):
                        if os.environ.get("CI"):
                            self.skipTest("intermittent on CI")
                        self.assertEqual(run(), 1)

                    @unittest.expectedFailure
                    @pytest.mark.flaky(reruns=2)
                    def test_known_bug(self):
                        self.assertEqual(run(), 2)

                    @pytest.mark.flaky(reruns=2)
                    def helper_not_a_test(self):
                        self.assertEqual(run(), 1)
                """,
        },
    )
    skips = {f["line"]: f["message"] for f in findings(document, "DET202")}
    assert set(skips) == {8, 12, 23}
    assert skips[8].startswith("test skipped as 'flaky': it never runs")
    assert 'where `os.name == "nt"`' in skips[12]
    assert 'where `os.environ.get("CI")`' in skips[23]
    gpu = only(document, "DET101")
    assert gpu["line"] == 17
    assert "skipped where not `HAS_GPU`" in gpu["message"]


def test_a_module_that_opts_out_is_not_collected(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_helpers.py": """\
                import pytest

                __test__ = False


                @pytest.mark.flaky(reruns=2)
                def test_looks_like_a_test():
                    assert True
                """,
        },
    )
    assert findings(document) == []


@pytest.mark.parametrize(("directory", "found"), [("tests/build", 0), ("tests/unit", 1)])
def test_norecursedirs(tmp_path, directory, found):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "pytest.ini": "[pytest]\nnorecursedirs = build .*\n",
            f"{directory}/test_x.py": """\
                import pytest


                @pytest.mark.flaky(reruns=2)
                def test_x():
                    assert run() == 1
                """,
        },
    )
    assert len(findings(document, "DET101")) == found


def test_a_skip_on_a_subclass_reaches_the_tests_it_inherits(tmp_path):
    """celery: the knob is on the subclass, the tests are in a base without any knob."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_drainers.py": """\
                import pytest


                class DrainerTests:
                    def test_drain_events(self):
                        assert self.drainer.drain() == []

                    def test_drain_timeout(self):
                        assert self.drainer.drain(timeout=1) == []


                @pytest.mark.skip(reason="hangs forever intermittently on windows")
                class TestEventletDrainer(DrainerTests):
                    drainer = None
                """,
        },
    )
    found = only(document, "DET202")
    assert found["line"] == 12
    assert "covers 2 tests" in found["message"]


def test_a_check_of_one_file_collects_as_its_config_says(tmp_path):
    """A pre-commit run on celery's t/integration/test_canvas.py found nothing: the
    scan of one file took the default `Test` prefix for its `test_*` classes."""
    repo = tmp_path / "repo"
    check(
        repo,
        {
            **RERUNFAILURES,
            "pyproject.toml": '[tool.pytest.ini_options]\npython_classes = "test_*"\n',
            "t/test_canvas.py": """\
                import pytest


                class test_chain:
                    @pytest.mark.flaky(reruns=2)
                    def test_simple(self):
                        assert chain() == 7


                class Helper:
                    @pytest.mark.flaky(reruns=2)
                    def test_not_collected(self):
                        assert chain() == 7
                """,
        },
    )
    _, document = run_check(repo, "t/test_canvas.py")
    assert [(f["code"], f["line"]) for f in document["findings"]] == [("DET101", 5)]
