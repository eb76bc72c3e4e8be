"""Each test's policy under one CI run: pytest as the run configures it, then the job.

``runs.py`` finds the runs; this composes what they do to their tests, in the
order things happen: the test's trial loop (with any trial count the run's
environment sets), its marker or config reruns (the command line's ``--reruns``
standing in for the config's), the job retries, and finally the gate: the test's
own xfail/skip, else the step's soft fail, ``continue-on-error``,
``allow_failure`` or a masked exit status.

A large CI setup has thousands of runs over a few hundred distinct sets of test
files, a handful of configs and a few thousand tests, most of the runs changing
nothing. So everything here is worked out once per distinct set, test and
config, and a run that changes nothing costs two lookups.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from detlint.base.span import Span
from detlint.compose.ci.run_options import RunOptions, with_options
from detlint.compose.test_gate import TestGate
from detlint.compose.test_policy import link_test, same_link, with_trials
from detlint.model import (
    ALLOW_FAILURE,
    CONTINUE_ON_ERROR,
    MASKED_EXIT,
    SOFT_FAIL,
    Gate,
    JobRetries,
    Policy,
)
from detlint.readers.ci.facts import CiKnob, EnvSetting
from detlint.readers.dependencies.declarations import PluginEvidence
from detlint.readers.project.collection import collects_in_module
from detlint.readers.project.pytest_config import PytestConfig
from detlint.readers.python.facts import NO_TRIALS, TestFunction, TrialCount

if TYPE_CHECKING:
    from detlint.compose.ci.test_run import TestRun

GATE_OF_KNOB: dict[str, Gate] = {
    "soft-fail": SOFT_FAIL,
    "continue-on-error": CONTINUE_ON_ERROR,
    "allow-failure": ALLOW_FAILURE,
}
RETRY_KINDS = ("job-retry", "retry-action", "shell-retry")


@dataclass(frozen=True, slots=True)
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
    has_facts: bool  # False: the test files whose tests hold no knob of their own
    files: tuple[str, ...]  # the test files it stands for: its test's, or those files

    @property
    def inside(self) -> Policy:
        return self.base.policy

    @property
    def policy(self) -> Policy:
        """Everything composed: pytest, then job retries, then the gate."""
        return self.compose(self.base.policy, self.retries, self.ci_gate)

    def compose(
        self,
        inside: Policy,
        retries: tuple[tuple[CiKnob, JobRetries], ...],
        ci_gate: CiKnob | None,
    ) -> Policy:
        """``policy`` with some parts replaced: what the step would do without one knob."""
        gate = inside.gate
        if gate.blocks and ci_gate is not None:
            gate = GATE_OF_KNOB[ci_gate.kind]
        elif gate.blocks and self.masked:
            gate = MASKED_EXIT
        layers = (*inside.layers, *(layer for _, layer in retries))
        return Policy(trials=inside.trials, layers=layers, gate=gate, threshold=inside.threshold)

    @property
    def ci_knobs(self) -> tuple[CiKnob, ...]:
        """The CI knobs that shaped ``policy``."""
        knobs = [knob for knob, _ in self.retries]
        return (*knobs, self.ci_gate) if self.ci_gate is not None else tuple(knobs)


# What a run's CI does to a failure: job retries, the knob that stops a failure from
# blocking, and whether the command masks pytest's exit status.
_Ci = tuple[tuple[tuple[CiKnob, JobRetries], ...], CiKnob | None, bool]


@dataclass(frozen=True)
class _Split:
    """The tests behind one ``test_files`` tuple, as ``Composer.gates`` asks for them."""

    plain: Sequence[str]  # the test files without knobs (``Composer._with_knobs``)
    with_facts: list[TestFunction]  # the collected tests of the others, in file order
    with_trials: list[TestFunction]  # those whose trial count a variable sets
    variables: frozenset[str]  # the names of those variables


class Composer:
    """Composes the gates of runs; ``config_for`` gives the pytest config of a
    repository directory, and ``relative`` a displayed path relative to the repository."""

    def __init__(
        self,
        config_for: Callable[[str], PytestConfig],
        evidence_for: Callable[[str], PluginEvidence],
        relative: Callable[[str], str] = lambda path: path,
    ) -> None:
        self.config_for = config_for
        self.evidence_for = (
            evidence_for  # a test file's project's (``detlint.readers.project.projects``)
        )
        self.relative = relative
        self._linked: dict[tuple[int, int], tuple[TestFunction, PytestConfig, TestGate]] = {}
        self._configs: dict[tuple[int, int], tuple[PytestConfig, RunOptions, PytestConfig]] = {}
        self._tests: dict[str, list[TestFunction]] | None = None
        self._splits: dict[int, tuple[tuple[str, ...], _Split]] = {}
        self._files: dict[str, list[TestFunction] | None] = {}  # see ``_with_knobs``
        self._overrides: dict[tuple[int, str, int], tuple[TestFunction, TestFunction]] = {}

    def gates(self, run: TestRun, tests: dict[str, list[TestFunction]]) -> list[CiGate]:
        """The tests whose policy ``run`` changes: one gate per collected test of a file
        with knobs, and one for all its test files without (no knob, no trial loop: one
        policy fits them all).

        A run without a CI knob, a rerun option or a masked exit status changes only the
        tests whose trial variable it sets; the others run as their own config says.
        """
        return self.gates_of([(run, run.changes_policy)], tests)

    def gates_of(
        self, runs: Iterable[tuple[TestRun, bool]], tests: dict[str, list[TestFunction]]
    ) -> list[CiGate]:
        """``gates`` of many runs (each with its ``changes_policy``), in order. Most runs
        of a large setup change nothing: they are passed over here, two lookups each."""
        found: list[CiGate] = []
        if tests is not self._tests:
            self._tests, self._splits, self._files = tests, {}, {}
        splits = self._splits
        for run, changes in runs:
            entry = splits.get(id(run.test_files))
            split = entry[1] if entry is not None else self._split(run.test_files, tests)
            if changes:
                with_facts, plain = split.with_facts, split.plain
                if run.nodes:
                    with_facts, plain = _selected(with_facts, plain, run.nodes)
                if with_facts and run.benchmarks_only:  # which tests run is not known
                    plain = [*plain, *dict.fromkeys(test.path for test in with_facts)]
                    with_facts = []
                found += self._gates(run, with_facts, plain, _acting(run))
            elif split.variables and not split.variables.isdisjoint(
                [setting.name for setting in run.env]
            ):
                # A run that changes nothing else changes the tests whose trial loop
                # reads a variable it sets; the others run as their own config says.
                variables = {setting.name for setting in run.env}
                chosen = [test for test in split.with_trials if test.trials.env in variables]
                found += self._gates(run, chosen, (), ((), None, False))
        return found

    def _gates(
        self,
        run: TestRun,
        chosen: Iterable[TestFunction],
        plain_files: Sequence[str],
        ci: _Ci,
    ) -> list[CiGate]:
        own_config = self.config_for(run.directory)
        config = self._with_options(own_config, run.options)
        found: list[CiGate] = []
        if plain_files:
            first = plain_files[0]
            plain = TestFunction(
                first, "<every test>", None, Span.file(first), None, (), (), NO_TRIALS
            )
            if len(plain_files) == 1:
                label = f"{first} (tests without knobs)"
            else:
                label = f"the tests of {len(plain_files)} test files without knobs"
            files = tuple(plain_files)
            found.append(self._gate(run, plain, config, own_config, label, files, ci))
        for test in chosen:
            found.append(self._gate(run, test, config, own_config, test.nodeid, None, ci))
        return found

    def _split(self, test_files: tuple[str, ...], tests: dict[str, list[TestFunction]]) -> _Split:
        """A run's test files without knobs, and the tests of the others, in file order.
        Runs share their ``test_files`` tuples (one per distinct target) and one linking
        hands every run the same complete ``tests`` (``gates_of`` starts afresh for
        another), so this is worked out once per tuple; the entry keeps the tuple alive
        so that its id stays its own."""
        entry = self._splits.get(id(test_files))
        if entry is None:
            if tests.keys().isdisjoint(test_files):  # most: no file with facts
                split = _Split(test_files, [], [], frozenset())
            else:
                # A file read for its trial loops and found with none lists no tests.
                kept = [(path, self._with_knobs(path, tests)) for path in test_files]
                plain = [path for path, found in kept if found is None]
                with_facts = [test for _, found in kept if found is not None for test in found]
                with_trials = [test for test in with_facts if test.trials.env is not None]
                variables = frozenset(
                    env for test in with_trials if (env := test.trials.env) is not None
                )
                split = _Split(plain, with_facts, with_trials, variables)
            entry = self._splits[id(test_files)] = (test_files, split)
        return entry[1]

    def _with_knobs(
        self, path: str, tests: dict[str, list[TestFunction]]
    ) -> list[TestFunction] | None:
        """The tests of ``path`` that get a gate each: those pytest collects, when one of
        them holds a knob; None for a file without knobs, which shares the run's one gate
        for every test of such files.

        The facts of a file list more than that. A file parsed for another reason (it
        reads ``os.environ`` and names a variable some pipeline sets) lists its tests
        though none holds a knob, and a run on named files takes every function and class
        for a test (a pre-commit run on a test file keeps them all, ``engine.analyse``),
        so the files a workflow gates list their helpers. Which tests pytest collects is
        the config of the file's directory's business, as in the Python pass's linking;
        which files a run collects is its targets' (``targets.py``). Asked once per
        file, though many runs reach it."""
        if path in self._files:
            return self._files[path]
        listed = tests.get(path)
        found: list[TestFunction] | None = None
        if listed:
            config = self.config_for(posixpath.dirname(self.relative(path)))
            collected = [test for test in listed if collects_in_module(config, test)]
            if any(map(holds_knobs, collected)):
                found = collected
        self._files[path] = found
        return found

    def _with_options(self, config: PytestConfig, options: RunOptions) -> PytestConfig:
        """The config a run's tests are linked under: ``config`` with the run's options,
        or ``config`` itself when they change nothing linking reads. Keyed by identity
        (runs share their options objects); the entry keeps both alive."""
        key = (id(config), id(options))
        entry = self._configs.get(key)
        if entry is None:
            found = with_options(config, options)
            evidence = self.evidence_for(config.path or "")
            if found is not config and same_link(config, found, evidence):
                found = config
            entry = self._configs[key] = (config, options, found)
        return entry[2]

    def _link(self, test: TestFunction, config: PytestConfig) -> TestGate:
        # Keyed by identity, since hashing a test's facts on every lookup costs more than
        # linking; the entry keeps both objects alive so that an id is never reused.
        key = (id(test), id(config))
        entry = self._linked.get(key)
        if entry is None:
            linked = link_test(test, config, self.evidence_for(test.path))
            entry = self._linked[key] = (test, config, linked)
        return entry[2]

    def _gate(
        self,
        run: TestRun,
        test: TestFunction,
        config: PytestConfig,
        own_config: PytestConfig,
        label: str,
        plain_files: tuple[str, ...] | None,
        ci: _Ci,
    ) -> CiGate:
        """``test``'s gate in ``run``; ``plain_files`` the files it stands for when it is
        the stand-in for the tests of the files without knobs."""
        own = self._link(test, own_config).policy
        override = _trial_override(test.trials, run.env)
        if override is None:
            base = self._link(test, config)
        else:
            copy = self._overridden(test, override)
            key = (id(copy), id(config))
            entry = self._linked.get(key)
            if entry is None:
                linked = with_trials(self._link(test, config), copy)
                entry = self._linked[key] = (copy, config, linked)
            base = entry[2]
        retries, ci_gate, masked = ci
        has_facts = plain_files is None
        files = (test.path,) if plain_files is None else plain_files
        return CiGate(run, label, base, own, retries, ci_gate, masked, override, has_facts, files)

    def _overridden(self, test: TestFunction, override: EnvSetting) -> TestFunction:
        """``test`` with the trial count a step's variable sets. Many steps set the same
        count for the same tests: one copy each, so that linking it is memoised too
        (``_link`` goes by identity)."""
        count = int(override.value)
        key = (id(test), override.name, count)
        entry = self._overrides.get(key)
        if entry is None:
            trials = dataclasses.replace(
                test.trials, count=count, origin=f"{override.name}={count}"
            )
            entry = self._overrides[key] = (test, dataclasses.replace(test, trials=trials))
        return entry[1]


def holds_knobs(test: TestFunction) -> bool:
    """Whether a gate composes anything of ``test``'s own: a mark (every knob in pytest
    is one, and a tag a run's ``-m`` may deselect), a ``pytest.param`` mark, or a trial
    count other than one trial that no variable sets. A test without any is linked
    exactly as the stand-in for every test of the files without knobs (``_gates``), so
    its file is one of them whether or not it was parsed: the count a message quotes
    must not depend on why the file was read."""
    trials = test.trials
    knobs = test.marks or test.param_marks or test.entry_marks
    return bool(knobs) or trials.count != 1 or trials.env is not None


def _selected(
    tests: Sequence[TestFunction], plain: Sequence[str], nodes: Sequence[tuple[str, str]]
) -> tuple[list[TestFunction], Sequence[str]]:
    """The tests a run's node ids select (``file.py::TestA`` selects the class's tests,
    ``file.py::test_b`` each of its parameter sets), and the files with facts left with
    none of theirs selected as files without knobs: the run still runs them."""
    chosen: dict[str, list[str]] = {}
    for file, node in nodes:
        chosen.setdefault(file, []).append(node)
    kept: list[TestFunction] = []
    emptied: dict[str, bool] = {}
    for test in tests:
        wanted = chosen.get(test.path)
        if wanted is None:
            kept.append(test)
            continue
        rest = test.nodeid[len(test.path) + 2 :]
        if any(_names(node, rest) for node in wanted):
            kept.append(test)
            emptied[test.path] = False
        else:
            emptied.setdefault(test.path, True)
    left = [path for path, empty in emptied.items() if empty]
    return kept, (*plain, *left) if left else plain


def _names(node: str, rest: str) -> bool:
    """Whether node id ``node`` (after the file) selects the test whose id is ``rest``."""
    bare = node.split("[", 1)[0]
    return rest == bare or rest.startswith((node + "::", node + "["))


def _acting(run: TestRun) -> _Ci:
    """What a run's CI does to a failure (retries and a gate that cover test failures)."""
    retries = tuple(
        (knob, JobRetries((knob.attempts or 1) - 1, knob.system))
        for knob in run.knobs
        if knob.kind in RETRY_KINDS and knob.covers_tests and (knob.attempts or 0) > 1
    )
    gate = next((k for k in run.knobs if k.kind in GATE_OF_KNOB and k.covers_tests), None)
    return retries, gate, run.run.masked is not None


def _trial_override(trials: TrialCount, env: Iterable[EnvSetting]) -> EnvSetting | None:
    """The last setting of the test's trial variable to a literal integer, if any."""
    if trials.env is None:
        return None
    found = None
    for setting in env:
        if setting.name == trials.env and setting.value.strip().isdigit():
            found = setting
    return found


__all__ = ["GATE_OF_KNOB", "RETRY_KINDS", "CiGate", "Composer", "holds_knobs"]
