"""The count of tests a knob on a mixin's method covers is the classes that inherit it
where the knob applies, and a bound where detlint cannot list them all.

Distilled from RustPython's Lib/test: ``test_asyncio/test_subprocess.py`` skips a
``SubprocessMixin`` method ``skipIf(sys.platform == 'win32')`` while two of the three
classes that inherit it are defined under ``if sys.platform != 'win32':`` (it said
"covers 3 tests"; on win32 one exists); ``test_asyncio/test_events.py`` defines some
under ``hasattr(selectors, ...)``; and ``test_importlib/test_locks.py`` passes
``lock_tests.RLockTests`` to ``test_util.test_both``, which builds two more collected
classes at run time (it said "covers 5 tests" of a ``BaseLockTests`` method 7 run).
"""

from __future__ import annotations

from pathlib import Path

from realworld_cases import check, findings

MIXIN = """\
    import sys
    import unittest

    class Mixin:
        @unittest.skipIf({condition}, "flaky on CI")
        def test_close(self):
            self.assertTrue(True)
    """


def _message(tmp_path: Path, condition: str, classes: str) -> str:
    files = {"tests/test_sub.py": MIXIN.format(condition=condition) + classes}
    (found,) = findings(check(tmp_path, files, "--no-cache"), "DET202")
    assert found["line"] == 5
    return str(found["message"])


PLATFORM_BRANCHES = """\

    if sys.platform != 'win32':
        class ThreadedTests(Mixin, unittest.TestCase):
            pass

        class PidfdTests(Mixin, unittest.TestCase):
            pass
    else:
        class ProactorTests(Mixin, unittest.TestCase):
            pass

    class PlainTests(Mixin, unittest.TestCase):
        pass
    """


def test_branch_the_condition_rules_out_is_not_counted(tmp_path: Path) -> None:
    message = _message(tmp_path, "sys.platform == 'win32'", PLATFORM_BRANCHES)
    # On win32 only ProactorTests and PlainTests exist: 2, not 4.
    assert message.endswith(
        "(1 attempt, no trial loop recognised; covers 2 tests, 2 test instances)"
    )


def test_compatible_branch_is_counted(tmp_path: Path) -> None:
    message = _message(tmp_path, "sys.platform.startswith('linux')", PLATFORM_BRANCHES)
    # Linux is not win32: ThreadedTests, PidfdTests and PlainTests.
    assert message.endswith("; covers 3 tests, 3 test instances)")


def test_membership_and_os_name(tmp_path: Path) -> None:
    classes = """\

    if os.name == 'nt':
        class NtTests(Mixin, unittest.TestCase):
            pass
    elif sys.platform in ('darwin', 'linux'):
        class UnixTests(Mixin, unittest.TestCase):
            pass
    """
    message = _message(tmp_path, "os.name != 'nt'", "import os\n" + classes)
    # NtTests is ruled out; UnixTests is under `not os.name == 'nt'` (compatible) and
    # a comparison of sys.platform, which the knob's condition does not decide.
    assert message.endswith("(1 attempt, no trial loop recognised)")
    assert "covers" not in message


def test_undecidable_guard_gives_a_range(tmp_path: Path) -> None:
    classes = """\

    import selectors

    if sys.platform == 'win32':
        class ProactorTests(Mixin, unittest.TestCase):
            pass
    else:
        if hasattr(selectors, 'EpollSelector'):
            class EPollTests(Mixin, unittest.TestCase):
                pass
        if hasattr(selectors, 'KqueueSelector'):
            class KqueueTests(Mixin, unittest.TestCase):
                pass
        class SelectTests(Mixin, unittest.TestCase):
            pass
    """
    message = _message(tmp_path, 'sys.platform == "linux"', classes)
    assert message.endswith(
        "; covers 1 to 3 tests (2 of them in classes defined under a condition detlint "
        "cannot decide against the knob's))"
    )


def test_unconditional_knob_counts_every_branch(tmp_path: Path) -> None:
    files = {
        "tests/test_sub.py": MIXIN.replace(
            '@unittest.skipIf({condition}, "flaky on CI")', '@unittest.skip("flaky on CI")'
        )
        + PLATFORM_BRANCHES
    }
    (found,) = findings(check(tmp_path, files, "--no-cache"), "DET202")
    assert found["message"].endswith("; covers 4 tests, 4 test instances)")


LOCKS = {
    "tests/__init__.py": "",
    "tests/lock_tests.py": """\
        import unittest

        class BaseLockTests(unittest.TestCase):
            @unittest.skip("sometimes hangs")
            def test_acquire_contended(self):
                self.assertTrue(True)

        class RLockTests(BaseLockTests):
            pass
        """,
    "tests/test_threading.py": """\
        from tests import lock_tests

        class LockTests(lock_tests.BaseLockTests):
            pass

        class PyRLockTests(lock_tests.RLockTests):
            pass
        """,
}


