"""What every measured tree shares, however it was built: its facts and its commit.

The synthetic generator (``synthetic/``) and the corpus copy (``corpus.py``) both
commit the tree they write and return its TreeFacts; the manifest stores them, and
the measurement and the report read them.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class TreeFacts:
    """What the tree holds; stored in the manifest and printed with the table.

    For a synthetic tree every field comes from the generator. For a ``--corpus``
    copy, ``corpus`` names the source, the generator-only fields (``seed``,
    ``helper_files``, ``skipif_files``, ``no_knob_files``) are None, test files are
    the ``test_*.py`` files, and candidates are judged by ``prefilter_words``.
    """

    root: str
    python_files: int
    python_bytes: int
    test_files: int
    candidate_files: int  # test files that hold a knob (synthetic) / a prefilter word (corpus)
    file_no_candidates: str | None  # None: no such file, the one-file row is skipped
    file_with_marker: str | None
    conftest_files: int = 0
    seed: int | None = None
    helper_files: int | None = None
    skipif_files: int | None = None
    no_knob_files: int | None = None
    corpus: str | None = None
    corpus_candidate_files: int | None = None  # every file with a prefilter word, not only tests
    marker: str = "flaky"  # the marker ``file_with_marker`` holds: flaky, xfail or both
    # --pipelines: the YAML files added (pipelines, templates and other YAML), their bytes,
    # files per PIPELINE_KINDS kind, and the pipelines and templates holding a CI knob.
    pipeline_files: int = 0
    pipeline_bytes: int = 0
    pipeline_kinds: dict[str, int] | None = None
    ci_knob_files: int = 0
    # What `detlint check <pipeline dirs>` is given (tree-relative), and the YAML files
    # under it; None when the tree has no pipelines.
    pipeline_targets: list[str] | None = None
    pipeline_target_files: int = 0


def git_commit(root: Path, message: str) -> None:
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    git += ["-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", message]):
        subprocess.run([*git, *args], cwd=root, env=env, check=True, stdin=subprocess.DEVNULL)
