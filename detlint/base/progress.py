"""A progress bar on standard error for runs long enough to leave someone waiting.

A whole-repository audit can take many seconds, and a silent terminal for that
long looks like a hang. The bar is drawn only where someone watches: on a
terminal, and only once a run has lasted about a second (:data:`DELAY_SECONDS`),
so short runs, pipes, CI logs and JSON on standard output never see it, and it
is erased when the run ends (nothing is left in the scrollback).

The engine reports through :class:`Progress`; :data:`NULL_PROGRESS` is the
default everywhere, so a run that shows no bar pays for no more than a method
call per phase, and never imports ``tqdm`` (``detlint check`` stays as quick
to start as it is without a bar).

The engine forks worker processes (:mod:`detlint.base.parallel`) that inherit the
bar as a Python object; a terminal line written by two processes is garbled,
so the bar does nothing in any process but the one that made it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, Protocol, TypeVar

# How long a run lasts before its bar is drawn: shorter runs show nothing at all.
DELAY_SECONDS = 1.0

# The bar shows neither a rate nor an estimate: phases count different things
# (files, then steps), so a rate carried from one phase to the next would mislead.
_BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} {unit} [{elapsed}]"

Parameters = ParamSpec("Parameters")
Result = TypeVar("Result")


class Progress(Protocol):
    """Where a run says how far it has got: a sequence of phases, each counted up to
    its total."""

    def phase(self, description: str, total: int, unit: str = "files") -> None:
        """Start a new phase of ``total`` units (the count starts again at 0)."""
        ...

    def advance(self, count: int = 1) -> None:
        """Count ``count`` more units of the current phase, never past its total (so
        advancing by the total marks a phase done however far it had got)."""
        ...

    def close(self) -> None:
        """Take the bar off the screen; the run has ended."""
        ...


# Neither class below is a dataclass: they hold no facts, and making a dataclass costs
# more at import (detlint.engine imports this module on every run) than the whole of
# this module otherwise does.


class _NoProgress:
    """Reports nowhere: the default, for runs that show no bar."""

    __slots__ = ()

    def phase(self, description: str, total: int, unit: str = "files") -> None:
        pass

    def advance(self, count: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


NULL_PROGRESS: Progress = _NoProgress()


class _Bar:
    """One ``tqdm`` bar per phase, written only by the process that made it
    (``owner``): forked workers inherit this object, and their calls do nothing.

    Each phase gets a bar of its own (tqdm's public interface: a new bar, its
    ``n`` and ``total``), and the first second of the run is the delay of whichever
    bar is current then, so a short run draws nothing at all.
    """

    __slots__ = ("bar", "make", "owner", "started")

    def __init__(self, make: Callable[..., Any]) -> None:
        self.make = make  # tqdm.tqdm with the run's fixed options; tqdm ships no types
        self.bar: Any = None
        self.owner = os.getpid()
        self.started = time.monotonic()

    def phase(self, description: str, total: int, unit: str = "files") -> None:
        if os.getpid() != self.owner:
            return
        if self.bar is not None:
            self.bar.close()
        delay = max(0.0, DELAY_SECONDS - (time.monotonic() - self.started))
        self.bar = self.make(total=total, desc=description, unit=unit, delay=delay)

    def advance(self, count: int = 1) -> None:
        bar = self.bar
        if bar is None or os.getpid() != self.owner:
            return
        count = min(count, bar.total - bar.n)
        if count > 0:
            bar.update(count)

    def close(self) -> None:
        if self.bar is not None and os.getpid() == self.owner:
            self.bar.close()
            self.bar = None


@contextlib.contextmanager
def progress_bar(enabled: bool) -> Iterator[Progress]:
    """A bar on standard error for the duration of the block, when ``enabled`` and
    standard error is a terminal; :data:`NULL_PROGRESS` otherwise (and then ``tqdm``
    is not imported)."""
    stream = sys.stderr
    if not enabled or stream is None or not stream.isatty():
        yield NULL_PROGRESS
        return
    from tqdm import tqdm  # type: ignore[import-untyped]

    class _Unmonitored(tqdm):  # type: ignore[misc]
        """No monitor thread: it only repairs bars that update rarely (this one checks
        the clock on every update), and a thread alive while the engine forks its
        workers is a deadlock risk in the children."""

        monitor_interval = 0

    progress = _Bar(
        functools.partial(
            _Unmonitored,
            file=stream,
            leave=False,
            dynamic_ncols=True,
            miniters=1,
            bar_format=_BAR_FORMAT,
        )
    )
    try:
        yield progress
    finally:
        progress.close()


def counting(
    function: Callable[Parameters, Result], progress: Progress, step: int = 1
) -> Callable[Parameters, Result]:
    """``function``, advancing ``progress`` by ``step`` after each call: where a
    process does one share of ``jobs`` equal shares, each of its items stands for
    ``jobs`` items of the whole."""

    def counted(*args: Parameters.args, **kwargs: Parameters.kwargs) -> Result:
        result = function(*args, **kwargs)
        progress.advance(step)
        return result

    return counted
