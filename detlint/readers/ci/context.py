"""The pipelines a run on some files reads as context.

A pre-commit hook or ``detlint check tests/`` lints a few test files, yet a job
that retries them stacks on their markers (DET501). So such a run also reads
the pipelines of the whole repository, whatever the working directory (only
those that can retry a job or hand control to one); the engine then reports only
what involves the files it linted.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.source import read_bytes
from detlint.readers.ci import YAML_SUFFIXES

if TYPE_CHECKING:
    from detlint.base.facts_cache import FactsCache
    from detlint.readers.ci.facts import PipelineFacts


def covers_tree(paths: Sequence[Path], root: Path, cwd: Path) -> bool:
    """Whether the paths given already hold every file of the repository: then the run
    has read every pipeline there is, and there is no context to add.

    The context is the whole repository whatever the working directory, so that
    ``cd tests && detlint check`` reports what ``detlint check tests`` does from the
    root, as ruff finds its config from wherever it runs.
    """
    top = Path(os.path.abspath(root))
    for path in paths or [cwd]:
        absolute = Path(os.path.abspath(cwd / path))
        if absolute.is_dir() and top.is_relative_to(absolute):
            return True
    return False


def context_pipelines(
    files: Sequence[str],
    linted: set[Path],
    root: Path,
    cwd: Path,
    jobs: int,
    cache: FactsCache | None,
) -> tuple[PipelineFacts, ...]:
    """The pipelines of the repository (found from the paths, never from the working
    directory), read for a run on files that include none.

    Problems in them are not the run's business: a broken pipeline is reported
    when it is linted itself, not on every commit that touches a test.
    """
    from detlint.readers.ci.pipelines import read_pipelines

    top = os.path.abspath(root)
    below = top.rstrip(os.sep) + os.sep
    linted_names = {str(path) for path in linted}
    candidates = [
        path
        for name in files
        if name.lower().endswith(YAML_SUFFIXES)
        and name not in linted_names
        and (name == top or name.startswith(below))
        and _may_retry(path := Path(name))
    ]
    if not candidates:
        return ()
    return read_pipelines(candidates, root, cwd, jobs=jobs, cache=cache).pipelines


# What a context pipeline can add to a run on test files is a job retry stacked on a
# marker (DET501): only files that can hold one, or hand control to one, are read.
_CONTEXT_TOKENS = (b"retry", b"include", b"pipeline upload", b"extends")


def _may_retry(path: Path) -> bool:
    data = read_bytes(path, path.name)
    return isinstance(data, bytes) and any(token in data for token in _CONTEXT_TOKENS)
