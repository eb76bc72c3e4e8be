"""Spreading per-file work over the cores with plain ``fork``.

A whole-repository run reads thousands of files and parses the few that
matter; the work per file is small, so what a process pool adds (a manager
thread, a queue, pickling every call and result, an idle parent) is a
visible share of the run. Here the parent forks children that inherit
everything (the repository, its settings) and each take every ``jobs``-th
item, and each child sends back only the results that are not None, pickled
once through a pipe. A child that fails is not trusted: the parent does that
share itself, so a broken worker costs time, never results.

``fork_map`` runs the work now, the parent taking one share itself.
``Staged`` starts work whose input is not complete yet: the children
sift their items at once, then wait for one message (the variables the
pipelines set, which the parent is still reading) and finish with it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
Message = TypeVar("Message")


def _send(fd: int, value: object) -> None:
    """One pickled value behind its length: the reader needs no end of file, which
    would wait for every process that inherited the pipe to close it."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(data).to_bytes(8, "little") + data)
    while view:
        view = view[os.write(fd, view) :]


def _read(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive(fd: int) -> tuple[bool, Any]:
    """The value ``_send`` wrote, and whether one came (not if the writer died or gave up)."""
    header = _read(fd, 8)
    data = None if header is None else _read(fd, int.from_bytes(header, "little"))
    return (False, None) if data is None else (True, pickle.loads(data))


def _child(function: Callable[[Item], Result], items: Sequence[Item], fd: int) -> None:
    """Runs in the forked child: work, write the pickled results, exit without cleanup."""
    status = 1
    try:
        _send(
            fd,
            [(i, result) for i, item in enumerate(items) if (result := function(item)) is not None],
        )
        status = 0
    finally:
        os._exit(status)  # never return into the parent's stack (click, atexit, buffers)


def _fork(pipes: int) -> tuple[int, list[tuple[int, int]]] | None:
    """``os.fork()`` with ``pipes`` new pipes (read end, write end) shared with the child;
    None when the system refuses a pipe or a process (the caller then does the work)."""
    made: list[tuple[int, int]] = []
    try:
        for _ in range(pipes):
            made.append(os.pipe())
        return os.fork(), made
    except OSError:
        for read_end, write_end in made:
            os.close(read_end)
            os.close(write_end)
        return None


def _reap(children: Sequence[tuple[int, int]]) -> None:
    """Close the read end of each (pid, read end) child and wait for it: a child still
    writing then fails on the closed pipe instead of waiting for a reader forever."""
    for pid, read_end in children:
        os.close(read_end)
        os.waitpid(pid, 0)


def fork_map(function: Callable[[Item], Result], items: Sequence[Item], jobs: int) -> list[Result]:
    """``[function(item) for item in items]``, over ``jobs`` processes where ``fork`` exists."""
    if jobs <= 1 or len(items) < 2 or not hasattr(os, "fork"):
        return [function(item) for item in items]
    shares = [list(items[start::jobs]) for start in range(jobs)]
    children: list[tuple[int, int, int]] = []  # (share, pid, read end)
    for share in range(1, jobs):
        forked = _fork(1)
        if forked is None:
            break
        pid, ((read_end, write_end),) = forked
        if pid == 0:
            os.close(read_end)
            _child(function, shares[share], write_end)
        os.close(write_end)
        children.append((share, pid, read_end))
    # A child sends only results that are not None, so None is every slot's start.
    results: list[Result] = [None] * len(items)  # type: ignore[list-item]
    done_here = [share for share in range(jobs) if share == 0 or share > len(children)]
    try:
        for share in done_here:
            for offset, item in enumerate(shares[share]):
                results[share + offset * jobs] = function(item)
    except BaseException:
        _reap([(pid, read_end) for _, pid, read_end in children])
        raise
    for share, pid, read_end in children:
        found = _collected(pid, read_end)
        if found is None:
            found = [(offset, function(item)) for offset, item in enumerate(shares[share])]
        for offset, result in found:
            results[share + offset * jobs] = result
    return results


def _collected(pid: int, fd: int) -> list[tuple[int, Any]] | None:
    """The (offset, result) pairs a child sent, once it has exited; None when it failed
    (its share is then done by the parent)."""
    came, found = _receive(fd)
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return found if came and status == 0 else None


def _staged_child(
    keep: Callable[[Item], bool],
    function: Callable[[Message, Item], Result],
    items: Sequence[Item],
    inbox: int,
    outbox: int,
    prepare: Callable[[], object],
) -> None:
    """Runs in the forked child: sift, prepare, wait for the message, finish the kept items."""
    status = 1
    try:
        kept = [index for index, item in enumerate(items) if keep(item)]
        if kept:
            prepare()
        came, message = _receive(inbox)
        if came:  # else the parent gave the work up
            _send(outbox, [(i, r) for i in kept if (r := function(message, items[i])) is not None])
        status = 0
    finally:
        os._exit(status)


class Staged(Generic[Message, Item, Result]):
    """``[function(message, item) for item in items]`` under way before ``message`` is known.

    ``keep(item)`` False promises that ``function(message, item)`` is None
    whatever the message: the children work it out for their shares (every
    ``jobs``-th item) at once, call ``prepare`` if they kept any (to import
    what ``function`` needs while the message is still to come), and apply
    ``function`` only to the items kept.
    Use it as a context manager: leaving the block without ``results`` stops
    the children.
    """

    def __init__(
        self,
        keep: Callable[[Item], bool],
        function: Callable[[Message, Item], Result],
        items: Sequence[Item],
        jobs: int,
        prepare: Callable[[], object] = lambda: None,
    ) -> None:
        self.function, self.items, self.jobs = function, items, jobs
        self.children: list[tuple[int, int, int, int]] = []  # (share, pid, inbox, outbox)
        if jobs <= 1 or len(items) < 2 or not hasattr(os, "fork"):
            self.jobs = 1
            return
        for share in range(jobs):
            forked = _fork(2)
            if forked is None:
                break  # results() does the shares no child took
            pid, ((inbox_read, inbox_write), (outbox_read, outbox_write)) = forked
            if pid == 0:
                for _, _, earlier_inbox, earlier_outbox in self.children:
                    os.close(earlier_inbox)
                    os.close(earlier_outbox)
                os.close(inbox_write)
                os.close(outbox_read)
                _staged_child(keep, function, items[share::jobs], inbox_read, outbox_write, prepare)
            os.close(inbox_read)
            os.close(outbox_write)
            self.children.append((share, pid, inbox_write, outbox_read))

    def _share(self, message: Message, share: int) -> list[Result]:
        return [self.function(message, item) for item in self.items[share :: self.jobs]]

    def results(self, message: Message) -> list[Result]:
        """Every item's result with ``message``, in order; call it once."""
        children, self.children = self.children, []
        for _, _, inbox, _ in children:
            with contextlib.suppress(OSError):  # a child that died: its share is done here
                _send(inbox, message)
            os.close(inbox)
        delivered = {share: _collected(pid, outbox) for share, pid, _, outbox in children}
        results: list[Result] = [None] * len(self.items)  # type: ignore[list-item]
        for share in range(self.jobs):
            found = delivered.get(share)
            if found is None:
                results[share :: self.jobs] = self._share(message, share)
            else:
                for offset, result in found:
                    results[share + offset * self.jobs] = result
        return results

    def __enter__(self) -> Staged[Message, Item, Result]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        """Stop children that never got their message: they read no message and exit."""
        for _, _, inbox, _ in self.children:
            os.close(inbox)
        _reap([(pid, outbox) for _, pid, _, outbox in self.children])
        self.children = []
