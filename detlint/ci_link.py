"""Linking CI to tests: which tests each pipeline step runs, and their composed policy.

A soft fail or a job retry is only as costly as the tests behind it, so every
pytest invocation in a step is resolved to the test files it runs: its targets
against the step's working directory and the repository layout, a bare
``pytest`` against the configured ``testpaths``. Each test then gets one policy
per step that runs it, composed in the order things happen: its trial loop
(with any trial count the step's environment overrides), the marker or config
reruns (the command line's ``--reruns`` standing in for the config's), the job
retries, and finally the gate: the test's own xfail/skip, else the step's soft
fail, ``continue-on-error``, ``allow_failure`` or a masked exit status. A step
that hands pytest to a script, to ``tox -e ENV`` or to ``make TARGET`` has the
runs written in that file (``ci_pass.follow``), located there.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from detlint.ci_options import RunOptions, run_options, with_options
from detlint.ci_pass.facts import (
    CiCommand,
    CiKnob,
    CiStep,
    EnvSetting,
    PipelineFacts,
    ScriptKey,
    script_groups,
    script_key,
)
from detlint.ci_pass.follow import Followed, Follower, runs_tox_commands
from detlint.ci_pass.shell import CommandFacts, PytestRun, read_command
from detlint.ci_pass.targets import TestFiles, join
from detlint.dependencies import PluginEvidence
from detlint.link import TestGate, link_test
from detlint.model import (
    ALLOW_FAILURE,
    CONTINUE_ON_ERROR,
    MASKED_EXIT,
    SOFT_FAIL,
    Gate,
    JobRetries,
    Policy,
)
from detlint.pytest_config import PytestConfig
from detlint.python_pass.facts import NO_TRIALS, TestFunction, TrialCount
from detlint.span import Span

GATE_OF_KNOB: dict[str, Gate] = {
    "soft-fail": SOFT_FAIL,
    "continue-on-error": CONTINUE_ON_ERROR,
    "allow-failure": ALLOW_FAILURE,
}
RETRY_KINDS = ("job-retry", "retry-action")


@dataclass(frozen=True)
class TestRun:
    """One pytest invocation in a CI step, resolved against the repository."""

    step: CiStep
    command: CiCommand
    run: PytestRun
    span: Span  # where the invocation is written in the pipeline file
    directory: str  # repository-relative directory pytest starts in ("" for the root)
    test_files: tuple[str, ...]  # the test files it runs, as displayed
    knobs: tuple[CiKnob, ...]  # step and command knobs that act on a test failure
    env: tuple[EnvSetting, ...]  # what the step sets, closest last
    options: RunOptions  # rerun options from the command line and PYTEST_ADDOPTS

    @property
    def changes_policy(self) -> bool:
        """Whether the run changes how its tests report, beyond a trial override."""
        return bool(self.knobs) or self.options.span is not None or self.run.masked is not None

    @property
    def selection(self) -> str:
        """``-k``/``-m`` as written, or empty: a selected run may not reach every test."""
        parts = [f"-k {self.run.keyword!r}"] if self.run.keyword else []
        parts += [f"-m {self.run.markexpr!r}"] if self.run.markexpr else []
        return " ".join(parts)


@dataclass(frozen=True)
class CiGate:
    """A test (or every test of a file without knobs) as one CI step runs it.

    The parts are kept apart so each rule can quote the cost of its own knob:
    ``inside`` is the policy within pytest as this run configures it (command
    line flags included), ``own`` the test's policy under its own config alone,
    ``retries`` the job-level retries and ``ci_gate`` the knob that stops a
    failure from blocking (``masked`` when the command hides the exit status).
    """

    run: TestRun
    label: str
    base: TestGate  # the test inside pytest, as this run configures it
    own: Policy  # the test's policy without this run's command line and trial override
    retries: tuple[tuple[CiKnob, JobRetries], ...]
    ci_gate: CiKnob | None
    masked: bool
    override: EnvSetting | None  # a step env var that changed the trial count
    has_facts: bool  # False: a test file whose tests hold no knob of their own

    @property
    def inside(self) -> Policy:
        return self.base.policy

    @property
    def policy(self) -> Policy:
        """Everything composed: pytest, then job retries, then the gate."""
        inside = self.base.policy
        gate = inside.gate
        if gate.blocks and self.ci_gate is not None:
            gate = GATE_OF_KNOB[self.ci_gate.kind]
        elif gate.blocks and self.masked:
            gate = MASKED_EXIT
        layers = (*inside.layers, *(layer for _, layer in self.retries))
        return Policy(trials=inside.trials, layers=layers, gate=gate)

    @property
    def ci_knobs(self) -> tuple[CiKnob, ...]:
        """The CI knobs that shaped ``policy``."""
        knobs = [knob for knob, _ in self.retries]
        return (*knobs, self.ci_gate) if self.ci_gate is not None else tuple(knobs)


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
        evidence: PluginEvidence,
        relative: Callable[[str], str] = lambda path: path,
        display: Callable[[str], str] = lambda path: path,
        read_file: Callable[[str], str | None] | None = None,
    ) -> None:
        self.targets = TestFiles(files, config_for, relative, display)
        self.config_for = config_for
        self.evidence = evidence
        # Scripts, tox.ini and Makefiles that commands call (none without a reader).
        self.follower = Follower(read_file or (lambda path: None), self.targets.display)
        # Large CI setups run thousands of steps over the same tests: every lookup
        # below is memoised, so linking costs per distinct target, config and test.
        self._linked: dict[tuple[int, int], tuple[TestFunction, PytestConfig, TestGate]] = {}
        self._configs: dict[tuple[int, RunOptions], PytestConfig] = {}
        self._commands: dict[ScriptKey, CommandFacts] = {}
        self._splits: dict[tuple[int, int], tuple[object, object, list[str], list[TestFunction]]]
        self._splits = {}

    def _link(self, test: TestFunction, config: PytestConfig) -> TestGate:
        # Keyed by identity, since hashing a test's facts on every lookup costs more than
        # linking; the entry keeps both objects alive so that an id is never reused.
        key = (id(test), id(config))
        entry = self._linked.get(key)
        if entry is None:
            entry = self._linked[key] = (test, config, link_test(test, config, self.evidence))
        return entry[2]

    def take_shell(self, pipelines: Sequence[PipelineFacts]) -> None:
        """Take the shell facts the pipelines were read with (in the worker processes
        that read them); a script without them is read when a step needs it."""
        for pipeline in pipelines:
            self._commands.update(pipeline.shell)

    def _read(self, key: ScriptKey) -> CommandFacts:
        found = self._commands.get(key)
        if found is None:
            text, errexit, pipefail = key
            found = self._commands[key] = read_command(text, errexit=errexit, pipefail=pipefail)
        return found

    def runs(self, step: CiStep, base: str = "") -> list[TestRun]:
        """Every pytest invocation of ``step``; ``base`` is where its checkout starts."""
        found: list[TestRun] = []
        # `echo NAME=value >> $GITHUB_ENV` sets NAME for the job's later steps.
        carried: tuple[EnvSetting, ...] = ()
        for group in script_groups(step):
            first = group[0]
            starts = list(
                itertools.accumulate((c.text.count("\n") + 1 for c in group[:-1]), initial=0)
            )
            facts = self._read(script_key(group))
            exports = tuple(
                EnvSetting(e.name, e.value, group[bisect.bisect_right(starts, e.line) - 1].span)
                for e in facts.exports
                if e.via != "github-env"
            )
            for run in facts.runs:
                index = bisect.bisect_right(starts, run.line) - 1
                command = group[index]
                local = run
                if starts[index]:
                    local = dataclasses.replace(
                        run, line=run.line - starts[index], end_line=run.end_line - starts[index]
                    )
                found += self._launched(step, command, local, base, (*carried, *exports))
            carried += tuple(
                EnvSetting(e.name, e.value, first.span)
                for e in facts.exports
                if e.via == "github-env"
            )
            for command in group:
                if ".sh" not in command.text and "make" not in command.text:
                    continue  # calls no script and no make target
                working = self._working(step, command, base)
                called = self.follower.scripts(command.text, working)
                called += self.follower.make(command.text, working)
                found += [
                    self._run(step, command, item.run, base, (*carried, *exports), item)
                    for item in called
                ]
        return found

    def _working(self, step: CiStep, command: CiCommand, base: str) -> str:
        return self.targets.locate(base, command.working_dir or step.working_dir or "")

    def _launched(
        self,
        step: CiStep,
        command: CiCommand,
        run: PytestRun,
        base: str,
        exports: tuple[EnvSetting, ...],
    ) -> list[TestRun]:
        """A run as the step writes it, or, for ``tox -e ENV``, the runs of the
        environment's commands in tox.ini (when a tox.ini configures them)."""
        if not runs_tox_commands(run.launcher):
            return [self._run(step, command, run, base, exports)]
        directory = join(self._working(step, command, base), run.cwd or "")
        at = command.span_of(run)
        env = self._env(step, command, run, exports, command.span)
        called = self.follower.tox(run, at, directory, base, env)
        if called is None:
            return [self._run(step, command, run, base, exports)]
        return [self._run(step, command, item.run, base, exports, item) for item in called]

    @staticmethod
    def _env(
        step: CiStep,
        command: CiCommand,
        run: PytestRun,
        exports: tuple[EnvSetting, ...],
        at: Span,
    ) -> tuple[EnvSetting, ...]:
        """What the run sees, closest last: the step's, the command's, exported, inline."""
        inline = tuple(EnvSetting(name, value, at) for name, value in run.env)
        return (*step.env, *command.env, *exports, *inline)

    def _run(
        self,
        step: CiStep,
        command: CiCommand,
        run: PytestRun,
        base: str,
        exports: tuple[EnvSetting, ...],
        called: Followed | None = None,
    ) -> TestRun:
        start = self._working(step, command, base)
        span = command.span_of(run)
        env = self._env(step, command, run, exports, command.span)
        sources: tuple[tuple[PytestRun, Span], ...] = ((run, span),)
        if called is not None:
            start = called.directory if called.directory is not None else start
            span = called.span
            if called.env is not None:
                inline = tuple(EnvSetting(name, value, span) for name, value in run.env)
                env = (*called.env, *inline)
            sources = called.sources or ((run, span),)
        directory = join(start, run.cwd or "")
        return TestRun(
            step=step,
            command=command,
            run=run,
            span=span,
            directory=directory,
            test_files=self.targets.reached(directory, run.targets),
            knobs=_acting_knobs(step, command),
            env=env,
            options=run_options(sources, env),
        )

    def gates(self, run: TestRun, tests: dict[str, list[TestFunction]]) -> list[CiGate]:
        """The tests whose policy this run changes: one gate per test with facts, and one
        for all its test files without (no knob, no trial loop: one policy fits them all).

        A run without a CI knob, a rerun option or a masked exit status changes only the
        tests whose trial variable it sets; the others run as their own config says.
        """
        found: list[CiGate] = []
        neutral = not run.changes_policy
        plain_files, with_facts = self._split(run.test_files, tests)
        if neutral and not any(test.trials.env is not None for test in with_facts):
            return found  # nothing this run does can change how its tests report
        own_config = self.config_for(run.directory)
        config = self._with_options(own_config, run.options)
        if plain_files and not neutral:
            first = plain_files[0]
            plain = TestFunction(
                first, "<every test>", None, Span.file(first), None, (), (), NO_TRIALS
            )
            if len(plain_files) == 1:
                label = f"{first} (tests without knobs)"
            else:
                label = f"the tests of {len(plain_files)} test files without knobs"
            found.append(self._gate(run, plain, config, own_config, label, False))
        variables = {setting.name for setting in run.env}
        for test in with_facts:
            if neutral and test.trials.env not in variables:
                continue
            found.append(self._gate(run, test, config, own_config, test.nodeid, True))
        return found

    def _split(
        self, test_files: tuple[str, ...], tests: dict[str, list[TestFunction]]
    ) -> tuple[list[str], list[TestFunction]]:
        """A run's test files without facts, and the tests of the others, in file order.
        Runs share their ``test_files`` tuples (one per distinct target) and one linking
        hands every run the same complete ``tests``, so this is worked out once per
        tuple; the entry keeps both objects alive so that their ids stay theirs."""
        key = (id(test_files), id(tests))
        entry = self._splits.get(key)
        if entry is None:
            plain = [path for path in test_files if path not in tests]
            with_facts = [test for path in test_files for test in tests.get(path, ())]
            entry = self._splits[key] = (test_files, tests, plain, with_facts)
        return entry[2], entry[3]

    def _with_options(self, config: PytestConfig, options: RunOptions) -> PytestConfig:
        key = (id(config), options)
        found = self._configs.get(key)
        if found is None:
            found = self._configs[key] = with_options(config, options)
        return found

    def _gate(
        self,
        run: TestRun,
        test: TestFunction,
        config: PytestConfig,
        own_config: PytestConfig,
        label: str,
        has_facts: bool,
    ) -> CiGate:
        own = self._link(test, own_config).policy
        override = _trial_override(test.trials, run.env)
        if override is not None:
            count = int(override.value)
            trials = TrialCount(
                count, test.trials.span, test.trials.env, f"{override.name}={count}"
            )
            test = dataclasses.replace(test, trials=trials)
        base = self._link(test, config)
        retries = tuple(
            (knob, JobRetries((knob.attempts or 1) - 1, knob.system))
            for knob in run.knobs
            if knob.kind in RETRY_KINDS and knob.covers_tests and (knob.attempts or 0) > 1
        )
        ci_gate = next((k for k in run.knobs if k.kind in GATE_OF_KNOB and k.covers_tests), None)
        return CiGate(
            run, label, base, own, retries, ci_gate, run.run.masked is not None, override, has_facts
        )


def _trial_override(trials: TrialCount, env: Iterable[EnvSetting]) -> EnvSetting | None:
    """The last setting of the test's trial variable to a literal integer, if any."""
    if trials.env is None:
        return None
    found = None
    for setting in env:
        if setting.name == trials.env and setting.value.strip().isdigit():
            found = setting
    return found


__all__ = ["GATE_OF_KNOB", "CiGate", "Linker", "TestRun"]
