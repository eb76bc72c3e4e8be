"""The commands a CI knob acts on.

A GitHub step's ``continue-on-error`` acts on that step's command alone, a job's
knob on every command of the job. Which of those commands run tests (pytest runs,
other test runners, calls named like one that detlint cannot see into) is decided
where the commands are read and followed (``readers/ci/commands/calls.py``); this
names what a knob's commands are, for a reader to check.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detlint.readers.ci.facts import CiCommand, CiKnob, CiStep


def scope(knob: CiKnob, steps: Sequence[CiStep]) -> list[CiCommand]:
    """The commands a knob acts on: the commands that carry it (a GitHub step's
    ``continue-on-error``), else every command of its steps (a job's)."""
    carrying = [command for step in steps for command in step.commands if knob in command.knobs]
    return carrying or [command for step in steps for command in step.commands]
