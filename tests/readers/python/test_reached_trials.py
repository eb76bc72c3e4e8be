"""Trial loops whose checks are reached through a parameter, a nested function, a
repeated sequence or a function of another module of the repository.

Distilled from CPython's suite as RustPython carries it: ``test_socketserver``'s
``run_server(..., self.dgram_examine)`` runs the examiner three times;
``test_context_threads_1`` maps its nested ``sub`` over ``range(10)``;
``check_parallel_module_init`` loops ``for N in (20, 50) * 3``;
``test_is_alive_after_fork`` calls ``support.wait_process`` in ``range(20)``.
"""

from __future__ import annotations

from realworld_cases import check

NO_LOOP = "1 attempt, no trial loop recognised"


def _messages(tmp_path, module: str, **others: str) -> dict[int, str]:
    files = {"tests/test_case.py": module, **{f"tests/{k}.py": v for k, v in others.items()}}
    document = check(tmp_path, files)
    return {
        finding["line"]: finding["message"]
        for finding in document["findings"]
        if finding["code"] == "DET202" and finding["path"].endswith("test_case.py")
    }


def _trials(message: str) -> str:
    """What a DET202 message says of the trials: the text after "nothing shows it ("."""
    tail = message.split("nothing shows it (", 1)[1]
    return tail[:-1]


PASSED = """import unittest


class ServerTests(unittest.TestCase):
    def run_server(self, kind, testfunc):
        for i in range(3):
            testfunc(kind, i)

    def examine(self, kind, i):
        self.assertEqual(self.send(kind), b"ok")

    def build(self, kind, i):
        self.sent = self.send(kind)

    @unittest.skip("flaky")
    def test_examined(self):
        self.run_server("udp", self.examine)

    @unittest.skip("flaky")
    def test_built(self):
        self.run_server("udp", self.build)

    @unittest.skip("flaky")
    def test_twice(self):
        self.run_server("udp", self.examine)
        self.run_server("tcp", self.build)
"""


def test_a_checking_method_passed_to_the_loop_makes_each_iteration_a_trial(tmp_path):
    messages = _messages(tmp_path, PASSED)
    assert "(was 27.1%)" in messages[15]
    assert _trials(messages[15]) == "3 trials (literal loop bound)"
    # The function passed checks nothing: the loop only builds.
    assert "(was 10.0%)" in messages[19]
    assert _trials(messages[19]).startswith(NO_LOOP)
    # Two calls pass different functions: which one the loop runs is unsure.
    assert _trials(messages[23]).startswith(NO_LOOP)


NESTED = """import unittest
from concurrent.futures import ThreadPoolExecutor


class ContextTests(unittest.TestCase):
    @unittest.skip("flaky")
    def test_threads(self):
        def sub(num):
            self.assertEqual(self.read(num), num)
            return num

        with ThreadPoolExecutor(max_workers=10) as tp:
            results = list(tp.map(sub, range(10)))

    @unittest.skip("flaky")
    def test_unread(self):
        def sub(num):
            self.assertEqual(self.read(num), num)

        with ThreadPoolExecutor(max_workers=10) as tp:
            tp.map(sub, range(10))
"""


def test_a_nested_checking_function_mapped_over_a_range_runs_a_trial_per_call(tmp_path):
    messages = _messages(tmp_path, NESTED)
    assert "(was 65.1%)" in messages[6]
    assert _trials(messages[6]) == "10 trials (`sub` mapped over `range(10)` at line 13)"
    # Results never read: a call's failure never reaches the test.
    assert _trials(messages[15]) == NO_LOOP


REPEATED = """import unittest


class ImportTests(unittest.TestCase):
    def check_parallel(self):
        for n in (20, 50) * 3:
            errors = self.run_threads(n)
            self.assertFalse(errors)

    def check_single(self):
        for _ in [None] * 5:
            self.assertEqual(self.run_threads(4), [])

    def check_collected(self):
        errors = []
        for n in (20, 50) * 3:
            errors.append(self.run_threads(n))
        self.assertEqual(sum(errors), 0)

    @unittest.skip("flaky")
    def test_parallel(self):
        self.check_parallel()

    @unittest.skip("flaky")
    def test_single(self):
        self.check_single()

    @unittest.skip("flaky")
    def test_collected(self):
        self.check_collected()
"""


def test_a_loop_over_a_repeated_sequence_counts_its_repeats(tmp_path):
    messages = _messages(tmp_path, REPEATED)
    assert "(was 27.1%)" in messages[20]
    assert _trials(messages[20]) == (
        "3 trials (`(20, 50) * 3` at line 6 runs each of its 2 items that many times; "
        "the figures are per item)"
    )
    assert "(was 41.0%)" in messages[24]
    assert _trials(messages[24]) == "5 trials (`[None] * 5` at line 11)"
    # Values collected and checked once after the loop: one trial.
    assert "(was 10.0%)" in messages[28]
    assert _trials(messages[28]).startswith(NO_LOOP)


SUPPORT = """import os


def wait_process(pid, *, exitcode):
    if pid < 0:
        raise ValueError("no such process")
    status = os.waitpid(pid, 0)[1]
    if os.waitstatus_to_exitcode(status) != exitcode:
        raise AssertionError(f"process {pid} exited with the wrong code")


def start_process():
    if not hasattr(os, "fork"):
        raise ValueError("cannot fork")
    return os.fork()
"""

FORKING = """import os
import unittest

from tests import support
from tests.support import start_process


class ForkTests(unittest.TestCase):
    @unittest.skip("flaky")
    def test_waited(self):
        for i in range(20):
            pid = os.fork()
            if pid == 0:
                os._exit(10)
            support.wait_process(pid, exitcode=10)

    @unittest.skip("flaky")
    def test_started(self):
        for i in range(20):
            pids = start_process()
"""


def test_an_asserting_function_of_another_module_checks_each_iteration(tmp_path):
    messages = _messages(tmp_path, FORKING, support=SUPPORT, __init__="")
    assert "(was 87.8%)" in messages[9]
    assert _trials(messages[9]) == "20 trials (literal loop bound)"
    # A function that raises only on a bad argument checks nothing a trial computed.
    assert "(was 10.0%)" in messages[17]
    assert _trials(messages[17]).startswith(NO_LOOP)


LIBRARY = """def compute(value):
    assert value >= 0, "negative input"
    return value * 2
"""

COMPUTING = """import unittest

from mylib.core import compute


class ComputeTests(unittest.TestCase):
    @unittest.skip("flaky")
    def test_computed(self):
        for i in range(20):
            compute(i)
"""


def test_an_assert_in_a_library_module_is_no_check_of_a_trial(tmp_path):
    """The library guards an invariant of its input: the loop checks nothing it computed."""
    files = {
        "tests/test_case.py": COMPUTING,
        "mylib/__init__.py": "",
        "mylib/core.py": LIBRARY,
    }
    (finding,) = [f for f in check(tmp_path, files)["findings"] if f["code"] == "DET202"]
    assert finding["line"] == 7
    assert "(was 10.0%)" in finding["message"]
    assert _trials(finding["message"]).startswith(NO_LOOP)
