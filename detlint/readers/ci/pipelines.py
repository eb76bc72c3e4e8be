"""Which files are pipelines, and reading each into ``PipelineFacts``.

Small repositories keep CI in the well-known places (``.buildkite/``,
``.github/workflows/``, ``.gitlab-ci.yml``); large ones keep pipeline files and
templates anywhere (a ``buildkite/`` folder, ``ci/``, generator inputs). So a
file is a pipeline by its path, or by its content: a YAML (or templated YAML)
file whose top level has ``steps:`` with command steps, ``jobs:`` with steps,
or jobs with ``script:``.

A repository can hold hundreds of YAML files, most of them not pipelines or
pipelines without a knob, so every file passes a byte prefilter first: it is
parsed only when it holds a token a knob or a test run needs.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.gc_pause import cyclic_gc_paused
from detlint.base.source import decode_text, read_bytes
from detlint.base.span import Problem, display_path
from detlint.readers.ci import YAML_SUFFIXES
from detlint.readers.ci.facts import PipelineFacts, ScriptKey, System, script_groups, script_key
from detlint.readers.ci.pipeline_reads import Input, Read, content_digest, read_each
from detlint.readers.yaml.tree import YMap, YNode, YSeq

if TYPE_CHECKING:
    from detlint.base.facts_cache import FactsCache
    from detlint.readers.ci.shell.commands import CommandFacts

# A pipeline is read only if its lowercased bytes hold one of these: a knob, a
# test run (whose flags, variables and shell matter), or a command that can
# hide a failure.
KNOB_TOKENS = (
    b"pytest",
    b"tox",
    b".sh",  # a script the step calls may run pytest
    b"make",  # and so may a make target
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
    b"upload",
    b"include",
    b"extends",
)


@dataclass(frozen=True)
class PipelineRead:
    """Every pipeline file read in one run, and the files that could not be read.
    ``not_read`` are pipelines of systems detlint does not read (Azure Pipelines), as
    (path as displayed, system)."""

    pipelines: tuple[PipelineFacts, ...]
    problems: tuple[Problem, ...]
    files_seen: int
    not_read: tuple[tuple[str, str], ...] = ()


def _posix(relative: str) -> str:
    return relative.replace(os.sep, "/")


def system_by_path(relative: str) -> System | None:
    """The CI system a file belongs to by where it is, or None to decide by content."""
    path = _posix(relative)
    name = path.rsplit("/", 1)[-1]
    if name in (".gitlab-ci.yml", ".gitlab-ci.yaml"):
        return "gitlab"
    if "/.github/workflows/" in f"/{path}" or name in ("action.yml", "action.yaml"):
        return "github"
    if "/.buildkite/" in f"/{path}" or (
        name.startswith(("buildkite.", "pipeline")) and name.endswith(YAML_SUFFIXES)
    ):
        return "buildkite"
    return None


_AZURE_NAME = re.compile(r"(?:^|[-_.])azure[-_.]?pipelines?(?:[-_.]|$)|^azure[-_.]")
_AZURE_STEP_KEYS = frozenset({"script", "bash", "pwsh", "powershell", "task", "checkout"})


def is_azure_pipeline(relative: str) -> bool:
    """Whether a file is an Azure Pipelines definition by where it is: named
    ``azure-pipelines*.yml``, or in an ``azure``/``.azure-pipelines`` directory
    (``buildscripts/azure/azure-windows.yml``). Azure is a system of its own, which
    detlint does not read: its ``steps:`` list must not be taken for Buildkite's."""
    parts = _posix(relative).lower().split("/")
    if any(
        part in ("azure", ".azure", ".azure-pipelines", "azure-pipelines") for part in parts[:-1]
    ):
        return True
    return _AZURE_NAME.search(parts[-1]) is not None


def _azure_steps(steps: YSeq) -> bool:
    """Whether a ``steps:`` list is Azure's (``- script:``, ``- task:``...), with no
    Buildkite ``command``."""
    maps = [item for item in steps if isinstance(item, YMap)]
    return bool(maps) and all(
        any(key in item for key in _AZURE_STEP_KEYS)
        and "command" not in item
        and "commands" not in item
        for item in maps
    )


def runs_nowhere(relative: str) -> bool:
    """Whether a file is a GitHub workflow of a project nested below the one linted.

    GitHub runs only the workflows in the repository's own ``.github/workflows/``;
    a vendored or nested project's (``external-deps/kernels/.github/workflows/``)
    are text, and reading them would report knobs no build has. ``relative`` is
    relative to the directory linted (``linted_path``), so one project of several
    can be linted on its own.
    """
    path = _posix(relative)
    return "/.github/workflows/" in f"/{path}" and checkout_base(path) != ""


