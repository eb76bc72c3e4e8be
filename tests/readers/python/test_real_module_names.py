"""Knobs that reach a test through a name: a parametrize table, a skip alias defined
per platform in a helper module, a module constant a condition tests, unittest
re-exported by a package.

Distilled from real suites: ``CASES = [pytest.param(..., marks=...)]`` passed to
``parametrize`` by name lost its marks; ``skip_on_win`` defined under ``if``/``else``
in a helper module was read as its ``else`` (``lambda f: f``); generated sync/async
suites (``_IS_SYNC = False``) skipped "where `not _IS_SYNC`"; ``from tests import
unittest`` (or ``from .compat import unittest``, ``import unittest2 as unittest``)
hid every ``@unittest.skip``.
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, check, findings, only


def test_param_marks_in_a_module_table_reach_their_instances(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_params.py": """\
                import pytest

                BASE = [pytest.param(0, marks=pytest.mark.xfail(reason="flaky race"))]
                CASES = [
                    *BASE,
                    pytest.param(1, marks=pytest.mark.flaky(reruns=2)),
                    pytest.param(2, id="two"),
                    3,
                ]


                @pytest.mark.parametrize("x", CASES)
                def test_x(x):
                    assert run(x) == 1


                @pytest.mark.parametrize("y", BASE + [5])
                def test_y(y):
                    assert run(y) == 1
                """,
        },
    )
    rerun = only(document, "DET101")
    assert (rerun["line"], rerun["column"]) == (6, 27)
    assert "reported 0.10% of the time instead of 10.0% (reruns=2;" in rerun["message"]
    xfail = only(document, "DET201")
    assert (xfail["line"], xfail["column"]) == (3, 31)
    assert "covers 2 tests" in xfail["message"]


def test_a_skip_alias_defined_per_platform_in_a_helper_is_conditional(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/helpers.py": """\
                import sys

                import pytest

                if sys.platform == "win32":
                    skip_on_win = pytest.mark.skip(reason="flaky on windows")
                else:
                    skip_on_win = lambda f: f
                """,
            "tests/test_alias.py": """\
                from tests.helpers import skip_on_win


                @skip_on_win
                def test_a():
                    assert run() == 1
                """,
        },
    )
    found = only(document, "DET202")
    assert (found["path"], found["line"]) == ("tests/test_alias.py", 4)
    assert found["message"].startswith(
        "test skipped as 'flaky' where `sys.platform == \"win32\"`: there it never runs"
    )


def test_module_constants_decide_the_conditions_that_test_them(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_sync.py": """\
                import pytest

                _IS_SYNC = False
                IS_CI = True


                @pytest.mark.skipif(_IS_SYNC, reason="flaky in sync mode")
                def test_never_skipped():
                    assert run() == 1


                @pytest.mark.skipif(IS_CI and _IS_SYNC, reason="flaky on CI")
                def test_never_skipped_either():
                    assert run() == 1


                @pytest.mark.skipif(not _IS_SYNC, reason="flaky in async mode")
                def test_always_skipped():
                    assert run() == 1


                def test_skipped_in_its_body():
                    if IS_CI:
                        pytest.skip("flaky on CI")
                    assert run() == 1


                def test_runs():
                    if _IS_SYNC:
                        pytest.skip("flaky in sync mode")
                    assert run() == 1
                """,
            "tests/test_reassigned.py": """\
                import pytest

                IS_CI = True


                def setup_module():
                    global IS_CI
                    IS_CI = False


                @pytest.mark.skipif(IS_CI, reason="flaky on CI")
                def test_b():
                    assert run() == 1
                """,
        },
    )
    skips = {(f["path"], f["line"]): f["message"] for f in findings(document, "DET202")}
    assert set(skips) == {
        ("tests/test_sync.py", 17),
        ("tests/test_sync.py", 24),
        ("tests/test_reassigned.py", 11),
    }
    assert skips["tests/test_sync.py", 17].startswith("test skipped as 'flaky': it never runs")
    assert skips["tests/test_sync.py", 24].startswith("test skipped as 'flaky': it never runs")
    # Bound twice: its value when the decorator runs is not read, so it stays a condition.
    assert skips["tests/test_reassigned.py", 11].startswith(
        "test skipped as 'flaky' where `IS_CI`: there it never runs"
    )


def test_a_constant_decides_which_branch_defines_an_alias(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_switch.py": """\
                import pytest

                ON_GPU = False

                if ON_GPU:
                    gpu_flaky = pytest.mark.flaky(reruns=3)
                else:
                    gpu_flaky = pytest.mark.flaky(reruns=1)


                @gpu_flaky
                def test_kernel():
                    assert run() == 1
                """,
        },
    )
    found = only(document, "DET101")
    assert found["line"] == 11
    assert "reported 1.0% of the time instead of 10.0% (reruns=1;" in found["message"]
    assert "where" not in found["message"]


def test_unittest_reexported_by_the_package_is_unittest(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "import unittest\n",
            "tests/compat.py": """\
                import sys

                if sys.version_info < (2, 7):
                    import unittest2 as unittest
                else:
                    import unittest
                """,
            "tests/test_package.py": """\
                from tests import unittest


                class KernelTests(unittest.TestCase):
                    @unittest.skip("flaky on the shared runners")
                    def test_skipped(self):
                        self.assertEqual(run(), 1)

                    def test_skipped_in_body(self):
                        raise unittest.SkipTest("intermittent here")
                """,
            "tests/test_compat.py": """\
                from .compat import unittest


                class CompatTests(unittest.TestCase):
                    @unittest.skipIf(ON_CI, "intermittent on CI")
                    def test_skipped(self):
                        self.assertEqual(run(), 1)
                """,
            "tests/test_backport.py": """\
                import unittest2 as unittest


                class BackportTests(unittest.TestCase):
                    @unittest.expectedFailure
                    @unittest.skip("flaky")
                    def test_skipped(self):
                        self.assertEqual(run(), 1)
                """,
        },
    )
    skips = {(f["path"], f["line"]): f["message"] for f in findings(document, "DET202")}
    assert set(skips) == {
        ("tests/test_package.py", 5),
        ("tests/test_package.py", 10),
        ("tests/test_compat.py", 5),
        ("tests/test_backport.py", 6),
    }
    assert skips["tests/test_compat.py", 5].startswith(
        "test skipped as 'intermittent' where `ON_CI`: there it never runs"
    )


def test_a_constant_passed_as_a_keyword_on_its_own_line_is_still_bound_once():
    """cobaya: `max_runs = 3` then `@flaky(\\n    max_runs=max_runs,\\n ...)`."""
    from detlint.readers.python.constants import bound_once

    source = (
        "max_runs = 3\n\n\n@flaky(\n    max_runs=max_runs,\n    min_passes=1,\n)\n"
        "def t():\n    pass\n"
    )
    assert bound_once(source, "max_runs")
    assert not bound_once(source + "max_runs = 4\n", "max_runs")
    assert not bound_once(source + "def f():\n    global max_runs\n", "max_runs")
    assert not bound_once(source + "for max_runs in range(3):\n    pass\n", "max_runs")
    assert not bound_once(source + "a, max_runs = 1, 2\n", "max_runs")


def test_which_imported_names_a_file_applies():
    from detlint.readers.python.imported_uses import applied_imports

    data = b"""\
from tests.helpers import (
    skip_on_win,
    Mixin as Base,
    unrelated,
)
from .marks import gpu_only

pytestmark = [gpu_only]


@skip_on_win
def test_a():
    from lib.engine import Server

    class Local(Server):
        pass


class TestB(Base):
    pass
"""
    assert applied_imports(data) == [
        ("tests.helpers", "skip_on_win", "skip_on_win", False),
        ("tests.helpers", "Mixin", "Base", True),
        (".marks", "gpu_only", "gpu_only", False),
    ]
