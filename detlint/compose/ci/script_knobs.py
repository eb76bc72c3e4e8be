"""The knobs a step's scripts write around commands that run no tests, as CI knobs.

The shell reader finds them (``readers/ci/shell/quiet_knobs.py``); here each is
placed in the pipeline file, at the command it sits in, and made a ``CiKnob`` whose
``acts_on`` names the command, so the census can list it with its reason ("runs no
tests") beside the knobs that do hide failures. No rule judges them: they act on
nothing a test outcome flows through.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Iterable

from detlint.base.paths import join
from detlint.base.span import Span
from detlint.readers.ci.commands.calls import located
from detlint.readers.ci.commands.follow import Follower
from detlint.readers.ci.facts import (
    CiKnob,
    CiStep,
    ScriptKey,
    System,
    command_starts,
    script_groups,
    script_key,
)
from detlint.readers.ci.shell.commands import CommandFacts, TestCall
from detlint.readers.ci.shell.quiet_knobs import QuietKnob


def followed_knobs(step: CiStep, quiet: Iterable[tuple[Span, QuietKnob]]) -> list[CiKnob]:
    """The quiet knobs of the files a step's calls follow (scripts, make recipes), placed
    in those files."""
    return [_knob(step, knob, span) for span, knob in quiet]


def idle_call_knob(step: CiStep, call: TestCall, span: Span) -> CiKnob:
    """The mask or retry written around a call that reaches no tests (``upload.sh ||
    :``, a loop of ``upload.sh && break``): the call's own verdict, as a quiet knob."""
    name = call.callee.path or call.callee.name or "..."
    if call.masked:
        knob = QuietKnob("masked-status", 0, 0, 0, 0, call.masked.strip("`"), name)
    else:
        shape = call.retry_shape or "retry"
        knob = QuietKnob("shell-retry", 0, 0, 0, 0, shape, name, call.retry_attempts)
    note = "a call detlint follows to no test run, not named like a test runner"
    return dataclasses.replace(_knob(step, knob, span), note=note)


def _knob(step: CiStep, knob: QuietKnob, span: Span) -> CiKnob:
    return _knob_of(step.system, knob, span)


def _knob_of(system: System, knob: QuietKnob, span: Span) -> CiKnob:
    return CiKnob(
        kind=knob.kind,
        system=system,
        key=knob.construct,
        span=span,
        value=knob.construct,
        covers_tests=False,
        attempts=knob.attempts,
        acts_on=knob.command,
    )


# The repository hooks a Buildkite agent runs around every job of the pipeline.
_BUILDKITE_HOOKS = (
    "environment", "pre-checkout", "post-checkout", "pre-command", "post-command",
    "pre-artifact", "post-artifact", "pre-exit",
)  # fmt: skip


def hook_knobs(follower: Follower, base: str) -> list[CiKnob]:
    """The quiet knobs of a Buildkite repository's agent hooks (``.buildkite/hooks/``),
    which run around every job: a ``|| true`` in ``pre-command`` is in every step."""
    found: list[CiKnob] = []
    for name in _BUILDKITE_HOOKS:
        path = join(base, f".buildkite/hooks/{name}")
        facts = follower.script(path)
        for knob in facts.quiet if facts is not None else ():
            where = (knob.line, knob.column, knob.end_line, knob.end_column)
            at = located((follower.display(path), 0, 0), *where)
            found.append(dataclasses.replace(_knob_of("buildkite", knob, at), note="agent hook"))
    return found


def script_knobs(step: CiStep, read: Callable[[ScriptKey], CommandFacts]) -> list[CiKnob]:
    """The quiet knobs of ``step``'s scripts, placed where each is written."""
    found: list[CiKnob] = []
    for group in script_groups(step):
        facts = read(script_key(group))
        if not facts.quiet:
            continue
        starts = command_starts(group)
        for knob in facts.quiet:
            index = bisect.bisect_right(starts, knob.line) - 1
            moved = starts[index]
            if moved:
                knob = dataclasses.replace(
                    knob, line=knob.line - moved, end_line=knob.end_line - moved
                )
            found.append(_knob(step, knob, group[index].span_of(knob)))
    return found
