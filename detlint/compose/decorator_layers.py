"""The layer a retry decorator stands for, as its reading says.

A decorator that calls a failing test N times in all is N - 1 reruns, credited to it
(``Reruns``). One read as a threshold of passes behaves as the flaky package's
``max_runs=N, min_passes=K`` and gets flaky's layer, credited to the decorator; one
that wants every one of its N runs to pass is a repeat (``Repeat``): it raises the
chance a violation shows, and hides none.
"""

from __future__ import annotations

from detlint.model import FlakyRuns, Layer, Repeat, Reruns
from detlint.readers.python.facts import Mark


def decorator_label(mark: Mark) -> str:
    """What a retry decorator's reruns are credited to: the library (``tenacity``), or
    the repository's own decorator and where it is defined."""
    if mark.retry is None:
        return mark.name.split(".")[0]
    definition = mark.retry.definition
    return f"{mark.name} at {definition.path}:{definition.line}"


def decorator_layer(mark: Mark, attempts: int) -> Layer:
    """The layer of a decorator that runs a failing test ``attempts`` times (>= 1)."""
    passes = mark.retry.min_passes if mark.retry is not None else 1
    label = decorator_label(mark)
    if mark.retry is not None and mark.retry.repeats:
        return Repeat(attempts, label)
    if passes > 1:
        return FlakyRuns(attempts, passes, label)
    return Reruns(attempts - 1, label)


def decorator_knob(mark: Mark, attempts: int | None) -> str:
    """How the audit lists the decorator: "flaky (3 attempts)", "repeat (10 runs, every
    one must pass)", "repeat_with_success_at_least (up to 10 runs, 3 passes needed)"."""
    passes = mark.retry.min_passes if mark.retry is not None else 1
    if not attempts:
        return mark.name
    if mark.retry is not None and mark.retry.repeats:
        return f"{mark.name} ({attempts} runs, every one must pass)"
    if passes > 1:
        return f"{mark.name} (up to {attempts} runs, {passes} passes needed)"
    return f"{mark.name} ({attempts} attempts)"
