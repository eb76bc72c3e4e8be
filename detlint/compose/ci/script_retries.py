"""Retries written around what runs tests, each a CI knob of its own where it is written.

A script reruns what failed without any CI setting: ``pytest || pytest --lf``, ``make
test || make test``, a loop of ``hatch run test``, or a wrapper that runs pytest again
with ``--lf``. The shell reader and the call follower find them (``retry_attempts`` on
a run or a call, ``retry`` on a call's end); here each becomes a ``shell-retry`` knob,
so that composing a run's policy treats it like a CI retry.
"""

from __future__ import annotations

from detlint.base.span import Span
from detlint.readers.ci.commands.call_ends import CallEnd
from detlint.readers.ci.facts import CiKnob, CiStep
from detlint.readers.ci.shell.commands import PytestRun, TestCall


def retry_knob(step: CiStep, shape: str | None, attempts: int | None, span: Span) -> CiKnob:
    """A retry written around what runs tests, as a knob of its own where it is written:
    the script's around a run (``pytest || pytest --lf``) or a call (``make test || make
    test``, a loop of ``hatch run test``), or a wrapper's own (a Python script that runs
    pytest again with ``--lf``)."""
    shape = shape or "retry"
    return CiKnob(
        kind="shell-retry",
        system=step.system,
        key=shape,
        span=span,
        value=shape,
        covers_tests=True,
        attempts=attempts,
    )


def shell_retry(step: CiStep, run: PytestRun, span: Span) -> CiKnob:
    return retry_knob(step, run.retry_shape, run.retry_attempts, span)


def call_retry(step: CiStep, call: TestCall, span: Span) -> CiKnob:
    return retry_knob(step, call.retry_shape, call.retry_attempts, span)


def end_retry(step: CiStep, end: CallEnd, call: Span) -> tuple[CiKnob, ...]:
    """The retry an end writes itself, where it is written (``call``: on the call)."""
    if end.retry is None:
        return ()
    attempts, span = end.retry
    shape = f"{end.retry_text or end.via[-1]} reruns the failed tests"
    return (retry_knob(step, shape, attempts, span or call),)
