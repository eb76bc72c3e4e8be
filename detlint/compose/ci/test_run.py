"""One pytest invocation in a CI step, resolved against the repository.

``runs.py`` finds them; ``gates.py`` composes what each does to the tests it runs;
the CI rules and the audit read them. A value of its own, so that each of those
modules depends on it and none on another.
"""

from __future__ import annotations

from dataclasses import dataclass

from detlint.base.span import Span
from detlint.compose.ci.run_options import RunOptions
from detlint.readers.ci.commands.call_ends import CallEnd
from detlint.readers.ci.facts import CiCommand, CiKnob, CiStep, EnvSetting, Reading
from detlint.readers.ci.shell.commands import PytestRun


@dataclass(frozen=True, slots=True)
class TestRun:
    """One pytest invocation in a CI step, resolved against the repository (with slots:
    a large setup has thousands, and a slotted object is built in one allocation)."""

    step: CiStep
    command: CiCommand
    run: PytestRun
    span: Span  # where the invocation is written in the pipeline file
    directory: str  # repository-relative directory pytest starts in ("" for the root)
    test_files: tuple[str, ...]  # the test files it runs, as displayed
    knobs: tuple[CiKnob, ...]  # step and command knobs that act on a test failure
    env: tuple[EnvSetting, ...]  # what the step sets, closest last
    options: RunOptions  # rerun options from the command line and PYTEST_ADDOPTS
    # Node ids the targets select (``file.py::test_a``) as (file as displayed, the id
    # after the file); a file not named here runs every test it collects.
    nodes: tuple[tuple[str, str], ...] = ()
    # The matrix entries that run it, when its command reads otherwise in others.
    reading: Reading | None = None
    # Where it runs when the step may not select it (a tox environment or nox session
    # the step's selection, known only at run time, may name).
    selected: str | None = None

    @property
    def condition(self) -> str | None:
        """Where the step runs it, when only sometimes: the matrix entries that do, the
        environment the step may select, or both; None when always."""
        parts = [self.reading.condition if self.reading is not None else None, self.selected]
        return "; ".join(part for part in parts if part) or None

    @property
    def changes_policy(self) -> bool:
        """Whether the run changes how its tests report, beyond a trial override."""
        return (
            bool(self.knobs)
            or self.options.span is not None
            or self.options.changes_markers
            or self.options.ignore_flaky is not None
            or self.run.masked is not None
        )

    @property
    def benchmarks_only(self) -> bool:
        """``--benchmark-only``: pytest-benchmark skips every test without its
        ``benchmark`` fixture, which detlint does not track, so no test is named."""
        return any(option.name == "--benchmark-only" for option in self.run.options)

    @property
    def selection(self) -> str:
        """``-k``/``-m`` as written, or empty: a selected run may not reach every test."""
        parts = [f"-k {self.run.keyword!r}"] if self.run.keyword else []
        parts += [f"-m {self.run.markexpr!r}"] if self.run.markexpr else []
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class OtherRun:
    """Tests a CI step runs that detlint does not link test by test: a test runner
    other than pytest (``python -m unittest``, ``ctest``), or a call it cannot see into
    that is named like one (``end.certain`` is False), with the calls that lead to it.

    A knob on the step gates these tests as it gates a pytest run's, so the CI rules
    report it, with numbers for a single-attempt test.
    """

    step: CiStep
    command: CiCommand
    end: CallEnd
    span: Span  # where the outermost call is written in the pipeline file
    knobs: tuple[CiKnob, ...]  # step and command knobs that act on a test failure

    @property
    def name(self) -> str:
        """The chain of calls as a reader follows it: ``make test → python -m unittest``."""
        return " → ".join(self.end.via)

    @property
    def masked(self) -> str | None:
        return self.end.masked
