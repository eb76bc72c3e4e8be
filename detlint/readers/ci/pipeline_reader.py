"""Reading one pipeline file into ``PipelineFacts``: its YAML, its system, its scripts.

A repository can hold hundreds of YAML files, most of them not pipelines or
pipelines without a knob, so every file passes a byte prefilter first: it is
parsed only when it holds a token a knob or a test run needs. The reader keeps
what a read took in besides the file itself (a GitLab pipeline's local includes),
so that a cached read can be trusted only while those files are unchanged.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from detlint.base.facts_cache import digest
from detlint.base.paths import display_path, relativer
from detlint.base.source import decode_text, read_bytes
from detlint.base.span import Problem, Span
from detlint.readers.ci.facts import (
    CiCommand,
    PipelineFacts,
    ScriptKey,
    System,
    script_groups,
    script_key,
)
from detlint.readers.ci.pipeline_files import checkout_base, system_of
from detlint.readers.ci.test_services import with_service_retries
from detlint.readers.yaml.tree import YNode

if TYPE_CHECKING:
    from detlint.readers.ci.shell.commands import CommandFacts

# A pipeline is read only if its lowercased bytes hold one of these: a knob, a
# test run (whose flags, variables and shell matter), or a command that can
# hide a failure.
KNOB_TOKENS = (
    b"pytest",
    b"tox",
    b".sh",  # a script the step calls may run pytest
    b"make",  # and so may a make target
    b"test",  # a test runner, a task or script named for tests (runners.py)
    b"check",
    b"hatch",
    b"nox",
    b"pdm",
    b"poe",
    b"invoke",
    b"just",
    b"pixi",
    b"soft_fail",
    b"retry",
    b"continue-on-error",
    b"continue_on_failure",
    b"allow_failure",
    b"when: manual",
    b"fail-fast",
    b"--reruns",
    b"--retries",
    b"--force-flaky",
    b"--count",
    b"||",
    b"set +e",
    b"tee",
    b"skip",
    b"max_auto_reruns",
    b"retry_count",  # a test service's retries (BUILDKITE_TEST_ENGINE_RETRY_COUNT)
    b"flaky_retry",  # DD_CIVISIBILITY_FLAKY_RETRY_*
    b"upload",
    b"include",
    b"extends",
)

# What a pipeline's top level looks like, as bytes: only a file that matches is
# parsed to decide by content (most YAML in a repository is not CI).
_MAX_SCRIPT_BYTES = 1 << 20  # a step's script larger than this is not read for its status
_TOP_LEVEL_HINT = re.compile(
    rb"^(?:steps|jobs|commands?)[ \t]*:"
    rb"|^-[ \t]+(?:command|commands|label|group|wait|block|trigger)\b"
    rb"|^[ \t]+(?:script|extends)[ \t]*:",
    re.M,
)


class Input(NamedTuple):
    """A file one read took in besides its own, and the digest of its bytes then."""

    path: str  # absolute
    digest: str  # "" when it was absent or unreadable


class Read(NamedTuple):
    """What reading one file gives: its facts (None for no pipeline), its problems,
    and the other files the facts rest on (a GitLab pipeline's local includes)."""

    facts: PipelineFacts | None
    problems: list[Problem]
    inputs: tuple[Input, ...] = ()


def content_digest(data: bytes | Problem | None) -> str:
    return digest(data) if isinstance(data, bytes) else ""


class PipelineReader:
    """Reads the pipeline files of one run; each file is read and parsed at most once."""

    def __init__(self, root: Path, cwd: Path, extra_tokens: Iterable[bytes] = ()) -> None:
        self.root = root
        self.cwd = cwd
        self.tokens = KNOB_TOKENS + tuple(t.lower() for t in extra_tokens)
        self.problems: list[Problem] = []
        self._loaded: dict[str, tuple[tuple[YNode, ...], tuple[Problem, ...]]] = {}
        # Every file a read took in besides its own (a GitLab include), with the digest
        # of the bytes read ("" when absent or unreadable): what a cache entry rests on.
        self.inputs: list[Input] = []
        # A file's path relative to the repository root, POSIX.
        self.relative = relativer(root, cwd)

    def load(
        self, path: Path, data: bytes | None = None
    ) -> tuple[tuple[YNode, ...], tuple[Problem, ...]]:
        """The YAML documents of ``path`` and what could not be read (not yet reported)."""
        key = os.path.abspath(path)
        if key not in self._loaded:
            from detlint.readers.yaml.load import read_yaml

            display = display_path(path, self.cwd)
            raw = read_bytes(path, display) if data is None else data
            text = raw if isinstance(raw, Problem) else decode_text(raw, display)
            if isinstance(text, Problem):
                self._loaded[key] = ((), (text,))
            else:
                loaded = read_yaml(text, display)
                self._loaded[key] = (loaded.documents, loaded.problems)
        return self._loaded[key]

    def wants(self, data: bytes) -> bool:
        lowered = data.lower()
        return any(token in lowered for token in self.tokens)

    def worth_reading(self, data: bytes, system: System | None) -> bool:
        """Whether a file with these bytes may be a pipeline with something to read."""
        return self.wants(data) and (system is not None or bool(_TOP_LEVEL_HINT.search(data)))

    def read_apart(self, item: tuple[Path, System | None], data: bytes | None = None) -> Read:
        """``read`` that returns its problems and the other files it read, instead of
        keeping them (for another process, and for the cache)."""
        before, taken = len(self.problems), len(self.inputs)
        facts = self.read(*item, data=data)
        problems, inputs = self.problems[before:], tuple(self.inputs[taken:])
        del self.problems[before:], self.inputs[taken:]
        return Read(facts, problems, inputs)

    def read(
        self, path: Path, system: System | None, data: bytes | None = None
    ) -> PipelineFacts | None:
        """One file's facts; ``system`` None decides by content (None when not a pipeline).
        ``data`` is the file's bytes when the caller has read them already and found
        them ``worth_reading``.

        A file's problems are reported only once it is known to be a pipeline:
        an unreadable YAML file elsewhere in the repository is not detlint's business.
        """
        display = display_path(path, self.cwd)
        if data is None:
            read = read_bytes(path, display)
            if isinstance(read, Problem):
                if system is not None:
                    self.problems.append(read)
                return None
            if not self.worth_reading(read, system):
                return None
            data = read
        documents, problems = self.load(path, data)
        system = system_of(system, documents)
        if system is None:
            return None
        self.problems += problems
        if not documents:
            return None
        base = checkout_base(self.relative(path))
        from detlint.readers.ci.shell.exit_statuses import reading_scripts

        with reading_scripts(self._script_reader(base)):
            facts = with_service_retries(self._facts(display, system, documents, base))
        return dataclasses.replace(facts, base=base, shell=self._shell(facts))

    def _shell(self, facts: PipelineFacts) -> tuple[tuple[ScriptKey, CommandFacts], ...]:
        """Every script of the file's steps, read once per process however many repeat it.

        Reading the shell text is as costly as reading the YAML, so it is done here,
        where the file is read (in a worker process when there are many files)."""
        from detlint.readers.ci.shell.commands import read_script

        found: dict[ScriptKey, CommandFacts] = {}
        for step in facts.steps:
            for group in script_groups(step):
                key = script_key(group)
                if key not in found:
                    found[key] = read_script(*key)
                if found[key].too_deep:
                    self.problems.append(_too_deep(step.name, group))
        return tuple(found.items())

    def _facts(
        self, display: str, system: System, documents: tuple[YNode, ...], base: str
    ) -> PipelineFacts:
        if system == "buildkite":
            from detlint.readers.ci.buildkite.pipeline import read_buildkite

            return read_buildkite(documents, display)
        if system == "github":
            from detlint.readers.ci.github.workflow import read_github

            return read_github(documents, display)
        if system == "circleci":
            from detlint.readers.ci.circleci.config import read_circleci

            return read_circleci(documents, display)
        from detlint.readers.ci.gitlab.pipeline import read_gitlab

        shown_base = display_path(self.root / base, self.cwd)
        return read_gitlab(documents, display, self._local_loader(base), shown_base)

    def _script_reader(self, base: str) -> Callable[[str], str | None]:
        """The text of a script a step runs (for the exit status its tests fail with),
        from the checkout; a path outside it, or a file too large for a script, is None.
        Each file read is an input of the pipeline's facts, as an include is."""
        texts: dict[str, str | None] = {}  # each script once, however many steps run it

        def read(relative: str) -> str | None:
            if relative.startswith(("/", "$", "~", "../")):
                return None
            if relative not in texts:
                target = self.root / base / relative
                data = read_bytes(target, "", _MAX_SCRIPT_BYTES)
                self.inputs.append(Input(os.path.abspath(target), content_digest(data)))
                text = decode_text(data, "") if isinstance(data, bytes) else None
                texts[relative] = text if isinstance(text, str) else None
            return texts[relative]

        return read

    def _local_loader(self, base: str) -> Callable[[str], tuple[YNode, ...] | None]:
        def load(relative: str) -> tuple[YNode, ...] | None:
            target = self.root / base / relative.lstrip("/")
            data = read_bytes(target, "") if target.is_file() else None
            self.inputs.append(Input(os.path.abspath(target), content_digest(data)))
            if data is None:
                return None
            documents, problems = self.load(target, data if isinstance(data, bytes) else None)
            self.problems += problems
            return documents

        return load


def _too_deep(step: str, group: tuple[CiCommand, ...]) -> Problem:
    """DET901 for a script nested past the shell reader's depth limits: without it the
    step would read as running no tests, which detlint does not know."""
    first, last = group[0].span, group[-1].span
    span = Span(first.path, first.line, first.column, last.end_line, last.end_column)
    return Problem(
        span,
        f"the command of step {step!r} nests subshells, groups, substitutions or "
        "`bash -c` scripts deeper than detlint's shell reader follows: the commands "
        "inside them (tests, reruns, retries) are not read",
        help="detlint read the rest of the pipeline and the run went on; a command written "
        "with less nesting (or moved to a script file) is read",
    )
