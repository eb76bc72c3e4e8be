"""Every pipeline among a run's files, read into facts.

Files are taken by path, then by content (``pipeline_files.py``), each read by the
``PipelineReader`` (``pipeline_reader.py``) over the cores and through the facts
cache (``pipeline_reads.py``). GitLab pipelines are read first, since the files
they include are part of them and not pipelines of their own; files a Buildkite
step uploads are read whatever their name.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.gc_pause import cyclic_gc_paused
from detlint.base.paths import display_path
from detlint.base.span import Problem
from detlint.readers.ci.facts import PipelineFacts, System
from detlint.readers.ci.pipeline_files import (
    is_azure_pipeline,
    is_set_aside,
    is_test_data,
    is_yaml_name,
    linted_path,
    runs_nowhere,
    system_by_path,
)
from detlint.readers.ci.pipeline_reader import PipelineReader
from detlint.readers.ci.pipeline_reads import read_each

if TYPE_CHECKING:
    from detlint.base.facts_cache import FactsCache


@dataclass(frozen=True)
class PipelineRead:
    """Every pipeline file read in one run, and the files that could not be read.
    ``not_read`` are pipelines of systems detlint does not read (Azure Pipelines), as
    (path as displayed, system)."""

    pipelines: tuple[PipelineFacts, ...]
    problems: tuple[Problem, ...]
    files_seen: int
    not_read: tuple[tuple[str, str], ...] = ()


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


def _read_pipelines(
    files: Sequence[Path],
    root: Path,
    cwd: Path,
    extra_tokens: Iterable[bytes],
    jobs: int,
    cache: FactsCache | None,
) -> PipelineRead:
    reader = PipelineReader(root, cwd, extra_tokens)
    by_path, by_content, not_read = _candidates(reader, files, cwd)
    pipelines: list[PipelineFacts] = []
    done = _read_candidates(reader, by_path, by_content, jobs, cache, pipelines)
    _read_uploaded(reader, root, done, cache, pipelines)
    return PipelineRead(
        tuple(pipelines), tuple(dict.fromkeys(reader.problems)), len(files), tuple(not_read)
    )


def _candidates(
    reader: PipelineReader, files: Sequence[Path], cwd: Path
) -> tuple[list[tuple[Path, System]], list[Path], list[tuple[str, str]]]:
    """The YAML files that may be pipelines: those whose path names their system, those
    whose content must tell, and the Azure pipelines (not read, but listed as displayed).
    Files that run nowhere, test data and files set aside are none of them."""
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
    return by_path, by_content, not_read


def _read_candidates(
    reader: PipelineReader,
    by_path: list[tuple[Path, System]],
    by_content: list[Path],
    jobs: int,
    cache: FactsCache | None,
    pipelines: list[PipelineFacts],
) -> set[str]:
    """Read the candidate files into ``pipelines``, GitLab's first: the files a GitLab
    pipeline includes are part of it, not pipelines of their own, so they are not read
    again. Returns the absolute paths of every candidate."""
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
    return done


def _read_uploaded(
    reader: PipelineReader,
    root: Path,
    done: set[str],
    cache: FactsCache | None,
    pipelines: list[PipelineFacts],
) -> None:
    """Read into ``pipelines`` the files a Buildkite step uploads that are not in
    ``done``: they are pipelines whatever their name (generated, or kept outside the
    usual places), so the walk may not have reached them."""
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
