"""A skip written in a function the test calls first is a condition of the test.

Distilled from pypa/cibuildwheel test/test_ios.py: each iOS test starts with
``skip_if_ios_testing_not_supported()``, whose body skips off macOS; the rerun
marker's numbers hold only where the test runs, and the skip was dropped.
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, check, findings, only

MAC_GATE = """\
    import sys

    import pytest


    def skip_unless_mac():
        if sys.platform != "darwin":
            pytest.skip("mac only")


    @pytest.mark.flaky(reruns=1)
    def test_x():
        skip_unless_mac()
        assert f()
    """


def test_a_gate_of_the_module_called_first_is_another_environment(tmp_path):
    message = only(check(tmp_path, {**RERUNFAILURES, "tests/test_x.py": MAC_GATE}), "DET101")[
        "message"
    ]
    assert "1.0% of the time instead of 10.0% where the test runs" in message
    assert 'elsewhere: skipped where `sys.platform != "darwin"` (in `skip_unless_mac()`)' in message


def test_each_skip_of_the_gate_keeps_the_guards_written_in_it(tmp_path):
    """cibuildwheel's gate: two skips, the second past the first."""
    files = {
        **RERUNFAILURES,
        "tests/test_ios.py": """\
            import pytest

            from . import utils


            def skip_if_ios_testing_not_supported() -> None:
                \"\"\"Skip the test if iOS testing is not supported on this machine.\"\"\"
                if utils.get_platform() != "macos":
                    pytest.skip("this test can only run on macOS")
                if utils.get_xcode_version() < (13, 0):
                    pytest.skip("this test only works with Xcode 13.0 or greater")


            @pytest.mark.serial
            @pytest.mark.flaky(reruns=1)
            def test_ios_test_command_short_circuit(tmp_path, capfd):
                skip_if_ios_testing_not_supported()

                project_dir = tmp_path / "project"
                assert build(project_dir)
            """,
    }
    found = only(check(tmp_path, files), "DET101")
    assert found["line"] == 15
    gate = "(in `skip_if_ios_testing_not_supported()`)"
    assert f'skipped where `utils.get_platform() != "macos"` {gate}' in found["message"]
    assert (
        'skipped where not `utils.get_platform() != "macos"` and '
        f"`utils.get_xcode_version() < (13, 0)` {gate}" in found["message"]
    )


def test_an_imported_gate_a_method_calls_first(tmp_path):
    files = {
        **RERUNFAILURES,
        "tests/__init__.py": "",
        "tests/gates.py": """\
            import pytest


            def skip_without_gpu():
                if not cuda():
                    pytest.skip("needs a GPU")
            """,
        "tests/test_kernels.py": """\
            import pytest

            from tests import gates


            class TestKernel:
                @pytest.mark.flaky(reruns=2)
                def test_kernel(self):
                    device = "cuda:0"
                    gates.skip_without_gpu()
                    assert run(device)
            """,
    }
    message = only(check(tmp_path, files), "DET101")["message"]
    assert "0.10% of the time instead of 10.0% where the test runs" in message
    assert "skipped where `not cuda()` (in `gates.skip_without_gpu()`)" in message


def test_a_gate_of_the_class_called_through_self(tmp_path):
    files = {
        **RERUNFAILURES,
        "tests/test_kernels.py": """\
            import unittest

            import pytest


            class TestKernel(unittest.TestCase):
                def require_gpu(self):
                    if not cuda():
                        self.skipTest("needs a GPU")

                @pytest.mark.flaky(reruns=2)
                def test_kernel(self):
                    self.require_gpu()
                    assert run()
            """,
    }
    message = only(check(tmp_path, files), "DET101")["message"]
    assert "skipped where `not cuda()` (in `self.require_gpu()`)" in message


def test_a_fixture_of_the_module_that_skips_is_read(tmp_path):
    files = {
        **RERUNFAILURES,
        "tests/test_x.py": """\
            import sys

            import pytest


            @pytest.fixture
            def mac_only():
                if sys.platform != "darwin":
                    pytest.skip("mac only")


            @pytest.mark.flaky(reruns=1)
            def test_x(mac_only):
                assert f()
            """,
    }
    message = only(check(tmp_path, files), "DET101")["message"]
    assert 'elsewhere: skipped where `sys.platform != "darwin"`' in message


def test_an_unconditional_gate_skips_as_one_written_inline(tmp_path):
    """Skipped wherever it would run: the rerun marker hides nothing (no DET101)."""
    files = {
        **RERUNFAILURES,
        "tests/test_x.py": """\
            import pytest


            def broken():
                pytest.skip("broken upstream")


            @pytest.mark.flaky(reruns=1)
            def test_x():
                broken()
                assert f()
            """,
    }
    assert findings(check(tmp_path, files), "DET101") == []


def test_calls_that_are_not_a_first_gate_add_no_condition(tmp_path):
    """After a check the skip comes too late to keep a failure away; a function that
    can return before its skip is not read (the skip holds on some path only); a call
    inside an ``if`` is guarded by it."""
    files = {
        **RERUNFAILURES,
        "tests/test_x.py": """\
            import sys

            import pytest


            def skip_unless_mac():
                if sys.platform != "darwin":
                    pytest.skip("mac only")


            def maybe():
                if ready():
                    return
                if sys.platform != "darwin":
                    pytest.skip("mac only")


            @pytest.mark.flaky(reruns=1)
            def test_after_a_check():
                assert f()
                skip_unless_mac()


            @pytest.mark.flaky(reruns=1)
            def test_returning_gate():
                maybe()
                assert f()


            @pytest.mark.flaky(reruns=1)
            def test_in_a_branch():
                if fast():
                    skip_unless_mac()
                assert f()
            """,
    }
    found = findings(check(tmp_path, files), "DET101")
    assert [f["line"] for f in found] == [18, 24, 30]
    for finding in found:
        assert "elsewhere" not in finding["message"]
        assert "1.0% of the time instead of 10.0% (" in finding["message"]
