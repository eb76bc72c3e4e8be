"""Discovery: which files are linted, where the root is, and what becomes a Problem.

Every tree is built in ``tmp_path``. The suite runs as root, for whom ``chmod 000``
does not stop ``scandir``, so an unreadable directory is simulated by making
``os.scandir`` raise PermissionError for it.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detlint.base.git_command import git_command
from detlint.base.span import Problem, Span
from detlint.readers.project import discovery as discover_module
from detlint.readers.project.discovery import (
    Discovery,
    clear_cache,
    discover,
    find_root,
    repository_files,
)
from detlint.readers.project.exclusions import DEFAULT_EXCLUDES

# Variables a git hook sets; the helper must create repositories in tmp_path only.
_GIT_ENV = {
    k: v
    for k, v in os.environ.items()
    if k not in {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX"}
}


def make(root: Path, *names: str) -> None:
    """Create files (and their directories) under root; a name ending in "/" is a directory."""
    for name in names:
        path = root / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {name}\n")


def rel(discovery_or_files: Discovery | tuple[Path | str, ...], root: Path) -> list[str]:
    files = (
        discovery_or_files.files
        if isinstance(discovery_or_files, Discovery)
        else discovery_or_files
    )
    return [Path(f).relative_to(root).as_posix() for f in files]


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, env=_GIT_ENV, timeout=60
    )


# -- what is walked -----------------------------------------------------------------------------


def _excluded_dir(pattern: str) -> str:
    return pattern.replace("*", "detlint")


@pytest.mark.parametrize("excluded", DEFAULT_EXCLUDES)
def test_default_excludes_are_not_walked_at_any_depth(tmp_path, excluded):
    name = _excluded_dir(excluded)
    make(tmp_path, "tests/test_a.py", f"{name}/test_top.py", f"src/pkg/{name}/conftest.py")
    assert rel(discover([], tmp_path), tmp_path) == ["tests/test_a.py"]


def test_default_excludes_are_directory_names_only(tmp_path):
    # Hidden directories holding CI config must be walked; a *file* called "build" is linted.
    make(tmp_path, ".github/workflows/ci.yml", ".buildkite/pipeline.yml", "build", "dist.py")
    assert rel(discover([], tmp_path), tmp_path) == [
        ".buildkite/pipeline.yml",
        ".github/workflows/ci.yml",
        "build",
        "dist.py",
    ]


def test_user_exclude_globs(tmp_path):
    make(
        tmp_path,
        "tests/test_a.py",
        "tests/fixtures/test_f.py",
        "other/fixtures/conftest.py",
        "tests/data/one/x.py",
        "tests/data_keep.py",
        "src/api_generated.py",
        "vendor/lib/setup.cfg",
    )
    found = discover(
        [],
        tmp_path,
        exclude=["fixtures", "tests/data/*", "*_generated.py", "./vendor/"],
    )
    assert rel(found, tmp_path) == ["tests/data_keep.py", "tests/test_a.py"]


def test_explicit_file_in_excluded_or_matching_dir_is_always_included(tmp_path):
    make(tmp_path, "build/test_b.py", "node_modules/pkg/conftest.py", "gen_x.py", "test_a.py")
    found = discover(
        [Path("build/test_b.py"), tmp_path / "node_modules/pkg/conftest.py", Path("gen_x.py")],
        tmp_path,
        exclude=["gen_*"],
    )
    assert rel(found, tmp_path) == ["build/test_b.py", "gen_x.py", "node_modules/pkg/conftest.py"]
    assert found.problems == ()


def test_explicit_excluded_directory_is_walked_but_its_children_are_filtered(tmp_path):
    make(tmp_path, "build/test_b.py", "build/__pycache__/x.py", "build/sub/build/y.py", "a.py")
    assert rel(discover([tmp_path / "build"], tmp_path), tmp_path) == ["build/test_b.py"]


def test_files_are_absolute_sorted_unique_and_relative_to_the_given_cwd(tmp_path, monkeypatch):
    make(tmp_path, "pkg/b.py", "pkg/a.py", "pkg/a/z.py", "pkg/a-b.py")
    monkeypatch.chdir("/")  # relative paths must be taken from cwd=, not the process
    found = discover([Path("pkg"), Path("pkg/a.py"), Path("pkg/../pkg")], tmp_path)
    assert all(f.is_absolute() for f in found.files)
    assert list(found.files) == sorted(set(found.files))
    assert rel(found, tmp_path) == ["pkg/a/z.py", "pkg/a-b.py", "pkg/a.py", "pkg/b.py"]


def test_empty_paths_mean_cwd(tmp_path):
    make(tmp_path, "sub/test_a.py", "test_b.py")
    assert discover([], tmp_path / "sub").files == (tmp_path / "sub/test_a.py",)


def test_discovery_is_frozen(tmp_path):
    found = discover([], tmp_path)
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.root = tmp_path  # type: ignore[misc]


# -- problems -----------------------------------------------------------------------------------


def test_named_missing_paths_are_problems_and_walked_broken_symlinks_are_passed_over(tmp_path):
    make(tmp_path, "pkg/test_good.py", "other.py")
    (tmp_path / "pkg/dangling.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "explicit_link.py").symlink_to("missing-target.py")
    found = discover(
        [Path("missing.py"), Path("pkg"), Path("explicit_link.py"), Path("other.py")], tmp_path
    )
    assert rel(found, tmp_path) == ["other.py", "pkg/test_good.py"]
    assert found.problems == (
        Problem(Span.file("explicit_link.py"), "path does not exist (broken symbolic link)"),
        Problem(Span.file("missing.py"), "path does not exist"),
    )


def test_problem_paths_are_displayed_relative_to_cwd(tmp_path):
    make(tmp_path, "repo/a.py")
    found = discover([Path("nope.py"), tmp_path / "elsewhere.py"], tmp_path / "repo")
    assert [p.span.path for p in found.problems] == ["../elsewhere.py", "nope.py"]


def test_symlink_loops_terminate_and_symlinked_directories_are_not_followed(tmp_path):
    make(tmp_path, "a/test_a.py", "b/test_b.py", "c/real.py")
    (tmp_path / "a/up").symlink_to(tmp_path)  # loop to an ancestor
    (tmp_path / "a/to_b").symlink_to(tmp_path / "b")  # mutual loop a <-> b
    (tmp_path / "b/to_a").symlink_to(tmp_path / "a")
    (tmp_path / "a/self").symlink_to(tmp_path / "a/self")  # points at itself
    (tmp_path / "a/linked.py").symlink_to(tmp_path / "c/real.py")  # a file link is a file
    found = discover([], tmp_path)
    assert rel(found, tmp_path) == ["a/linked.py", "a/test_a.py", "b/test_b.py", "c/real.py"]
    assert found.problems == (
        Problem(Span.file("a/self"), "cannot read: too many levels of symbolic links"),
    )


def test_explicit_symlinked_directory_is_walked_under_its_own_name(tmp_path):
    make(tmp_path, "real/test_a.py")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "real/back").symlink_to(tmp_path / "link")
    assert rel(discover([Path("link")], tmp_path), tmp_path) == ["link/test_a.py"]


def test_unreadable_directory_is_a_problem_and_siblings_are_found(tmp_path, monkeypatch):
    # chmod 000 does not stop root, so the PermissionError is simulated.
    make(tmp_path, "locked/test_x.py", "open/test_y.py")
    real_scandir = os.scandir

    def scandir(path):
        if Path(path) == tmp_path / "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = discover([], tmp_path)
    assert rel(found, tmp_path) == ["open/test_y.py"]
    assert found.problems == (
        Problem(Span.file("locked"), "cannot read directory: permission denied"),
    )


def test_fifo_is_skipped_when_walking_and_a_problem_when_named(tmp_path):
    make(tmp_path, "test_a.py")
    os.mkfifo(tmp_path / "pipe.py")
    assert discover([], tmp_path).files == (tmp_path / "test_a.py",)
    assert discover([Path("pipe.py")], tmp_path).problems == (
        Problem(Span.file("pipe.py"), "not a regular file or directory; skipped"),
    )


# -- git ----------------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path):
    """A git work tree with ignored, untracked, tracked-but-ignored and nested-ignore files."""
    git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("ignored/\n*.log\n")
    make(
        tmp_path,
        "tests/test_a.py",
        "tests/.gitignore",
        "ignored/test_b.py",
        "ignored/deep/conftest.py",
        "run.log",
        "forced.log",
        "untracked.py",
        "tests/local_only.py",
    )
    (tmp_path / "tests/.gitignore").write_text("local_only.py\n")
    git(tmp_path, "add", ".gitignore", "tests")
    git(tmp_path, "add", "-f", "forced.log")  # tracked although ignored: part of the repo
    return tmp_path


def test_gitignored_files_are_dropped(repo):
    assert rel(discover([], repo), repo) == [
        ".gitignore",
        "forced.log",
        "tests/.gitignore",
        "tests/test_a.py",
        "untracked.py",
    ]


def test_gitignored_files_are_kept_without_respect_gitignore(repo):
    assert rel(discover([], repo, respect_gitignore=False), repo) == [
        ".gitignore",
        "forced.log",
        "ignored/deep/conftest.py",
        "ignored/test_b.py",
        "run.log",
        "tests/.gitignore",
        "tests/local_only.py",
        "tests/test_a.py",
        "untracked.py",
    ]


def test_gitignore_applies_when_walking_a_subdirectory(repo):
    found = discover([Path(".")], repo / "tests")
    assert found.root == repo
    assert rel(found, repo) == ["tests/.gitignore", "tests/test_a.py"]


def test_explicit_ignored_file_and_wholly_ignored_directory_are_included(repo):
    found = discover([repo / "run.log", repo / "ignored"], repo)
    assert rel(found, repo) == ["ignored/deep/conftest.py", "ignored/test_b.py", "run.log"]


def test_nested_repository_is_vendored_by_default_and_kept_whole_when_read(repo):
    make(repo, "nested/test_n.py", "nested/sub/conftest.py")
    git(repo / "nested", "init", "-q")
    found = discover([], repo)
    assert not {"nested/test_n.py", "nested/sub/conftest.py"} & set(rel(found, repo))
    assert found.vendored == ("nested",)
    read = discover([], repo, vendored=())
    assert {"nested/test_n.py", "nested/sub/conftest.py"} <= set(rel(read, repo))


def test_git_runs_once_and_only_when_a_directory_is_walked(repo, monkeypatch):
    calls: list[list[str]] = []
    real_run = subprocess.run

    def counting_run(command, *args, **kwargs):
        calls.append(list(command))
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counting_run)
    discover([repo / "tests/test_a.py", repo / "run.log"], repo)
    assert calls == []
    found = discover([repo / "tests", repo, repo / "ignored"], repo)
    assert calls == [git_command("ls-files", "-z", "--cached", "--others", "--exclude-standard")]
    assert "run.log" not in rel(found, repo)


@pytest.mark.parametrize(
    "failure",
    [
        FileNotFoundError(2, "No such file or directory: 'git'"),
        subprocess.TimeoutExpired("git", 20),
    ],
    ids=["git-missing", "git-timeout"],
)
def test_git_failure_falls_back_to_walking(repo, monkeypatch, failure):
    def broken_run(*args, **kwargs):
        raise failure

    monkeypatch.setattr(subprocess, "run", broken_run)
    found = discover([], repo)
    assert "ignored/test_b.py" in rel(found, repo)
    assert found.problems == ()


def test_bogus_git_directory_falls_back_to_walking(tmp_path):
    make(tmp_path, ".git/", "a.py")
    (tmp_path / ".gitignore").write_text("a.py\n")
    found = discover([], tmp_path)
    assert found.root == tmp_path
    assert rel(found, tmp_path) == [".gitignore", "a.py"]


# -- find_root ----------------------------------------------------------------------------------


def test_find_root_prefers_git_over_a_nearer_project_file(tmp_path):
    make(tmp_path, ".git/", "packages/lib/pyproject.toml", "packages/lib/tests/test_a.py")
    assert find_root([tmp_path / "packages/lib/tests/test_a.py"]) == tmp_path


def test_find_root_git_file_of_a_worktree_counts(tmp_path):
    make(tmp_path, "outer/.git/", "outer/wt/.git", "outer/wt/tests/test_a.py")
    assert find_root([tmp_path / "outer/wt/tests"]) == tmp_path / "outer/wt"


@pytest.mark.parametrize(
    "marker", ["pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini"]
)
def test_find_root_nearest_project_marker_without_git(tmp_path, marker):
    make(tmp_path, "pyproject.toml", f"proj/{marker}", "proj/tests/unit/test_a.py")
    assert find_root([tmp_path / "proj/tests/unit/test_a.py"]) == tmp_path / "proj"


def test_find_root_common_directory_of_several_paths(tmp_path):
    make(tmp_path, "proj/a/x/test_1.py", "proj/a/y/test_2.py")
    paths = [tmp_path / "proj/a/x/test_1.py", tmp_path / "proj/a/y"]
    assert find_root(paths) == tmp_path / "proj/a"


def test_find_root_of_nonexistent_path_uses_its_directory(tmp_path):
    make(tmp_path, "proj/setup.py", "proj/src/")
    assert find_root([tmp_path / "proj/src/missing.py"]) == tmp_path / "proj"


def test_find_root_is_not_resolved_through_symlinks(tmp_path):
    make(tmp_path, "real/pyproject.toml", "real/t.py")
    (tmp_path / "view").symlink_to(tmp_path / "real")
    assert find_root([tmp_path / "view/t.py"]) == tmp_path / "view"
    assert discover([Path("view/t.py")], tmp_path).root == tmp_path / "view"


# -- repository_files ---------------------------------------------------------------------------


def test_repository_files_uses_the_same_rules_and_ignores_the_linted_subset(repo):
    make(repo, ".venv/lib/site.py", "docs/conf.py")
    files = repository_files(repo, exclude=["docs"])
    assert rel(files, repo) == [
        ".gitignore",
        "forced.log",
        "tests/.gitignore",
        "tests/test_a.py",
        "untracked.py",
    ]
    assert "ignored/test_b.py" in rel(repository_files(repo, respect_gitignore=False), repo)


def test_repository_files_is_cached_until_cleared(tmp_path):
    make(tmp_path, "a.py")
    first = repository_files(tmp_path, exclude=["x"])
    make(tmp_path, "b.py")
    assert repository_files(tmp_path, exclude=("x",)) is first  # list or tuple: same entry
    clear_cache()
    assert rel(repository_files(tmp_path, exclude=["x"]), tmp_path) == ["a.py", "b.py"]


def test_repository_files_of_missing_root_is_empty(tmp_path):
    assert repository_files(tmp_path / "missing") == ()


def test_discovery_imports_nothing_heavy():
    code = (
        "import sys, detlint.readers.project.discovery, detlint.base.source; "
        "print(sorted(m for m in ('scipy', 'libcst', 'ruamel') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"
    assert discover_module.__name__ == "detlint.readers.project.discovery"


@given(
    st.lists(
        st.lists(
            st.text(alphabet="ab.-_ Z0~", min_size=1, max_size=3).filter(
                lambda name: name not in (".", "..")
            ),
            min_size=1,
            max_size=4,
        ),
        max_size=30,
    )
)
def test_listing_order_is_pathlibs(parts: list[list[str]]) -> None:
    """The listing's sort key orders paths as comparing their Path objects does."""
    from detlint.readers.project.tree_walk import path_order as _path_order

    paths = [os.path.join("/r", *components) for components in parts]
    assert sorted(paths, key=_path_order) == [str(p) for p in sorted(map(Path, paths))]


def test_repository_files_name_each_file_as_discover_does(repo):
    """A run on some files reads the rest of the repository as context and leaves out
    the linted ones by name: both listings must spell a file the same way."""
    make(repo, "ci/pipeline.yml", "tests/sub/test_c.py")
    clear_cache()
    listed = repository_files(repo)
    assert all(os.path.isabs(name) and str(Path(name)) == name for name in listed)
    discovered = {str(path) for path in discover([repo / "ci", repo / "tests"], repo).files}
    assert discovered
    assert discovered <= set(listed)


def test_a_broken_link_found_walking_the_tree_is_no_problem(tmp_path):
    """cobaya's docs/img/*.png are links into a checkout they were not shipped with; a
    broken link to a Python file or a pipeline holds nothing to read either."""
    (tmp_path / "docs").mkdir()
    os.symlink(tmp_path / "missing.png", tmp_path / "docs" / "logo.png")
    os.symlink(tmp_path / "missing.py", tmp_path / "docs" / "conf.py")
    os.symlink(tmp_path / "missing.yml", tmp_path / ".buildkite-pipeline.yml")
    found = discover([tmp_path], tmp_path)
    assert found.problems == ()
    assert rel(found, tmp_path) == []
