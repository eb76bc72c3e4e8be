"""Tests a test class inherits from a class defined in another module, and knobs a
test file imports from a helper while holding no knob token of its own.

Distilled from real suites: standard test suites written as mixins in a helper
module (``from .helpers import SomeTestsMixin`` then ``class TestX(SomeTestsMixin)``,
prefect's ``standard_test_suites``, torchao's ``TorchAOTensorParallelTestCase``)
were never collected, so the marks on their tests and on the subclass reached
nothing; a test file whose only knob is an imported alias (``@skip_on_win``) was
ruled out by the byte prefilter before anything resolved the alias.
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, check, findings, only

HELPERS = """\
    import pytest


    class SomeTestsMixin:
        @pytest.mark.flaky(reruns=2)
        def test_inherited(self):
            assert self.run() == 1

        def test_plain(self):
            assert self.run() == 1

        def helper(self):
            return 1
    """


def test_marked_tests_of_an_imported_mixin_are_the_subclass_tests(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/helpers.py": HELPERS,
            # No knob token of its own: the byte prefilter alone would rule it out.
            "tests/test_x.py": """\
                from .helpers import SomeTestsMixin


                class TestX(SomeTestsMixin):
                    def run(self):
                        return 1
                """,
        },
    )
    found = only(document, "DET101")
    assert (found["path"], found["line"]) == ("tests/helpers.py", 5)
    assert found["message"].startswith(
        "rerun marker hides intermittent failures: a 10% violation is reported 0.10% of the "
        "time instead of 10.0% (reruns=2;"
    )


def test_a_mark_on_the_subclass_reaches_every_inherited_test(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/helpers.py": HELPERS,
            "tests/test_y.py": """\
                import pytest

                from tests.helpers import SomeTestsMixin


                @pytest.mark.skip(reason="flaky on CI")
                class TestY(SomeTestsMixin):
                    def run(self):
                        return 2

                    def test_own(self):
                        assert self.run() == 2
                """,
        },
    )
    skipped = only(document, "DET202")
    assert (skipped["path"], skipped["line"]) == ("tests/test_y.py", 6)
    # test_own, and test_inherited and test_plain from the mixin; helper is no test.
    assert "covers 3 tests" in skipped["message"]


def test_a_method_of_the_subclass_replaces_the_inherited_one(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/helpers.py": HELPERS,
            "tests/test_z.py": """\
                import pytest

                from tests.helpers import SomeTestsMixin


                class TestZ(SomeTestsMixin):
                    def test_inherited(self):
                        assert self.run() == 1

                    @pytest.mark.flaky(reruns=1)
                    def test_own(self):
                        assert self.run() == 1
                """,
        },
    )
    assert [(f["code"], f["path"], f["line"]) for f in findings(document)] == [
        ("DET101", "tests/test_z.py", 10)
    ]


def test_an_imported_mixin_of_unittest_tests_keeps_its_skips(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "pkg/__init__.py": "",
            "pkg/testing/__init__.py": "",
            "pkg/testing/utils.py": """\
                import unittest


                class ParallelTestCase(unittest.TestCase):
                    @unittest.skipIf(not HAS_CUDA, "flaky without CUDA")
                    def test_tp(self):
                        self.assertEqual(run(), 1)
                """,
            "test/test_parallel.py": """\
                from pkg.testing.utils import ParallelTestCase


                class TestInt8(ParallelTestCase):
                    pass


                class TestFloat8(ParallelTestCase):
                    pass
                """,
        },
    )
    skipped = only(document, "DET202")
    assert (skipped["path"], skipped["line"]) == ("pkg/testing/utils.py", 5)
    assert "where `not HAS_CUDA`" in skipped["message"]
    assert "covers 2 tests" in skipped["message"]


def test_a_file_without_tokens_that_applies_an_imported_alias_is_read(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/helpers.py": """\
                import pytest

                gpu_reruns = pytest.mark.flaky(reruns=3)
                """,
            "tests/test_gpu.py": """\
                from tests import helpers
                from tests.helpers import gpu_reruns as on_gpu


                @on_gpu
                def test_kernel():
                    assert run() == 1


                @helpers.gpu_reruns
                def test_other():
                    assert run() == 1


                def test_plain():
                    assert run() == 1
                """,
        },
    )
    assert [(f["code"], f["path"], f["line"]) for f in findings(document)] == [
        ("DET101", "tests/test_gpu.py", 5),
        ("DET101", "tests/test_gpu.py", 10),
    ]