_DATA_DIRECTORIES = frozenset({"fixtures", "testdata", "test_data", "test-data"})
_TEST_DIRECTORIES = frozenset({"test", "tests", "testing"})


def is_test_data(relative: str) -> bool:
    """Whether a YAML file is data a test reads, not a pipeline any CI runs: under
    ``fixtures/`` or ``testdata/``, under a ``data/`` directory of a test tree
    (``test/single/data/expected_pipeline.yaml``, a generator's stored output), or
    named ``expected_*``. ``relative`` is relative to the directory linted
    (``linted_path``), so a fixture repository linted on its own is read."""
    parts = _posix(relative).split("/")
    directories, name = parts[:-1], parts[-1]
    if name.startswith("expected_") or not _DATA_DIRECTORIES.isdisjoint(directories):
        return True
    return any(
        part == "data" and not _TEST_DIRECTORIES.isdisjoint(directories[:index])
        for index, part in enumerate(directories)
    )


_SET_ASIDE = frozenset(
    {"excluded", "disabled", "deprecated", "archive", "archived", "unused", "obsolete"}
)


def is_set_aside(relative: str) -> bool:
    """Whether a pipeline file sits in a directory its project keeps out of CI
    (``.buildkite/excluded/``, ``ci/disabled/``): uploaders pick the directories they
    read by name, and these names say the files are kept, not run."""
    return not _SET_ASIDE.isdisjoint(_posix(relative).split("/")[:-1])


def checkout_base(relative: str) -> str:
    """The directory a pipeline's commands start in, relative to detlint's root.

    A repository vendored or nested in another (a fixture, a monorepo of
    repositories) keeps its own ``.buildkite/``, ``.github/`` or
    ``.gitlab-ci.yml``, and its steps run from the directory that holds them.
    """
    parts = _posix(relative).split("/")
    for index in range(len(parts) - 2, -1, -1):
        if parts[index] in (".buildkite", ".github"):
            return "/".join(parts[:index])
    if parts[-1] in (".gitlab-ci.yml", ".gitlab-ci.yaml"):
        return "/".join(parts[:-1])
    return ""


def is_yaml_name(name: str) -> bool:
    return name.lower().endswith(YAML_SUFFIXES)


def system_by_content(documents: Sequence[YNode]) -> System | None:
    """The system by the top level: Buildkite ``steps:``, GitHub ``jobs:``, GitLab ``script:``."""
    for document in documents:
        if isinstance(document, YSeq) and any(
            isinstance(item, YMap) and ("command" in item or "commands" in item)
            for item in document
        ):
            return "buildkite"
        if not isinstance(document, YMap):
            continue
        steps = document.get("steps")
        if isinstance(steps, YSeq):
            return None if _azure_steps(steps) else "buildkite"
        jobs = document.get("jobs")
        if isinstance(jobs, YMap) and any(
            isinstance(job, YMap) and ("steps" in job or "uses" in job) for _, job in jobs.items
        ):
            return "github"
        if any(
            isinstance(value, YMap) and ("script" in value or "extends" in value)
            for _, value in document.items
        ):
            return "gitlab"
    return None


# What a pipeline's top level looks like, as bytes: only a file that matches is
# parsed to decide by content (most YAML in a repository is not CI).
_TOP_LEVEL_HINT = re.compile(
    rb"^(?:steps|jobs|commands?)[ \t]*:"
    rb"|^-[ \t]+(?:command|commands|label|group|wait|block|trigger)\b"
    rb"|^[ \t]+(?:script|extends)[ \t]*:",
    re.M,
)


class PipelineReader:
    """Reads the pipeline files of one run; each file is read and parsed at most once."""

    def __init__(self, root: Path, cwd: Path, extra_tokens: Iterable[bytes] = ()) -> None:
        self.root = root
        self.cwd = cwd
        self.tokens = KNOB_TOKENS + tuple(t.lower() for t in extra_tokens)
        self.problems: list[Problem] = []
        self._loaded: dict[str, tuple[tuple[YNode, ...], tuple[Problem, ...]]] = {}
        self._scripts: dict[ScriptKey, CommandFacts] = {}
        # Every file a read took in besides its own (a GitLab include), with the digest
        # of the bytes read ("" when absent or unreadable): what a cache entry rests on.
        self.inputs: list[Input] = []

    def relative(self, path: Path) -> str:
        return _posix(os.path.relpath(os.path.abspath(path), self.root))

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
        if system is None:
            system = system_by_content(documents)
            if system is None:
                return None
        self.problems += problems
        if not documents:
            return None
        base = checkout_base(self.relative(path))
        facts = self._facts(display, system, documents, base)
        return dataclasses.replace(facts, base=base, shell=self._shell(facts))

    def _shell(self, facts: PipelineFacts) -> tuple[tuple[ScriptKey, CommandFacts], ...]:
        """Every script of the file's steps, read once per process however many repeat it.

        Reading the shell text is as costly as reading the YAML, so it is done here,
        where the file is read (in a worker process when there are many files)."""
        from detlint.readers.ci.shell.commands import read_command

        found: dict[ScriptKey, CommandFacts] = {}
        for step in facts.steps:
            for group in script_groups(step):
                key = script_key(group)
                if key not in found:
                    command = self._scripts.get(key)
                    if command is None:
                        text, errexit, pipefail = key
                        command = read_command(text, errexit=errexit, pipefail=pipefail)
                        self._scripts[key] = command
                    found[key] = command
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
        from detlint.readers.ci.gitlab.pipeline import read_gitlab

        shown_base = display_path(self.root / base, self.cwd)
        return read_gitlab(documents, display, self._local_loader(base), shown_base)

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


