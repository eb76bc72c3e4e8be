"""``--corpus DIR``: the tree as a copy of every ``*.py`` file under DIR.

Real test suites with real xfail/skip markers instead of the synthetic tree: which
files are copied, the copy itself, and its facts (candidates judged by detlint's
prefilter, the one-file targets picked by size).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from prefilter import prefilter_words
from tree_facts import TreeFacts, git_commit

CORPUS_VERSION = 1  # bump when the corpus copy or its facts change
CORPUS_MAX_FILE_BYTES = 2_000_000  # --corpus skips larger files (generated tables, vendored blobs)
CORPUS_SKIP_DIRS = frozenset({"__pycache__", ".git"})  # never copied: caches, and git's own


def corpus_files(corpus: Path, skip: Path) -> list[tuple[str, int]]:
    """The ``*.py`` files under ``corpus`` to copy, as sorted (relative path, size) pairs.

    Files over CORPUS_MAX_FILE_BYTES, anything under a CORPUS_SKIP_DIRS directory
    (``__pycache__``, and ``.git``, which git would refuse to add) and the tree
    ``skip`` itself are left out. Symbolic links to directories are not followed;
    a link to a file is copied as the file it points to.
    """
    found: list[tuple[str, int]] = []
    for directory, dirnames, filenames in os.walk(corpus):
        here = Path(directory)
        dirnames[:] = sorted(
            name for name in dirnames if name not in CORPUS_SKIP_DIRS and here / name != skip
        )
        for name in filenames:
            if not name.endswith(".py"):
                continue
            try:
                info = os.stat(here / name)
            except OSError:  # a broken symbolic link
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size <= CORPUS_MAX_FILE_BYTES:
                found.append(((here / name).relative_to(corpus).as_posix(), info.st_size))
    return sorted(found)


def _is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.startswith("test_") and name.endswith(".py")


def _median_by_size(paths: list[str], sizes: dict[str, int]) -> str | None:
    """The median-sized path (ties broken by path), or None for an empty list."""
    ordered = sorted(paths, key=lambda path: (sizes[path], path))
    return ordered[len(ordered) // 2] if ordered else None


def copy_corpus(root: Path, corpus: Path, files: list[tuple[str, int]]) -> TreeFacts:
    """Copy ``files`` from ``corpus`` into ``root`` (which must be empty) and commit them.

    The one-file targets are picked by bytes, deterministically: the median-sized
    ``test_*.py`` file holding no prefilter word (not even with DET301's trial loops),
    and the median-sized ``test_*.py`` file holding ``mark.xfail`` or ``mark.flaky``.
    """
    sizes: dict[str, int] = {}
    tests = candidates = candidate_tests = conftests = 0
    plain: list[str] = []
    marked: dict[str, str] = {}
    for rel, _ in files:
        data = (corpus / rel).read_bytes()
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        sizes[rel] = len(data)
        is_candidate = bool(prefilter_words(data, trials=False))  # what a default run parses
        candidates += is_candidate
        conftests += rel.rsplit("/", 1)[-1] == "conftest.py"
        if not _is_test_file(rel):
            continue
        tests += 1
        candidate_tests += is_candidate
        if not prefilter_words(data, trials=True):
            plain.append(rel)
        kinds = [kind for kind in ("xfail", "flaky") if f"mark.{kind}".encode() in data]
        if kinds:
            marked[rel] = " and ".join(kinds)
    git_commit(root, f"Copy of the *.py files under {corpus}")
    with_marker = _median_by_size(list(marked), sizes)
    return TreeFacts(
        root=str(root),
        python_files=len(files),
        python_bytes=sum(sizes.values()),
        test_files=tests,
        candidate_files=candidate_tests,
        file_no_candidates=_median_by_size(plain, sizes),
        file_with_marker=with_marker,
        conftest_files=conftests,
        corpus=str(corpus),
        corpus_candidate_files=candidates,
        marker=marked[with_marker] if with_marker is not None else "flaky",
    )
