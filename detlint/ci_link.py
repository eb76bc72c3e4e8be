"""Linking CI to tests: which tests each pipeline step runs, and their composed policy.

A soft fail or a job retry is only as costly as the tests behind it, so every
pytest invocation in a step is resolved to the test files it runs: its targets
against the step's working directory and the repository layout, a bare
``pytest`` against the configured ``testpaths``. Each test then gets one policy
per step that runs it, composed in the order things happen: its trial loop
(with any trial count the step's environment overrides), the marker or config
reruns (the command line's ``--reruns`` standing in for the config's), the job
retries, and finally the gate: the test's own xfail/skip, else the step's soft
fail, ``continue-on-error``, ``allow_failure`` or a masked exit status.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from detlint.ci_options import RunOptions, run_options, with_options
from detlint.ci_pass.facts import CiCommand, CiKnob, CiStep, EnvSetting
from detlint.ci_pass.shell import CommandFacts, PytestRun, read_command
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
from detlint.python_pass.options import is_test_module
from detlint.span import Span

GATE_OF_KNOB: dict[str, Gate] = {
    "soft-fail": SOFT_FAIL,
    "continue-on-error": CONTINUE_ON_ERROR,
    "allow-failure": ALLOW_FAILURE,
}
RETRY_KINDS = ("job-retry", "retry-action")
# Below this many step scripts, forking costs more than it saves.
PARALLEL_SCRIPTS = 200
# A shell script called directly: `./ci/test.sh`, `bash -x scripts/run.sh`, `&& ci/t.sh`.
_SCRIPT_CALL = re.compile(
    r"(?:^|&&|\|\||;|\b(?:bash|sh)(?:\s+-\w+)*\s)\s*((?:\.{1,2}/)?[\w.-]+(?:/[\w.-]+)*\.sh)\b",
    re.M,
)


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


def command_span(command: CiCommand, run: PytestRun) -> Span:
    """Where an invocation sits. A block scalar's content starts on the line after ``|``,
    and YAML strips its indentation from the text, so there the span is the whole line."""
    span = command.span
    block = span.end_line > span.line and "\n" in command.text
    if block:
        line = span.line + 1 + run.line
        return Span(span.path, line, 1, line, 1)
    if run.line == 0:
        start = span.column + run.column + (1 if _quoted(command, span) else 0)
        width = run.end_column - run.column
        return Span(span.path, span.line, start, span.line, start + width)
    return Span(span.path, span.line + run.line, 1, span.line + run.line, run.end_column + 1)


def _quoted(command: CiCommand, span: Span) -> bool:
    return span.end_column - span.column > len(command.text)


def _acting_knobs(step: CiStep, command: CiCommand) -> tuple[CiKnob, ...]:
    return tuple(
        knob for knob in (*step.knobs, *command.knobs) if knob.kind in (*GATE_OF_KNOB, *RETRY_KINDS)
    )


class Linker:
    """Resolves runs to test files; ``files`` are the repository's files, relative, POSIX."""

    def __init__(
        self,
        files: Sequence[str],
        config_for: Callable[[str], PytestConfig],
        evidence: PluginEvidence,
        relative: Callable[[str], str] = lambda path: path,
        display: Callable[[str], str] = lambda path: path,
        read_script: Callable[[str], str | None] | None = None,
    ) -> None:
        self.files = sorted(files)
        self._file_set = frozenset(self.files)
        self.config_for = config_for
        self.evidence = evidence
        self.relative = relative  # a displayed path (a config file's) as a repository path
        self.display = display  # a repository path as displayed (relative to the cwd)
        self.read_script = read_script  # a repository file's text, or None
        # Large CI setups run thousands of steps over the same tests: every lookup
        # below is memoised, so linking costs per distinct target, config and test.
        self._test_files: dict[tuple[str, ...], list[str]] = {}
        self._under_cache: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}
        self._linked: dict[tuple[int, int], tuple[TestFunction, PytestConfig, TestGate]] = {}
        self._configs: dict[tuple[int, RunOptions], PytestConfig] = {}
        self._displayed: dict[str, str] = {}
        self._runs_cache: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}
        self._commands: dict[tuple[str, bool, bool], CommandFacts] = {}
        self._script_facts: dict[str, CommandFacts | None] = {}

    def _tests(self, python_files: tuple[str, ...]) -> list[str]:
        found = self._test_files.get(python_files)
        if found is None:
            found = self._test_files[python_files] = [
                path for path in self.files if is_test_module(path.rsplit("/", 1)[-1], python_files)
            ]
        return found

    def _under(self, target: str, python_files: tuple[str, ...]) -> tuple[str, ...]:
        """The test files a target names: itself, or every test module below it."""
        key = (target, python_files)
        found = self._under_cache.get(key)
        if found is None:
            path = target.split("::", 1)[0].rstrip("/")
            tests = self._tests(python_files)
            if path in ("", "."):
                found = tuple(tests)
            elif path in self._file_set:
                found = (path,)
            else:
                prefix = path + "/"
                start = bisect.bisect_left(tests, prefix)
                end = bisect.bisect_left(tests, prefix[:-1] + "0")  # "0" sorts right after "/"
                found = tuple(tests[start:end])
            self._under_cache[key] = found
        return found

    def _test_files_of(self, directory: str, written: tuple[str, ...]) -> tuple[str, ...]:
        """The test files a run started in ``directory`` with targets ``written`` reaches."""
        key = (directory, written)
        found = self._runs_cache.get(key)
        if found is None:
            config = self.config_for(directory)
            targets = [_join(directory, t) for t in written if not t.startswith("-")]
            if not targets:
                config_dir = directory
                if config.path:
                    config_dir = posixpath.dirname(self.relative(config.path))
                targets = [_join(config_dir, t) for t in config.testpaths] or [directory]
            found = tuple(
                sorted(
                    {self._display(f) for t in targets for f in self._under(t, config.python_files)}
                )
            )
            self._runs_cache[key] = found
        return found

    def _locate(self, base: str, directory: str) -> str:
        """A working directory in the repository. An absolute one is where the CI image
        mounts the checkout (``/workspace/tests``): its longest tail that is a directory
        here is taken (``tests``), else the checkout root."""
        if not directory.startswith("/"):
            return _join(base, directory)
        parts = [part for part in directory.split("/") if part]
        for start in range(len(parts)):
            candidate = _join(base, "/".join(parts[start:]))
            index = bisect.bisect_left(self.files, candidate + "/")
            if index < len(self.files) and self.files[index].startswith(candidate + "/"):
                return candidate
        return base

    def _display(self, path: str) -> str:
        found = self._displayed.get(path)
        if found is None:
            found = self._displayed[path] = self.display(path)
        return found

    def _link(self, test: TestFunction, config: PytestConfig) -> TestGate:
        # Keyed by identity, since hashing a test's facts on every lookup costs more than
        # linking; the entry keeps both objects alive so that an id is never reused.
        key = (id(test), id(config))
        entry = self._linked.get(key)
        if entry is None:
            entry = self._linked[key] = (test, config, link_test(test, config, self.evidence))
        return entry[2]

    def read_scripts(self, steps: Sequence[CiStep], jobs: int) -> None:
        """Analyse the shell text of every step up front, over ``jobs`` processes:
        on a large CI setup it is most of the linking."""
        from detlint.parallel import fork_map

        wanted = list(
            dict.fromkeys(
                ("\n".join(c.text for c in group), group[0].errexit, group[0].pipefail)
                for step in steps
                for group in _scripts(step)
            )
        )
        wanted = [key for key in wanted if key not in self._commands]
        jobs = jobs if len(wanted) >= PARALLEL_SCRIPTS else 1
        for key, facts in zip(wanted, fork_map(_read_script_key, wanted, jobs), strict=True):
            self._commands[key] = facts

    def _read(self, key: tuple[str, bool, bool]) -> CommandFacts:
        found = self._commands.get(key)
        if found is None:
            found = self._commands[key] = _read_script_key(key)
        return found

    def runs(self, step: CiStep, base: str = "") -> list[TestRun]:
        """Every pytest invocation of ``step``; ``base`` is where its checkout starts."""
        found: list[TestRun] = []
        # `echo NAME=value >> $GITHUB_ENV` sets NAME for the job's later steps.
        carried: tuple[EnvSetting, ...] = ()
        for group in _scripts(step):
            first = group[0]
            text = "\n".join(command.text for command in group)
            starts = list(
                itertools.accumulate((c.text.count("\n") + 1 for c in group[:-1]), initial=0)
            )
            facts = self._read((text, first.errexit, first.pipefail))
            exports = tuple(
                EnvSetting(e.name, e.value, group[bisect.bisect_right(starts, e.line) - 1].span)
                for e in facts.exports
                if e.via != "github-env"
            )
            for run in facts.runs:
                index = bisect.bisect_right(starts, run.line) - 1
                command = group[index]
                local = dataclasses.replace(
                    run, line=run.line - starts[index], end_line=run.end_line - starts[index]
                )
                found.append(self._run(step, command, local, base, (*carried, *exports)))
            carried += tuple(
                EnvSetting(e.name, e.value, first.span)
                for e in facts.exports
                if e.via == "github-env"
            )
            for command in group:
                found += self._script_runs(step, command, base, (*carried, *exports))
        return found

    def _script_runs(
        self, step: CiStep, command: CiCommand, base: str, env: tuple[EnvSetting, ...]
    ) -> list[TestRun]:
        """Runs inside a shell script the command calls directly (``./ci/test.sh``,
        ``bash scripts/run_tests.sh``), one level deep. A script runs in a new bash
        without errexit unless it sets it, so a later command can hide pytest's status."""
        if self.read_script is None or ".sh" not in command.text:
            return []
        working = self._locate(base, command.working_dir or step.working_dir or "")
        found: list[TestRun] = []
        for match in _SCRIPT_CALL.finditer(command.text):
            written = match.group(1)
            path = _join(working, written) if not written.startswith("/") else ""
            facts = self._script(path) if path else None
            if facts is None:
                continue
            shown = self._display(path)
            for run in facts.runs:
                at = Span(shown, run.line + 1, run.column + 1, run.end_line + 1, run.end_column + 1)
                found.append(self._run(step, command, run, base, env, at))
        return found

    def _script(self, path: str) -> CommandFacts | None:
        """A script's facts, read once however many steps call it."""
        if path not in self._script_facts:
            text = self.read_script(path) if self.read_script is not None else None
            self._script_facts[path] = (
                None if text is None else read_command(text, errexit=False, pipefail=False)
            )
        return self._script_facts[path]

    def _run(
        self,
        step: CiStep,
        command: CiCommand,
        run: PytestRun,
        base: str,
        exports: tuple[EnvSetting, ...],
        at: Span | None = None,
    ) -> TestRun:
        working = self._locate(base, command.working_dir or step.working_dir or "")
        directory = _join(working, run.cwd or "")
        test_files = self._test_files_of(directory, run.targets)
        inline = tuple(EnvSetting(n, v, command.span) for n, v in run.env)
        env = (*step.env, *command.env, *exports, *inline)
        span = at or command_span(command, run)
        return TestRun(
            step=step,
            command=command,
            run=run,
            span=span,
            directory=directory,
            test_files=test_files,
            knobs=_acting_knobs(step, command),
            env=env,
            options=run_options(run, span, env),
        )

    def gates(self, run: TestRun, tests: dict[str, list[TestFunction]]) -> list[CiGate]:
        """The tests whose policy this run changes: one gate per test with facts, and one
        for all its test files without (no knob, no trial loop: one policy fits them all).

        A run without a CI knob, a rerun option or a masked exit status changes only the
        tests whose trial variable it sets; the others run as their own config says.
        """
        found: list[CiGate] = []
        neutral = not run.changes_policy
        own_config = self.config_for(run.directory)
        config = self._with_options(own_config, run.options)
        plain_files = [path for path in run.test_files if path not in tests]
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
        for path in run.test_files:
            for test in tests.get(path, ()):
                if neutral and test.trials.env not in variables:
                    continue
                found.append(self._gate(run, test, config, own_config, test.nodeid, True))
        return found

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


def _read_script_key(key: tuple[str, bool, bool]) -> CommandFacts:
    text, errexit, pipefail = key
    return read_command(text, errexit=errexit, pipefail=pipefail)


def _scripts(step: CiStep) -> list[list[CiCommand]]:
    """Commands that run in one shell: Buildkite and GitLab run a step's command list
    as one script (a ``cd`` or ``export`` carries over); GitHub runs each step alone."""
    if step.system in ("buildkite", "gitlab") and step.commands:
        return [list(step.commands)]
    return [[command] for command in step.commands]


def _join(base: str, relative: str) -> str:
    if relative.startswith("/"):
        return relative.lstrip("/")
    joined = posixpath.normpath(posixpath.join(base, relative)) if base or relative else ""
    return "" if joined == "." else joined


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
