"""The CI half of a run: every CI knob, every pytest run, every test as each run runs it.

The engine reads pipelines before the Python pass (the variables a step sets
tell the Python pass which trial knobs to look for), then hands the Python facts
here, with the :class:`~detlint.readers.repository.Repository` that answers what
linking asks of the repository. A pipeline linted on its own (a pre-commit run on
a changed ``.gitlab-ci.yml``) still needs the facts of the tests its steps run, so
the test files a run reaches are scanned for context; their own findings are not
reported, since they were not linted.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from detlint.base.gc_pause import cyclic_gc_paused
from detlint.base.paths import displayer, relativer
from detlint.compose.ci.callers import with_callers
from detlint.compose.ci.gates import holds_knobs
from detlint.compose.ci.script_knobs import hook_knobs

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
    from detlint.compose.ci.runs import Linker
    from detlint.compose.ci.test_run import OtherRun, TestRun
    from detlint.readers.ci.facts import CiKnob, CiStep, PipelineFacts
    from detlint.readers.python.facts import ModuleFacts, TestFunction
    from detlint.readers.repository import Repository


@dataclass(frozen=True)
class CiAnalysis:
    pipelines: tuple[PipelineFacts, ...] = ()
    knobs: tuple[CiKnob, ...] = ()  # every knob of every pipeline, in file order
    runs: tuple[TestRun, ...] = ()
    gates: tuple[CiGate, ...] = ()
    # Tests steps run that are not linked test by test: other runners, calls named like
    # one that detlint cannot see into.
    others: tuple[OtherRun, ...] = ()
    # The step whose scripts write a knob around commands that run no tests.
    script_steps: tuple[tuple[CiKnob, CiStep], ...] = ()
    # Files a run names that are not named like test modules (``pytest tests/check_foo.py``),
    # read as test modules: pytest collects a file it is given whatever its name.
    named: tuple[ModuleFacts, ...] = ()

    @functools.cached_property
    def _steps_by_knob(self) -> dict[CiKnob, list[CiStep]]:
        found: dict[CiKnob, list[CiStep]] = {}
        for knob, step in self.script_steps:
            found.setdefault(knob, []).append(step)
        for pipeline in self.pipelines:
            for step in pipeline.steps:
                knobs = (*step.knobs, *(k for command in step.commands for k in command.knobs))
                for knob in dict.fromkeys(knobs):
                    found.setdefault(knob, []).append(step)
        return found

    def steps_of(self, knob: CiKnob) -> list[CiStep]:
        """The steps a knob sits on (a GitLab ``default:`` retry sits on many)."""
        return self._steps_by_knob.get(knob, [])


# Linking builds many small acyclic objects. As a decorator, not a with block in the
# body: the linker's memos die with the call, before the paused collector resumes.
@cyclic_gc_paused()
def link_ci(
    pipelines: Sequence[PipelineFacts],
    modules: Sequence[ModuleFacts],
    repository: Repository,
    scanned: frozenset[str] = frozenset(),
    scanned_trials: bool = False,
    looping: frozenset[str] = frozenset(),
    only: frozenset[str] | None = None,
) -> CiAnalysis:
    """Resolve every step's pytest runs to test files and compose each test's policy.

    ``only``, for a run on some files with the repository's pipelines as context:
    the tests composed are those of these files (display paths) alone.

    The test files a run that changes their policy reaches (a CI knob, a rerun
    option, a masked exit status) are read by the ``repository`` when the Python
    pass found no knob in them, so that their trial loops count; a run that changes
    nothing costs no parsing. Those of them with knobs are read again whole
    (``_read_whole``): the run acts on their unmarked tests too. ``scanned`` are the
    files the Python pass read already (``scanned_trials``: with the trial prefilter),
    and ``looping`` those of them it ruled out that pass the trial prefilter
    (``LoopOnly``).
    """
    pipelines = with_callers(pipelines, relativer(repository.root, repository.cwd))
    linked = _link_runs(pipelines, _linker(repository))
    changed, overridden = linked.changed, linked.overridden - linked.changed
    if only is not None:
        changed &= only
        overridden &= only
    tests: dict[str, list[TestFunction]] = {}
    for module in modules:
        tests.setdefault(module.path, []).extend(module.tests)
    named = _named_modules(linked.linker, repository, tests, only)
    for module in named:
        tests[module.path] = list(module.tests)
    for paths, trials in ((changed, True), (overridden, False)):
        done = scanned if scanned_trials or not trials else frozenset()
        unread = sorted(paths - set(tests) - done)
        if trials and not scanned_trials:
            # The Python pass read these and found no knob token: only a trial loop
            # can make them worth parsing now.
            unread = [path for path in unread if path not in scanned or path in looping]
        if unread:
            for module in repository.scan([repository.cwd / path for path in unread], trials):
                tests.setdefault(module.path, []).extend(module.tests)
    _read_whole(changed, tests, frozenset(module.path for module in named), modules, repository)
    gates = linked.linker.composer.gates_of(linked.acting, tests)
    return CiAnalysis(
        tuple(pipelines),
        tuple(linked.knobs),
        tuple(linked.runs),
        tuple(gates),
        tuple(linked.linker.others),
        tuple(linked.linker.quiet),
        tuple(named),
    )


def _read_whole(
    changed: set[str],
    tests: dict[str, list[TestFunction]],
    named: frozenset[str],
    modules: Sequence[ModuleFacts],
    repository: Repository,
) -> None:
    """Read again, whole, the test files with knobs that a run changing their policy
    reaches, and list all their tests in ``tests``.

    The Python pass cuts a file down to the tests that hold a knob (``narrowing``), and
    a file with a knob gets a gate per listed test (``Composer``), so its other tests
    would get none: a ``--reruns 2`` run, a job retry or a soft fail then quotes the
    marked test alone, though it acts on its unmarked neighbours, with their own trial
    loops, as much. Only those files are read again: a run that changes nothing, and a
    file without a knob (the run's one stand-in gate covers it), parse nothing more."""
    if repository.python.prefilter.everything:
        return  # pytest's config reruns every test: every test file was read whole
    paths = sorted(path for path in changed if any(map(holds_knobs, tests.get(path, ()))))
    found: list[ModuleFacts] = []
    for as_named in (False, True):
        chosen = [repository.cwd / path for path in paths if (path in named) is as_named]
        if chosen:
            found += repository.scan(chosen, named=as_named, whole=True)
    if not found:
        return
    from detlint.compose.built_classes import with_built_classes

    # A class another module passes to a call marks its tests (``built_by``) as before.
    for module in with_built_classes([*modules, *found])[len(modules) :]:
        tests[module.path] = list(module.tests)


def _named_modules(
    linker: Linker,
    repository: Repository,
    tests: dict[str, list[TestFunction]],
    only: frozenset[str] | None,
) -> list[ModuleFacts]:
    """The files runs name that the Python pass left out for their names, read as test
    modules (the run's own and every other finding about them then counts them)."""
    shown = linker.targets.display
    paths = sorted(
        path
        for path in map(shown, linker.targets.named)
        if path not in tests and (only is None or path in only)
    )
    if not paths:
        return []
    return repository.scan([repository.cwd / path for path in paths], named=True)


def _linker(repository: Repository) -> Linker:
    """The linker of a run's pipelines to the repository's tests."""
    from detlint.compose.ci.runs import Linker
    from detlint.compose.ci.targets import python_files

    root, cwd = repository.root, repository.cwd
    return Linker(
        python_files(repository.files(), root, cwd),
        functools.partial(repository.configs.in_repository, root),
        repository.evidence_for,
        relativer(root, cwd),
        displayer(root, cwd),
        repository.called_text,
    )


class _Linked(NamedTuple):
    """Every run of every pipeline, and what composing needs of them."""

    linker: Linker
    runs: list[TestRun]
    knobs: dict[CiKnob, None]  # every knob once, in file order
    acting: list[tuple[TestRun, bool]]  # the runs that may change a test's policy
    # Files a run reaches that the Python pass may not have read: all their trial loops
    # count under a run that changes their policy; under one that only sets variables,
    # the files that read one of them (the prefilter knows the names).
    changed: set[str]
    overridden: set[str]


def _link_runs(pipelines: Sequence[PipelineFacts], linker: Linker) -> _Linked:
    """Each step's pytest runs, resolved to the test files they reach."""
    runs: list[TestRun] = []
    knobs: dict[CiKnob, None] = {}
    changed: set[str] = set()
    overridden: set[str] = set()
    counted: tuple[set[int], set[int]] = (set(), set())  # ids done: [changes] False, True
    acting: list[tuple[TestRun, bool]] = []
    for pipeline in pipelines:
        # A pipeline's shell facts cover its own steps: taken as its steps are linked,
        # while they are at hand (and in a large setup, still in the processor's cache).
        linker.take_shell((pipeline,))
        knobs.update(dict.fromkeys(pipeline.knobs))
        for step in pipeline.steps:
            found = linker.runs(step, pipeline.base)
            runs += found
            for run in found:  # while the step and its runs are at hand
                if run.knobs:  # a retry the script writes is a knob of the run's own
                    knobs.update(dict.fromkeys(k for k in run.knobs if k.kind == "shell-retry"))
                changes = run.changes_policy
                if changes or run.env:
                    acting.append((run, changes))
                    ids = counted[changes]  # runs share their test_files tuples
                    if (key := id(run.test_files)) not in ids:
                        ids.add(key)
                        (changed if changes else overridden).update(run.test_files)
            knobs.update(dict.fromkeys(linker.script_knobs(step)))
            if step.knobs:  # every knob once, in file order
                knobs.update(dict.fromkeys(step.knobs))
            for command in step.commands:
                if command.knobs:  # few commands have knobs of their own
                    knobs.update(dict.fromkeys(command.knobs))
    for other in linker.others:
        knobs.update(dict.fromkeys(k for k in other.knobs if k.kind == "shell-retry"))
    knobs.update(dict.fromkeys(knob for knob, _ in linker.quiet))
    for base in dict.fromkeys(p.base for p in pipelines if p.system == "buildkite"):
        knobs.update(dict.fromkeys(hook_knobs(linker.follower, base)))
    return _Linked(linker, runs, knobs, acting, changed, overridden)
