"""A loop that only starts worker processes is not the loop that checks.

Distilled from pytorch/rl test/transforms/test_normalization.py
(``test_vecnorm_parallel_auto``): ``for idx in range(nprc):`` makes a queue, starts
``mp.Process(target=self._test_vecnorm_subproc_auto, ...)`` and keeps the queue; a
later loop reads each queue and asserts. The first loop was named as checking each
iteration, though the target's asserts run in the child and cannot fail the test.
"""

from __future__ import annotations

import pytest
from realworld_cases import check, only

HEADER = """\
import multiprocessing as mp

from retry import retry


class TestWorkers:
    def _child(self, i, queue=None):
        assert i >= 0
        queue.put(i)

    @retry(AssertionError, tries=10)
    def test_x(self, n):
"""
NO_LOOP = "1 attempt, no trial loop recognised"


def _trials(tmp_path, body: str) -> str:
    """The trial phrase DET103 quotes for the retried test with ``body`` (its first line
    is line 13)."""
    source = HEADER + "".join(f"        {line}\n" for line in body.strip("\n").split("\n"))
    document = check(
        tmp_path, {"requirements-test.txt": "retry==0.9.2\n", "tests/test_mp.py": source}
    )
    message = only(document, "DET103")["message"]
    assert "a 10% violation is reported <0.001% of the time instead of 10.0%" in message
    phrase = message.split("(10 attempts; ", 1)[1]
    return phrase[: phrase.rindex(")")]


@pytest.mark.parametrize(
    "body",
    [
        # The smallest shape: processes started, a queue read after.
        """
for i in range(n):
    mp.Process(target=self._child, args=(i,)).start()
for i in range(n):
    assert q.get() == expected
""",
        # rl: the queues kept, each read by index after (the index picks the case).
        """
queues = []
for idx in range(n):
    queue = mp.Queue(1)
    p = mp.Process(target=self._child, args=(idx, queue))
    p.start()
    queues.append(queue)
for idx in range(n):
    got = queues[idx].get(timeout=5)
    assert got == expected
""",
    ],
)
def test_a_loop_that_starts_workers_is_not_named(tmp_path, body):
    assert _trials(tmp_path, body) == NO_LOOP


def test_the_later_loop_that_checks_each_iteration_is_named(tmp_path):
    body = """
queues = []
for i in range(n):
    queue = mp.Queue(1)
    mp.Process(target=self._child, args=(i, queue)).start()
    queues.append(queue)
for queue in queues:
    queue.put("all_done")
    assert queue.get(timeout=5) == expected
"""
    assert _trials(tmp_path, body) == (
        "the loop over `queues` (line 18) checks each item; detlint cannot count them,"
        " so the figures are per item checked"
    )


def test_a_thread_loop_gives_way_to_the_loop_that_asks_each_handle(tmp_path):
    """``t.is_alive()`` asks the thread afresh on each pass: by today's rules that loop
    checks each item; the loop that started the threads does not."""
    body = """
threads = []
for i in range(n):
    t = threading.Thread(target=self._child, args=(i,))
    t.start()
    threads.append(t)
for t in threads:
    assert not t.is_alive()
"""
    assert _trials(tmp_path, body) == (
        "the loop over `threads` (line 18) checks each item; detlint cannot count them,"
        " so the figures are per item checked"
    )


def test_results_computed_in_the_test_keep_the_first_loop_named(tmp_path):
    """The loop that computes what a later loop checks item by item runs the trials."""
    body = """
results = []
for i in range(n):
    results.append(run(i))
for r in results:
    assert r == expected
"""
    assert _trials(tmp_path, body) == (
        "the loop over `range(n)` (line 14) checks each iteration; detlint cannot count"
        " them, so the figures are per iteration checked"
    )
