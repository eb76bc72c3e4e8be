"""The CI half of a run: every CI knob, every pytest run, every test as each run runs it.

The engine reads pipelines before the Python pass (the variables a step sets
tell the Python pass which trial knobs to look for), then hands the Python
facts here. A pipeline linted on its own (a pre-commit run on a changed
``.gitlab-ci.yml``) still needs the facts of the tests its steps run, so the
test files a run reaches are scanned for context; their own findings are not
reported, since they were not linted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.gc_pause import cyclic_gc_paused
from detlint.span import Problem, display_path

if TYPE_CHECKING:
    from detlint.ci_link import CiGate, TestRun
    from detlint.ci_pass.facts import CiKnob, CiStep, PipelineFacts
    from detlint.dependencies import PluginEvidence
    from detlint.pytest_config import PytestConfig
    from detlint.python_pass.facts import ModuleFacts, TestFunction

# `export NAME=`, `NAME=value cmd`, `echo "NAME=value" >> "$GITHUB_ENV"`: any assignment,
# but not a long option (`--junitxml=`, `--num-shards=`), which sets no variable.
_ASSIGNMENT = re.compile(r"(?<![-\w])([A-Za-z_]\w*)=")


@dataclass(frozen=True)
class CiAnalysis:
    pipelines: tuple[PipelineFacts, ...] = ()
    knobs: tuple[CiKnob, ...] = ()  # every knob of every pipeline, in file order
    runs: tuple[TestRun, ...] = ()
    gates: tuple[CiGate, ...] = ()

    @functools.cached_property
    def _steps_by_knob(self) -> dict[CiKnob, list[CiStep]]:
        found: dict[CiKnob, list[CiStep]] = {}
        for pipeline in self.pipelines:
            for step in pipeline.steps:
                knobs = (*step.knobs, *(k for command in step.commands for k in command.knobs))
                for knob in dict.fromkeys(knobs):
                    found.setdefault(knob, []).append(step)
        return found

    def steps_of(self, knob: CiKnob) -> list[CiStep]:
        """The steps a knob sits on (a GitLab ``default:`` retry sits on many)."""
        return self._steps_by_knob.get(knob, [])


def pipeline_env_names(pipelines: Iterable[PipelineFacts]) -> set[str]:
    """Variables the pipelines set (step env and ``export``): candidate trial knobs."""
    names: set[str] = set()
    for pipeline in pipelines:
        for step in pipeline.steps:
            names |= {setting.name for setting in step.env}
            for command in step.commands:
                names |= {setting.name for setting in command.env}
                names |= set(_ASSIGNMENT.findall(command.text))
    # Short names (CI, HOME, TERM) are everywhere and never a trial knob.
    return {name for name in names if len(name) >= 4}


def all_knobs(pipelines: Iterable[PipelineFacts]) -> tuple[CiKnob, ...]:
    knobs: dict[CiKnob, None] = {}
    for pipeline in pipelines:
        knobs.update(dict.fromkeys(pipeline.knobs))
        for step in pipeline.steps:
            knobs.update(dict.fromkeys(step.knobs))
            for command in step.commands:
                knobs.update(dict.fromkeys(command.knobs))
    return tuple(knobs)


def link_ci(
    pipelines: Sequence[PipelineFacts],
    modules: Sequence[ModuleFacts],
    root: Path,
    cwd: Path,
    evidence: PluginEvidence,
    every_file: Callable[[], tuple[Path, ...]],
    scan: Callable[[list[Path], bool], list[ModuleFacts]],
    scanned: frozenset[str] = frozenset(),
    scanned_trials: bool = False,
    looping: frozenset[str] = frozenset(),
    only: frozenset[str] | None = None,
) -> CiAnalysis:
    """Resolve every step's pytest runs to test files and compose each test's policy.

    ``only``, for a run on some files with the repository's pipelines as context:
    the tests composed are those of these files (display paths) alone.

    The test files a run that changes their policy reaches (a CI knob, a rerun
    option, a masked exit status) are scanned here when the Python pass found no
    knob in them, so that their trial loops count; a run that changes nothing
    costs no parsing. ``scanned`` are the files the Python pass read already
    (``scanned_trials``: with the trial prefilter), and ``looping`` those of them it
    ruled out that pass the trial prefilter (``LoopOnly``).
    """
    from detlint.ci_link import Linker
    from detlint.ci_pass.targets import displayer, relativer
    from detlint.pytest_config import find_pytest_config

    with cyclic_gc_paused():  # linking builds many small acyclic objects
        configs: dict[str, PytestConfig] = {}

        def config_for(directory: str) -> PytestConfig:
            found = configs.get(directory)
            if found is None:
                found = configs[directory] = find_pytest_config(root / directory, cwd)
            return found

        relative = relativer(root, cwd)
        linker = Linker(
            [relative(path) for path in every_file() if path.suffix == ".py"],
            config_for,
            evidence,
            relative,
            displayer(root, cwd),
            lambda path: _read_called(root / path, cwd),
        )
        linker.take_shell(pipelines)
        runs = [
            run
            for pipeline in pipelines
            for step in pipeline.steps
            for run in linker.runs(step, pipeline.base)
        ]
        tests: dict[str, list[TestFunction]] = {}
        for module in modules:
            tests.setdefault(module.path, []).extend(module.tests)
        # Files a run reaches that the Python pass did not read: all their trial loops
        # count under a run that changes their policy; under one that only sets
        # variables, the files that read one of them (the prefilter knows the names).
        changed = {path for run in runs if run.changes_policy for path in run.test_files}
        overridden = {path for run in runs if run.env for path in run.test_files} - changed
        if only is not None:
            changed &= only
            overridden &= only
        for paths, trials in ((changed, True), (overridden, False)):
            done = scanned if scanned_trials or not trials else frozenset()
            unread = sorted(paths - set(tests) - done)
            if trials and not scanned_trials:
                # The Python pass read these and found no knob token: only a trial loop
                # can make them worth parsing now.
                unread = [path for path in unread if path not in scanned or path in looping]
            if unread:
                for module in scan([cwd / path for path in unread], trials):
                    tests.setdefault(module.path, []).extend(module.tests)
        gates = [gate for run in runs for gate in linker.gates(run, tests)]
        return CiAnalysis(tuple(pipelines), all_knobs(pipelines), tuple(runs), tuple(gates))


def _read_called(path: Path, cwd: Path) -> str | None:
    """A file a command calls (a script, tox.ini, a Makefile) as text, or None when it
    is not there or not text."""
    from detlint.source import decode_text, read_bytes

    if not path.is_file():
        return None
    data = read_bytes(path, display_path(path, cwd), max_bytes=1_000_000)
    text = data if isinstance(data, Problem) else decode_text(data, "")
    return None if isinstance(text, Problem) else text
