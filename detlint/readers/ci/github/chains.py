"""Retries written by hand in a GitHub job: attempt steps chained by their outcome.

A common pattern runs the tests in a step with ``id: attempt1`` and
``continue-on-error: true``, then runs them again in a step with ``if:
steps.attempt1.outcome == 'failure'``, and so on, the last attempt blocking.
Each ``continue-on-error`` alone reads as "failing tests pass the build", but
the chain fails the job when every attempt fails: it is one retry layer of N
attempts. So the first attempt's knob becomes a retry of the whole chain and
the later attempts' knobs are dropped. When the last attempt does not block
either, the chain is left as written (a gate, as each step says).

A test step whose failure a later step re-raises (``if: steps.tests.outcome ==
'failure'`` then ``exit 1``) lets the job run on and still fails it: its
``continue-on-error`` defers the failure and hides nothing.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from detlint.readers.ci.facts import CiCommand, CiKnob
from detlint.readers.ci.shell.launchers import has_launcher_hint

_OUTCOME_FAILED = re.compile(r"steps\.([A-Za-z_][\w-]*)\.outcome\s*==\s*['\"]failure['\"]")


@dataclass(frozen=True)
class AttemptStep:
    """One step of a job as the chain reads it."""

    step_id: str | None
    condition: str  # its ``if:``, "" when none
    command: CiCommand | None  # the shell command it runs, if any
    knob: CiKnob | None  # its own ``continue-on-error``


def chain_commands(steps: Sequence[AttemptStep]) -> dict[int, CiCommand]:
    """Commands to put in place of the steps' own (by index) for each attempt chain."""
    replaced: dict[int, CiCommand] = {}
    for first, step in enumerate(steps):
        if first in replaced or not _attempt(step) or step.step_id is None:
            continue
        chain = [first]
        current = step.step_id
        for later in range(first + 1, len(steps)):
            candidate = steps[later]
            if current in _OUTCOME_FAILED.findall(candidate.condition) and _runs_tests(candidate):
                chain.append(later)
                if not _attempt(candidate) or candidate.step_id is None:
                    break
                current = candidate.step_id
        last = steps[chain[-1]]
        if len(chain) < 2 or _attempt(last):
            continue  # no rerun, or every attempt is soft: the knobs say what happens
        replaced.update(_as_retry([steps[index] for index in chain], chain))
    for index, step in enumerate(steps):
        knob = step.knob
        if (
            index not in replaced
            and knob is not None
            and knob.covers_tests is not False
            and step.command is not None
            and step.step_id is not None
        ):
            deferred = _fails_later(step.step_id, steps[index + 1 :])
            if deferred is not None:
                replaced[index] = _deferred(step, deferred)
    return replaced


# A command that fails the step whatever happened: `exit 1`, `false`.
_FAILS = re.compile(r"(?m)^[ \t]*(?:exit[ \t]+[1-9]\d*|false)[ \t]*(?:[;#].*)?$")


def _fails_later(step_id: str, later: Sequence[AttemptStep]) -> AttemptStep | None:
    """A later step that runs when ``step_id`` failed and then fails the job (peft's
    "Check for test failures": ``if: steps.core_tests.outcome == 'failure'`` then
    ``exit 1``): the failure is deferred, not hidden."""
    for candidate in later:
        command = candidate.command
        if (
            step_id in _OUTCOME_FAILED.findall(candidate.condition)
            and command is not None
            and _FAILS.search(command.text) is not None
            and not command.knobs
        ):
            return candidate
    return None


def _deferred(step: AttemptStep, check: AttemptStep) -> CiCommand:
    """``step``'s command with its ``continue-on-error`` kept in the inventory as one
    that does not let a test failure pass: ``check`` fails the job later."""
    assert step.command is not None
    assert step.knob is not None
    where = f"line {check.command.span.line}" if check.command is not None else "later"
    kept = dataclasses.replace(
        step.knob,
        covers_tests=False,
        note=f"a later step ({where}) fails the job when this one failed: deferred, not hidden",
    )
    return _with_knob(step.command, step.knob, kept)


def _attempt(step: AttemptStep) -> bool:
    return step.knob is not None and step.knob.covers_tests is True and _runs_tests(step)


def _runs_tests(step: AttemptStep) -> bool:
    return step.command is not None and has_launcher_hint(step.command.text)


def _as_retry(chain: list[AttemptStep], indexes: list[int]) -> dict[int, CiCommand]:
    attempts = len(chain)
    first = chain[0]
    assert first.command is not None
    assert first.knob is not None
    retry = dataclasses.replace(
        first.knob,
        kind="retry-action",
        attempts=attempts,
        note=f"attempt 1 of {attempts}: later steps rerun the tests when it fails",
    )
    out = {indexes[0]: _with_knob(first.command, first.knob, retry)}
    for index, step in zip(indexes[1:], chain[1:], strict=True):
        if step.command is not None and step.knob is not None:
            out[index] = _with_knob(step.command, step.knob, None)
    return out


def _with_knob(command: CiCommand, old: CiKnob, new: CiKnob | None) -> CiCommand:
    """``command`` with its knob ``old`` replaced by ``new`` (dropped when None)."""
    knobs = [new if knob is old else knob for knob in command.knobs]
    return dataclasses.replace(command, knobs=tuple(k for k in knobs if k is not None))