def test_class_passed_to_a_builder_makes_the_count_a_lower_bound(tmp_path: Path) -> None:
    files = {
        **LOCKS,
        "tests/test_locks.py": """\
            import unittest

            from tests import lock_tests
            from tests import util

            class ModuleLockAsRLockTests:
                locktype = None

            (Frozen_RLockTests, Source_RLockTests) = util.test_both(
                ModuleLockAsRLockTests, lock_tests.RLockTests
            )

            class DeadlockTests(unittest.TestCase):
                @unittest.skip("flaky test")
                def test_deadlock(self):
                    self.assertTrue(True)
            """,
        "tests/util.py": """\
            def test_both(*bases):
                return tuple(type(name, bases, {}) for name in ("Frozen", "Source"))
            """,
    }
    # detlint reads the calls of the modules it parses: this one holds a knob too.
    found, own = findings(check(tmp_path, files, "--no-cache"), "DET202")
    assert (found["path"], found["line"]) == ("tests/lock_tests.py", 4)
    assert (own["path"], own["line"]) == ("tests/test_locks.py", 14)
    assert "covers" not in own["message"]
    assert found["message"].endswith(
        "; covers at least 2 tests, at least 2 test instances (classes `test_both(...)` "
        "builds at run time may inherit it too))"
    )


def test_class_only_checked_with_a_call_keeps_the_exact_count(tmp_path: Path) -> None:
    files = {
        **LOCKS,
        "tests/test_locks.py": """\
            from tests import lock_tests
            from tests.util import instantiate_parametrized_tests

            # Changes the class it is given; binds no new class (torch's helper).
            instantiate_parametrized_tests(lock_tests.RLockTests)
            KIND = issubclass(lock_tests.RLockTests, object)

            def test_kind():
                assert isinstance(lock_tests.RLockTests(), lock_tests.BaseLockTests)
            """,
        "tests/util.py": "def instantiate_parametrized_tests(cls):\n    return cls\n",
    }
    (found,) = findings(check(tmp_path, files, "--no-cache"), "DET202")
    assert found["message"].endswith("; covers 2 tests, 2 test instances)")


INSTALLER = {
    "tests/__init__.py": "",
    "tests/_test_multiprocessing.py": """\
        import unittest

        class BaseTestCase(object):
            ALLOWED_TYPES = ('processes', 'threads')

        class _TestLock(BaseTestCase):
            @unittest.skip("flaky timeout")
            def test_repr_rlock(self):
                self.assertTrue(True)

        def install_tests_in_module_dict(remote_globs, start_method):
            for name, base in list(globals().items()):
                if isinstance(base, type) and issubclass(base, BaseTestCase):
                    remote_globs["With" + name[1:]] = type(name, (base, unittest.TestCase), {})
        """,
    "tests/test_spawn.py": """\
        import sys
        import unittest
        from tests._test_multiprocessing import install_tests_in_module_dict

        install_tests_in_module_dict(globals(), 'spawn')

        class WithTestCondition(WithTestCondition):
            @unittest.skipIf(sys.platform == 'darwin', 'flaky timeout')
            def test_notify(self):
                super().test_notify()
        """,
}


def test_classes_a_module_dict_installer_binds_are_reported(tmp_path: Path) -> None:
    found = findings(check(tmp_path, INSTALLER, "--no-cache"), "DET202")
    where = {(f["path"], f["line"]): f["message"] for f in found}
    assert set(where) == {("tests/_test_multiprocessing.py", 7), ("tests/test_spawn.py", 8)}
    # The installer's classes: named and counted at run time only.
    assert where["tests/_test_multiprocessing.py", 7].endswith(
        "(1 attempt, no trial loop recognised; covers tests of the classes "
        "`install_tests_in_module_dict(globals(), ...)` installs at run time: how many is "
        "unknown)"
    )
    # A class written on a base only the installer binds: collected as that base is.
    assert where["tests/test_spawn.py", 8].endswith(
        "(1 attempt, no trial loop recognised; its class's base is one "
        "`install_tests_in_module_dict(globals(), ...)` installs at run time, taken for a "
        "unittest.TestCase)"
    )


def test_a_module_without_an_installer_collects_neither(tmp_path: Path) -> None:
    files = dict(INSTALLER)
    files["tests/test_spawn.py"] = files["tests/test_spawn.py"].replace(
        "install_tests_in_module_dict(globals(), 'spawn')", "pass"
    )
    assert findings(check(tmp_path, files, "--no-cache"), "DET202") == []
