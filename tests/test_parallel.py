"""fork_map: the same results as a plain loop, in order, whatever a child does."""

from __future__ import annotations

import os

from detlint.parallel import fork_map


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
