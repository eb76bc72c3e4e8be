"""Linking CI to tests: which tests each pipeline step runs.

A soft fail or a job retry is only as costly as the tests behind it, so every
pytest invocation in a step is resolved to the test files it runs: its targets
against the step's working directory and the repository layout, a bare
``pytest`` against the configured ``testpaths``. A step that hands pytest to a
script, to ``tox -e ENV`` or to ``make TARGET`` has the runs written in that
file (``readers/ci/commands/follow.py``), located there. Each test then gets one policy per
step that runs it (``gates.py``).

Large CI setups run thousands of steps, nearly every one distinct, over a few
hundred distinct targets: what a run needs from its directory, its targets or
the script it calls is worked out once per distinct question, and the work
left per run is building the run itself.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import operator
from collections.abc import Callable, Iterable, Sequence

from detlint.base.paths import join
from detlint.base.span import Span
from detlint.compose.ci.gates import GATE_OF_KNOB, RETRY_KINDS, CiGate, Composer
from detlint.compose.ci.matrix_runs import ReadingFacts, collapsed, in_entries
from detlint.compose.ci.run_options import line_options, run_options
from detlint.compose.ci.script_knobs import followed_knobs, idle_call_knob, script_knobs
from detlint.compose.ci.script_retries import call_retry, end_retry, shell_retry
from detlint.compose.ci.targets import TestFiles
from detlint.compose.ci.test_run import OtherRun, TestRun
from detlint.readers.ci.commands.call_ends import CallReach
from detlint.readers.ci.commands.calls import follow_calls
from detlint.readers.ci.commands.follow import Followed, Follower, runs_tox_commands
from detlint.readers.ci.facts import (
    CiCommand,
    CiKnob,
    CiStep,
    EnvSetting,
    PipelineFacts,
    Reading,
    ScriptKey,
    command_starts,
    script_groups,
    script_key,
)
from detlint.readers.ci.shell.commands import CommandFacts, PytestRun, TestCall, read_command
from detlint.readers.dependencies.declarations import PluginEvidence
from detlint.readers.project.pytest_config import PytestConfig
from detlint.readers.python.facts import TestFunction

_TEXT = operator.attrgetter("text")
_IGNORE_OPTIONS = frozenset({"--ignore", "--ignore-glob"})


def _acting_knobs(step: CiStep, command: CiCommand) -> tuple[CiKnob, ...]:
    return tuple(
        knob for knob in (*step.knobs, *command.knobs) if knob.kind in (*GATE_OF_KNOB, *RETRY_KINDS)
    )


class Linker:
    """Resolves runs to test files; ``files`` are the repository's files, relative, POSIX,
    and ``read_file`` gives the text of one (a script, tox.ini or Makefile a step calls)."""

    def __init__(
        self,
        files: Sequence[str],
        config_for: Callable[[str], PytestConfig],
        evidence_for: Callable[[str], PluginEvidence],
        relative: Callable[[str], str] = lambda path: path,
        display: Callable[[str], str] = lambda path: path,
        read_file: Callable[[str], str | None] | None = None,
    ) -> None:
        self.targets = TestFiles(files, config_for, relative, display)
        self.config_for = config_for
        self.evidence_for = evidence_for
        # Scripts, tox.ini and Makefiles that commands call (none without a reader).
        self.follower = Follower(read_file or (lambda path: None), self.targets.display)
        self.composer = Composer(config_for, evidence_for, relative)
        self._commands: dict[ScriptKey, CommandFacts] = {}
        # Keyed by a group's command texts and shell options (see ``_placed``).
        self._placed_runs: dict[
            tuple[tuple[str, ...], bool, bool], tuple[list[int], list[tuple[int, PytestRun]]]
        ] = {}
        self._workings: dict[tuple[str, str], str] = {}  # (base, as written): located
        self._calls: dict[tuple[TestCall, str], CallReach] = {}  # (call, directory)
        self._reading_facts = ReadingFacts(self.read)
        # Tests the steps run that are not linked test by test (``OtherRun``).
        self.others: list[OtherRun] = []
        self._read_others: set[OtherRun] = set()  # those of matrix readings (``runs``)
        # Knobs of the steps' scripts around no test command, with the step (the census's).
        self.quiet: list[tuple[CiKnob, CiStep]] = []
        # (start, cd, targets, ignored): the directory pytest starts in, the test files reached
        # and the node ids selected in them.
        self._reach: dict[
            tuple[str, str, tuple[str, ...], tuple[str, ...]],
            tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]],
        ] = {}

    def take_shell(self, pipelines: Sequence[PipelineFacts]) -> None:
        """Take the shell facts the pipelines were read with (in the worker processes
        that read them); a script without them is read when a step needs it."""
        for pipeline in pipelines:
            self._commands.update(pipeline.shell)

    def read(self, key: ScriptKey) -> CommandFacts:
        found = self._commands.get(key)
        if found is None:
            text, errexit, pipefail = key
            found = self._commands[key] = read_command(text, errexit=errexit, pipefail=pipefail)
        return found

    def script_knobs(self, step: CiStep) -> list[CiKnob]:
        """The knobs ``step``'s own scripts write around commands that run no tests,
        kept with the step for the census."""
        own = script_knobs(step, self.read)
        self.quiet += [(knob, step) for knob in own]
        return own

    def runs(self, step: CiStep, base: str = "") -> list[TestRun]:
        """Every pytest invocation of ``step``; ``base`` is where its checkout starts. A
        command its job's matrix entries read otherwise (``CiCommand.readings``) is read
        once per reading, each run saying which entries run it."""
        found: list[TestRun] = []
        # `echo NAME=value >> $GITHUB_ENV` sets NAME for the job's later steps.
        carried: tuple[EnvSetting, ...] = ()
        for group in script_groups(step):
            facts = self.read(script_key(group))
            readings = group[0].readings if len(group) == 1 else ()
            if readings:
                each = self._reading_facts.each(group[0])
                found += collapsed(
                    [self._group_runs(step, (c,), f, base, carried, r) for c, f, r in each]
                )
            else:
                found += self._group_runs(step, group, facts, base, carried)
            if facts.exports:
                carried += _github_env(facts, group[0])
        return found

    def _group_runs(
        self,
        step: CiStep,
        group: Sequence[CiCommand],
        facts: CommandFacts,
        base: str,
        carried: tuple[EnvSetting, ...],
        reading: Reading | None = None,
    ) -> list[TestRun]:
        """The runs of one script (``facts`` read from ``group``), and of its calls."""
        found: list[TestRun] = []
        located: Iterable[tuple[CiCommand, PytestRun]]
        if len(group) == 1:  # most groups: everything sits in the one command
            places: Sequence[int] = (0,) * len(facts.exports)
            located = zip(itertools.repeat(group[0]), facts.runs)
        else:
            places, placed = self._placed(group, facts)
            located = [(group[index], run) for index, run in placed]
        exports: tuple[EnvSetting, ...] = ()
        if facts.exports:
            exports = tuple(
                EnvSetting(e.name, e.value, group[index].span)
                for e, index in zip(facts.exports, places, strict=True)
                if e.via != "github-env"
            )
        seen = (*carried, *exports) if exports else carried
        for command, run in located:
            if "tox" in run.launcher and runs_tox_commands(run.launcher):
                found += self._tox(step, command, run, base, seen, reading)
            else:
                found.append(self._run(step, command, run, base, seen, reading=reading))
        if facts.calls:
            seen = (*carried, *_github_env(facts, group[0]), *exports)
            found += self._called_runs(step, group, facts, base, seen, reading)
        return found

    def _called_runs(
        self,
        step: CiStep,
        group: Sequence[CiCommand],
        facts: CommandFacts,
        base: str,
        seen: tuple[EnvSetting, ...],
        reading: Reading | None = None,
    ) -> list[TestRun]:
        """The pytest runs the calls of a group reach (through scripts, make, tasks),
        keeping the ends that are not pytest runs in ``others``."""
        found: list[TestRun] = []
        calls = (
            zip(itertools.repeat(group[0]), facts.calls)
            if len(group) == 1
            else self._placed_calls(group, facts)
        )
        for command, call in calls:
            reach = self._reach_of(call, self._working(step, command, base))
            if reach.quiet:
                self.quiet += [(knob, step) for knob in followed_knobs(step, reach.quiet)]
            span = command.span_of(call)
            # `hatch run test || hatch run test --lf`: a retry of what the call runs.
            extra = (call_retry(step, call, span),) if call.retry_attempts else ()
            found += [
                self._run(step, command, c.run, base, seen, c, extra, reading) for c in reach.runs
            ]
            if reach.ends:
                knobs = _acting_knobs(step, command) if step.knobs or command.knobs else ()
                knobs = (*knobs, *extra)
                made = [
                    OtherRun(step, command, end, span, (*knobs, *end_retry(step, end, span)))
                    for end in reach.ends
                ]
                if reading is not None:  # each reading that reaches the same end: one
                    made = [other for other in made if other not in self._read_others]
                    self._read_others.update(made)
                self.others += made
            elif not reach.runs and (call.masked or call.retry_attempts):
                # `upload.sh || :`: a call that runs no tests, its knob for the census
                self.quiet.append((idle_call_knob(step, call, span), step))
        return found

    def _placed(
        self, group: Sequence[CiCommand], facts: CommandFacts
    ) -> tuple[list[int], list[tuple[int, PytestRun]]]:
        """Which command of ``group`` each export of its script sits in, and each run
        with the command it sits in, its line counted from that command's first line.
        Steps that run the same commands share the answer (and the runs). The key is
        the commands, not the script: ``a\\nb`` then ``c`` is the script of ``a`` then
        ``b\\nc``, but its runs sit in other commands."""
        key = (tuple(map(_TEXT, group)), group[0].errexit, group[0].pipefail)
        found = self._placed_runs.get(key)
        if found is None:
            starts = command_starts(group)
            places = [bisect.bisect_right(starts, e.line) - 1 for e in facts.exports]
            runs: list[tuple[int, PytestRun]] = []
            for run in facts.runs:
                index = bisect.bisect_right(starts, run.line) - 1
                runs.append((index, _moved(run, starts[index]) if starts[index] else run))
            found = self._placed_runs[key] = (places, runs)
        return found

    def _reach_of(self, call: TestCall, working: str) -> CallReach:
        """What one call reaches, from ``working``: steps repeat the same few calls
        (``make -C services up``) from the same directories."""
        key = (call, working)
        found = self._calls.get(key)
        if found is None:
            found = self._calls[key] = follow_calls(self.follower, (call,), working)
        return found

    def _placed_calls(
        self, group: Sequence[CiCommand], facts: CommandFacts
    ) -> list[tuple[CiCommand, TestCall]]:
        """Each call of a group's script with the command it sits in, its line counted
        from that command's first line."""
        starts = command_starts(group)
        placed = []
        for call in facts.calls:
            index = bisect.bisect_right(starts, call.line) - 1
            if starts[index]:
                moved = starts[index]
                call = dataclasses.replace(
                    call, line=call.line - moved, end_line=call.end_line - moved
                )
            placed.append((group[index], call))
        return placed

    def _working(self, step: CiStep, command: CiCommand, base: str) -> str:
        key = (base, command.working_dir or step.working_dir or "")
        found = self._workings.get(key)
        if found is None:
            found = self._workings[key] = self.targets.locate(*key)
        return found

    def _tox(
        self,
        step: CiStep,
        command: CiCommand,
        run: PytestRun,
        base: str,
        exports: tuple[EnvSetting, ...],
        reading: Reading | None = None,
    ) -> list[TestRun]:
        """For ``tox -e ENV``, the runs of the environment's commands in tox's settings
        (tox.ini, setup.cfg or pyproject.toml), or the run as written when none configure them."""
        directory = join(self._working(step, command, base), run.cwd or "")
        at = command.span_of(run)
        env = _env(step, command, run, exports, command.span)
        called = self.follower.tox(run, at, directory, base, env)
        followed = [(item.run, item) for item in called] if called is not None else [(run, None)]
        return [self._run(step, command, r, base, exports, f, (), reading) for r, f in followed]

    def _run(
        self,
        step: CiStep,
        command: CiCommand,
        run: PytestRun,
        base: str,
        exports: tuple[EnvSetting, ...],
        called: Followed | None = None,
        extra: tuple[CiKnob, ...] = (),
        reading: Reading | None = None,
    ) -> TestRun:
        start = self._working(step, command, base)
        span = command.span_of(run)
        if run.env or command.env or exports:
            env = _env(step, command, run, exports, command.span)
        else:  # most runs: what the step sets, as it sets it
            env = step.env
        if called is None:
            options = line_options(run, span, env)
        else:
            start = called.directory if called.directory is not None else start
            span = called.span
            if called.env is not None:
                inline = tuple(EnvSetting(name, value, span) for name, value in run.env)
                env = (*called.env, *inline)
            options = run_options(called.sources or ((run, span),), env)
        ignored = tuple(
            option.value
            for option in run.options
            if option.name in _IGNORE_OPTIONS and option.value is not None
        )
        key = (start, run.cwd or "", run.targets, ignored)
        reach = self._reach.get(key)
        if reach is None:
            directory = join(start, key[1])
            reach = self._reach[key] = (
                directory,
                self.targets.reached(directory, run.targets, ignored),
                self.targets.nodes(directory, run.targets),
            )
        if (
            options.span is not None
            and not options.fail_on_flaky
            and self.config_for(reach[0]).fail_on_flaky is not None  # in the ini addopts
        ):
            options = dataclasses.replace(options, fail_on_flaky=True)
        knobs = _acting_knobs(step, command) if step.knobs or command.knobs else ()
        if reading is not None and reading.entries is not None and knobs:
            knobs = in_entries(knobs, reading.entries)
        if run.retry_attempts is not None:
            knobs = (*knobs, shell_retry(step, run, span))
        if extra:
            knobs = (*knobs, *extra)
        selected = called.condition if called is not None else None
        return TestRun(
            step, command, run, span, reach[0], reach[1], knobs, env, options, reach[2],
            reading, selected,
        )  # fmt: skip

    def gates(self, run: TestRun, tests: dict[str, list[TestFunction]]) -> list[CiGate]:
        """The tests whose policy this run changes (``Composer.gates``)."""
        return self.composer.gates(run, tests)


