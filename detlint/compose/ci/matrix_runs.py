"""The runs of a command its job's matrix entries read otherwise, one set per reading.

A ``run:`` written with ``${{ matrix.tox_env }}`` is read once per distinct text
(``Reading``, ``readers/ci/github/matrix_readings.py``). Each reading's runs are
placed in the command as written (the filled-in values change the columns of its
first line), gated only by the knobs that act in its entries (a ``continue-on-error``
of other entries does not gate them), and say which entries run them. A run every
reading gives alike (``pytest tests --junitxml=report-${{ matrix.python }}.xml``
runs the same tests in each entry) is one run, in every entry, without a condition.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from detlint.compose.ci.test_run import TestRun
from detlint.readers.ci.facts import CiCommand, CiKnob, Reading, ScriptKey
from detlint.readers.ci.shell.commands import CommandFacts, PytestRun, TestCall

_Placed = TypeVar("_Placed", PytestRun, TestCall)
_Shifts = tuple[tuple[int, int, int, int], ...]  # ``Reading.shifts``


class ReadingFacts:
    """Each reading's text read once (``read`` reads a script), placed as written."""

    def __init__(self, read: Callable[[ScriptKey], CommandFacts]) -> None:
        self.read = read
        self._placed: dict[tuple[ScriptKey, _Shifts], CommandFacts] = {}

    def facts(self, command: CiCommand, reading: Reading) -> CommandFacts:
        """``reading``'s text as read, its runs and calls placed in ``command``."""
        key = (reading.text, command.errexit, command.pipefail)
        if not reading.shifts:
            return self.read(key)
        found = self._placed.get((key, reading.shifts))
        if found is None:
            facts = self.read(key)
            runs = tuple(_unshifted(run, reading) for run in facts.runs)
            calls = tuple(_unshifted(call, reading) for call in facts.calls)
            found = self._placed[(key, reading.shifts)] = dataclasses.replace(
                facts, runs=runs, calls=calls
            )
        return found

    def each(self, command: CiCommand) -> list[tuple[CiCommand, CommandFacts, Reading]]:
        """Each reading of ``command``: the command with the reading's variables, what
        its text holds (placed in ``command``), and the reading."""
        return [
            (
                dataclasses.replace(command, env=(*command.env, *reading.env)),
                self.facts(command, reading),
                reading,
            )
            for reading in command.readings
        ]


def in_entries(knobs: tuple[CiKnob, ...], entries: frozenset[int]) -> tuple[CiKnob, ...]:
    """The knobs that act in some of ``entries``."""
    return tuple(knob for knob in knobs if knob.entries is None or knob.entries & entries)


def collapsed(per_reading: Sequence[list[TestRun]]) -> list[TestRun]:
    """The runs of every reading of one command, a run that each reading gives alike
    kept once, without the readings' condition."""
    if len(per_reading) < 2:
        return [run for runs in per_reading for run in runs]
    holders: dict[Hashable, set[int]] = {}
    for index, runs in enumerate(per_reading):
        for run in runs:
            holders.setdefault(_alike(run), set()).add(index)
    everywhere = {key for key, indexes in holders.items() if len(indexes) == len(per_reading)}
    found: list[TestRun] = []
    kept: set[Hashable] = set()
    for runs in per_reading:
        for run in runs:
            key = _alike(run)
            if key not in everywhere:
                found.append(run)
            elif key not in kept:
                kept.add(key)
                found.append(dataclasses.replace(run, reading=None))
    return found


def _alike(run: TestRun) -> Hashable:
    """What a run does to its tests, whatever else its command line says (a report's
    file name)."""
    inner = run.run
    return (
        run.span,
        run.directory,
        run.test_files,
        run.nodes,
        run.knobs,
        run.env,
        run.options,
        run.selected,
        inner.launcher,
        inner.masked,
        inner.retry_attempts,
        inner.keyword,
        inner.markexpr,
        inner.disabled_plugins,
        inner.plugins,
        inner.count,
    )


def _unshifted(found: _Placed, reading: Reading) -> _Placed:
    """A run or call read from ``reading``'s text, its columns on the first line those
    of the command as written."""
    if found.line != 0 and found.end_line != 0:
        return found
    column = reading.written_column(found.column) if found.line == 0 else found.column
    end = found.end_column
    if found.end_line == 0:
        end = reading.written_column(end, end=True)
    return dataclasses.replace(found, column=column, end_column=end)
