"""The string pre-check of the whole-tree listing never drops a file the readers take."""

from __future__ import annotations

from pathlib import Path

import pytest

from detlint.readers.dependencies.declarations import (
    is_dependency_file,
    may_name_dependency_file,
)
from detlint.readers.dependencies.listing import dependency_files

NAMES = [
    "pyproject.toml",
    "sub/setup.cfg",
    "setup.py",
    "Pipfile.lock",
    "pylock.toml",
    "pylock.dev.toml",
    "requirements.txt",
    "ci/Requirements-Dev.TXT",
    "requirements/base.txt",
    ".riot/requirements/1a2b3c.txt",
    "deps/dev.in",
    "MANIFEST.in",
    "config.h.in",
    "environment.yml",
    "ci/deps/py311.yaml",
    "conda-lock.yml",
    ".github/workflows/test.yml",
    "docs/notes.txt",
    "tests/test_x.py",
    "src/pkg/module.py",
    "README.md",
    "Makefile",
]


@pytest.mark.parametrize("name", NAMES)
def test_every_name_a_reader_takes_passes_the_string_check(name: str) -> None:
    root = Path("/repo")
    if is_dependency_file(root / name, root):
        assert may_name_dependency_file(name)


def test_the_string_check_drops_sources_and_docs() -> None:
    assert not may_name_dependency_file("tests/test_x.py")
    assert not may_name_dependency_file("README.md")
    assert may_name_dependency_file(".riot/requirements/1a2b3c.txt")


def test_listing_outside_git_finds_the_files_in_requirement_folders(tmp_path: Path) -> None:
    # No .git: the listing walks the tree and decides on every name.
    for name in ("requirements/base.txt", "ci/deps/py311.yaml", "docs/notes.txt", "t/test_a.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("pytest-rerunfailures==14.0\n")
    every = [str(path) for path in tmp_path.rglob("*") if path.is_file()]
    found = {p.relative_to(tmp_path).as_posix() for p in dependency_files(tmp_path, lambda: every)}
    assert "requirements/base.txt" in found
    assert "docs/notes.txt" not in found
    assert "t/test_a.py" not in found