def _github_env(facts: CommandFacts, first: CiCommand) -> tuple[EnvSetting, ...]:
    """What a script's ``echo NAME=value >> $GITHUB_ENV`` sets for the job's later steps."""
    return tuple(
        EnvSetting(e.name, e.value, first.span) for e in facts.exports if e.via == "github-env"
    )


def _env(
    step: CiStep,
    command: CiCommand,
    run: PytestRun,
    exports: tuple[EnvSetting, ...],
    at: Span,
) -> tuple[EnvSetting, ...]:
    """What the run sees, closest last: the step's, the command's, exported, inline
    (the step's own tuple when only the step sets anything, as in most runs)."""
    if not run.env:
        if not command.env and not exports:
            return step.env
        return (*step.env, *command.env, *exports)
    inline = tuple(EnvSetting(name, value, at) for name, value in run.env)
    return (*step.env, *command.env, *exports, *inline)


def _moved(run: PytestRun, lines: int) -> PytestRun:
    """``run`` with its lines counted ``lines`` later: a copy of its fields with two of
    them changed. ``dataclasses.replace`` passes every field (some 40) through
    ``__init__`` again, which costs more than linking the run."""
    try:
        fields = vars(run)
    except TypeError:  # a class with slots has no field dict to copy
        return dataclasses.replace(run, line=run.line - lines, end_line=run.end_line - lines)
    moved = object.__new__(type(run))
    vars(moved).update(fields, line=run.line - lines, end_line=run.end_line - lines)
    return moved


__all__ = ["GATE_OF_KNOB", "CiGate", "Linker", "TestRun"]
