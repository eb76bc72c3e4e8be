"""fork_map and Staged: the same results as a plain loop, in order, whatever a child does."""

from __future__ import annotations

import os
import signal
import time

import pytest

from detlint.base.parallel import Staged, fork_map


def test_results_are_those_of_a_plain_loop_in_order():
    def odd_squares(n: int) -> int | None:
        return n * n if n % 2 else None

    items = list(range(101))
    assert fork_map(odd_squares, items, 3) == [odd_squares(n) for n in items]


def test_a_failing_childs_share_is_redone_by_the_parent():
    parent = os.getpid()

    def square(n: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("a worker that breaks")
        return n * n

    assert fork_map(square, list(range(10)), 3) == [n * n for n in range(10)]


def test_children_run_in_other_processes():
    pids = fork_map(lambda _: os.getpid(), list(range(6)), 2)
    assert pids[0::2] == [os.getpid()] * 3
    assert len(set(pids[1::2])) == 1
    assert pids[1] != os.getpid()


# -- Staged: sift now, finish once the message comes ------------------------------------


def _is_even(n: int) -> bool:
    return n % 2 == 0


def test_staged_results_are_those_of_a_plain_loop_in_order():
    def function(message: int, n: int) -> int | None:
        return n * message if n % 2 == 0 else None  # None wherever keep says False

    items = list(range(101))
    with Staged(_is_even, function, items, 3) as staged:
        assert staged.results(7) == [function(7, n) for n in items]


def test_staged_children_finish_only_the_items_they_kept():
    # A function that breaks keep's promise shows which items the children finished.
    with Staged(_is_even, lambda message, n: n + message, list(range(20)), 2) as staged:
        results = staged.results(100)
    assert results == [n + 100 if n % 2 == 0 else None for n in range(20)]


def test_staged_with_one_job_does_every_item_here():
    parent = os.getpid()
    with Staged(_is_even, lambda _, n: (n, os.getpid()), list(range(6)), 1) as staged:
        assert staged.results(None) == [(n, parent) for n in range(6)]


def test_staged_message_larger_than_a_pipe_buffer():
    message = "x" * 300_000
    with Staged(lambda _: True, lambda m, n: len(m) + n, list(range(8)), 2) as staged:
        assert staged.results(message) == [300_000 + n for n in range(8)]


def test_staged_failing_childs_share_is_redone_by_the_parent():
    parent = os.getpid()

    def function(message: int, n: int) -> int:
        if os.getpid() != parent and n == 3:
            raise RuntimeError("a worker that breaks")
        return n * message

    with Staged(lambda _: True, function, list(range(10)), 2) as staged:
        assert staged.results(2) == [n * 2 for n in range(10)]


_prepared: list[int] = []


def test_staged_prepares_only_in_children_that_kept_an_item():
    def function(_: None, n: int) -> tuple[int, bool]:
        return (os.getpid(), bool(_prepared))

    # Share 0 keeps item 0; share 1 (odd items) keeps nothing, so finishes nothing either.
    with Staged(lambda n: n == 0, function, [0, 1, 2, 3], 2, lambda: _prepared.append(1)) as staged:
        results = staged.results(None)
    assert results[1::2] == [None, None]
    child, prepared = results[0]
    assert child != os.getpid()
    assert prepared
    assert not _prepared  # the parent never prepared


def test_leaving_the_block_without_results_stops_the_children():
    with Staged(_is_even, lambda m, n: n, list(range(10)), 2) as staged:
        pids = [pid for _, pid, _, _ in staged.children]
        assert len(pids) == 2
    for pid in pids:  # reaped: no such child any more
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_staged_child_that_dies_before_its_message_has_its_share_redone():
    parent = os.getpid()

    def keep(n: int) -> bool:
        if os.getpid() != parent and n == 3:
            os._exit(3)  # dies while sifting, before it reads its message
        return True

    with Staged(keep, lambda m, n: n + m, list(range(8)), 2) as staged:
        time.sleep(0.3)  # the child is gone: sending it the message fails
        assert staged.results(10) == [n + 10 for n in range(8)]


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_failure_in_the_parents_share_stops_the_children_without_a_hang():
    parent = os.getpid()

    def big(n: int) -> str:
        if os.getpid() == parent:
            raise ValueError("a bug in the parent's share")
        return "x" * 200_000  # more than a pipe holds: the child waits for a reader

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError("fork_map hung")

    previous = signal.signal(signal.SIGALRM, hung)  # a hang fails the test, not the suite
    signal.alarm(20)
    try:
        with pytest.raises(ValueError, match="parent's share"):
            fork_map(big, list(range(6)), 2)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert _no_children_left()


def test_when_the_system_refuses_a_process_the_parent_does_the_work(monkeypatch):
    def refuse() -> int:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refuse)
    assert fork_map(lambda n: n * 2, list(range(9)), 3) == [n * 2 for n in range(9)]
    with Staged(lambda _: True, lambda m, n: n + m, list(range(9)), 3) as staged:
        assert staged.results(1) == [n + 1 for n in range(9)]
