"""Spreading per-file work over the cores with plain ``fork``.

A whole-repository run reads thousands of files and parses the few that
matter; the work per file is small, so what a process pool adds (a manager
thread, a queue, pickling every call and result, an idle parent) is a
visible share of the run. Here the parent forks ``jobs - 1`` children that
inherit everything (the repository, its settings) and each take every
``jobs``-th item, the parent takes its own share, and each child sends back
only the results that are not None, pickled once through a pipe. A child that
fails is not trusted: the parent does that share itself, so a broken worker
costs time, never results.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def _child(function: Callable[[Item], Result], items: Sequence[Item], fd: int) -> None:
    """Runs in the forked child: work, write the pickled results, exit without cleanup."""
    status = 1
    try:
        found = [
            (index, result)
            for index, item in enumerate(items)
            if (result := function(item)) is not None
        ]
        data = pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        status = 0
    finally:
        os._exit(status)  # never return into the parent's stack (click, atexit, buffers)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def fork_map(function: Callable[[Item], Result], items: Sequence[Item], jobs: int) -> list[Result]:
    """``[function(item) for item in items]``, over ``jobs`` processes where ``fork`` exists."""
    if jobs <= 1 or len(items) < 2 or not hasattr(os, "fork"):
        return [function(item) for item in items]
    shares = [list(items[start::jobs]) for start in range(jobs)]
    children: list[tuple[int, int, int]] = []  # (share, pid, read end)
    for share in range(1, jobs):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            _child(function, shares[share], write_end)
        os.close(write_end)
        children.append((share, pid, read_end))
    # A child sends only results that are not None, so None is every slot's start.
    results: list[Result] = [None] * len(items)  # type: ignore[list-item]
    for offset, item in enumerate(shares[0]):
        results[offset * jobs] = function(item)
    for share, pid, read_end in children:
        data = _read_all(read_end)
        _, status = os.waitpid(pid, 0)
        if status == 0:
            for offset, result in pickle.loads(data):
                results[share + offset * jobs] = result
        else:
            for offset, item in enumerate(shares[share]):
                results[share + offset * jobs] = function(item)
    return results