def read_pipelines(
    files: Sequence[Path],
    root: Path,
    cwd: Path,
    extra_tokens: Iterable[bytes] = (),
    jobs: int = 1,
    cache: FactsCache | None = None,
) -> PipelineRead:
    """Every pipeline among ``files`` (by path, then by content), read into facts.

    Files a GitLab pipeline includes are read as part of it, not on their own.
    With a ``cache``, a file read before with the same bytes is not read again.
    """
    if cache is not None:
        cache.prepare()
    with cyclic_gc_paused():  # here and in the worker processes forked inside
        return _read_pipelines(files, root, cwd, extra_tokens, jobs, cache)


def linted_path(relative: str, start: str) -> str:
    """``relative`` (to the root) as seen from ``start``, the directory detlint runs
    from, when it is below it; else as it is."""
    if start in ("", ".") or not relative.startswith(start + "/"):
        return relative
    return relative[len(start) + 1 :]


def _read_pipelines(
    files: Sequence[Path],
    root: Path,
    cwd: Path,
    extra_tokens: Iterable[bytes],
    jobs: int,
    cache: FactsCache | None,
) -> PipelineRead:
    reader = PipelineReader(root, cwd, extra_tokens)
    start = reader.relative(cwd)
    by_path: list[tuple[Path, System]] = []
    by_content: list[Path] = []
    not_read: list[tuple[str, str]] = []
    for path in files:
        name = path.name
        if not is_yaml_name(name):
            continue
        relative = reader.relative(path)
        linted = linted_path(relative, start)
        if runs_nowhere(linted) or is_test_data(linted) or is_set_aside(linted):
            continue
        if is_azure_pipeline(linted):
            not_read.append((display_path(path, cwd), "azure-pipelines"))
            continue
        system = system_by_path(relative)
        if system is not None:
            by_path.append((path, system))
        else:
            by_content.append(path)
    # GitLab first, here: the files it includes are part of it, not pipelines of their own.
    pipelines: list[PipelineFacts] = []
    included: set[str] = set()
    done: set[str] = set()
    gitlab = [(path, system) for path, system in by_path if system == "gitlab"]
    done |= {os.path.abspath(path) for path, _ in gitlab}
    for facts, problems, _ in read_each(reader, gitlab, 1, cache):
        reader.problems += problems
        if facts is not None:
            pipelines.append(facts)
            included |= {
                os.path.normpath(os.path.join(facts.base, r.lstrip("/"))) for r in facts.references
            }
    rest: list[tuple[Path, System | None]] = [item for item in by_path if item[1] != "gitlab"]
    rest += [
        (path, None)
        for path in by_content
        if os.path.normpath(reader.relative(path)) not in included
    ]
    done |= {os.path.abspath(path) for path in by_content} | {os.path.abspath(p) for p, _ in rest}
    for facts, problems, _ in read_each(reader, rest, jobs, cache):
        reader.problems += problems
        if facts is not None:
            pipelines.append(facts)
    # Files a Buildkite step uploads are pipelines whatever their name (generated,
    # or kept outside the usual places); read the ones the walk did not reach.
    for facts in list(pipelines):
        if facts.system != "buildkite":
            continue
        for reference in facts.references:
            target = os.path.abspath(root / facts.base / reference.lstrip("/"))
            if target not in done and os.path.isfile(target):
                done.add(target)
                ((uploaded, problems, _),) = read_each(
                    reader, [(Path(target), "buildkite")], 1, cache
                )
                reader.problems += problems
                if uploaded is not None:
                    pipelines.append(uploaded)
    return PipelineRead(
        tuple(pipelines), tuple(dict.fromkeys(reader.problems)), len(files), tuple(not_read)
    )
