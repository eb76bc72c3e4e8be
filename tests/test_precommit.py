"""The pre-commit hook, installed by pre-commit itself from this checkout.

pre-commit clones the hook repository at a commit, builds a virtualenv from
it and runs ``.pre-commit-hooks.yaml``'s entry on the files a commit changes.
The test does all of that for real, with the README's snippet as the project's
config: it commits this checkout's working tree
(tracked and new files, as they are now) into a scratch clone, points a
``.pre-commit-config.yaml`` of a throwaway project repository at it, and runs
``pre-commit run`` there. The hook environment is built once (into a private
``PRE_COMMIT_HOME``) and reused by every case.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_readme_snippets import snippet

CHECKOUT = Path(__file__).resolve().parents[1]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "detlint tests",
    "GIT_AUTHOR_EMAIL": "tests@detlint.invalid",
    "GIT_COMMITTER_NAME": "detlint tests",
    "GIT_COMMITTER_EMAIL": "tests@detlint.invalid",
}

BAD_TEST = """\
import pytest


@pytest.mark.flaky(reruns=3)
def test_allreduce_matches_reference():
    assert True
"""

GOOD_TEST = """\
def test_sum():
    assert sum([1, 2]) == 3
"""

# The job retries test failures too: a commit that adds a rerun marker to a test
# this step runs stacks two retry layers, although the pipeline did not change.
PIPELINE = """\
steps:
  - label: "unit"
    command: "pytest tests"
    retry:
      automatic: true
"""


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


def working_tree_clone(clone: Path) -> str:
    """Commit this checkout's working tree (tracked and new files, as they are now) in a
    scratch clone at ``clone``; returns the commit."""
    git("clone", "--quiet", str(CHECKOUT), str(clone), cwd=CHECKOUT)
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=CHECKOUT)
    for name in filter(None, listed.split("\0")):
        source = CHECKOUT / name
        target = clone / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif target.exists():  # deleted in the working tree
            target.unlink()
    git("add", "--all", cwd=clone)
    git("commit", "--quiet", "--allow-empty", "-m", "working tree", cwd=clone)
    return git("rev-parse", "HEAD", cwd=clone).strip()


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This checkout's working tree, committed in a scratch clone: (path, commit)."""
    clone = tmp_path_factory.mktemp("hook") / "detlint"
    return clone, working_tree_clone(clone)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, hook_repository: tuple[Path, str]) -> Path:
    """A project that uses the hook, with one test that has a knob and one that has none."""
    hook_path, commit = hook_repository
    root = tmp_path_factory.mktemp("project")
    (root / "tests").mkdir()
    (root / "tests" / "test_bad.py").write_text(BAD_TEST)
    (root / "tests" / "test_good.py").write_text(GOOD_TEST)
    (root / ".buildkite").mkdir()
    (root / ".buildkite" / "pipeline.yml").write_text(PIPELINE)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "kernels"\nversion = "1"\n'
        'dependencies = ["pytest", "pytest-rerunfailures"]\n'
    )
    # The README's snippet, pointed at this checkout instead of the published repository.
    config = snippet("pre-commit")
    config = re.sub(r"(?m)^(\s*- repo: ).*$", lambda m: f"{m.group(1)}{hook_path}", config)
    config = re.sub(r"(?m)^(\s*rev: ).*$", lambda m: f"{m.group(1)}{commit}", config)
    assert str(hook_path) in config
    assert commit in config
    (root / ".pre-commit-config.yaml").write_text(config)
    git("init", "--quiet", cwd=root)
    git("add", "--all", cwd=root)
    return root


def pre_commit(
    project: Path, *files: str, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    home = home or project.parent / "pre-commit-home"  # shared by the cases: one install
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--files", *files],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_hook_fails_on_a_test_with_a_rerun_marker(project: Path) -> None:
    done = pre_commit(project, "tests/test_bad.py")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert "tests/test_bad.py:4:2: DET101" in done.stdout
    # The repository's pipeline is read for context, though the commit does not touch it.
    assert ".buildkite/pipeline.yml:5:7: DET501 stacked-retries: a 10% violation is" in done.stdout


def test_hook_passes_on_a_test_without_knobs(project: Path) -> None:
    done = pre_commit(project, "tests/test_good.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout
    assert "DET" not in done.stdout


def test_hook_lints_a_changed_pipeline(project: Path) -> None:
    done = pre_commit(project, ".buildkite/pipeline.yml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert ".buildkite/pipeline.yml:5:7: DET411" in done.stdout


@pytest.fixture(scope="module")
def fixing_project(tmp_path_factory: pytest.TempPathFactory, project: Path) -> Path:
    """The same project with the README's fixing variant: `args: [--fix, --unsafe-fixes]`."""
    root = tmp_path_factory.mktemp("fixing")
    for name in ("tests", ".buildkite"):
        shutil.copytree(project / name, root / name)
    shutil.copy2(project / "pyproject.toml", root / "pyproject.toml")
    config = (project / ".pre-commit-config.yaml").read_text()
    config, count = re.subn(r"# args: \[.*\]", "args: [--fix, --unsafe-fixes]", config)
    assert count == 1
    (root / ".pre-commit-config.yaml").write_text(config)
    git("init", "--quiet", cwd=root)
    git("add", "--all", cwd=root)
    return root


def test_hook_with_fix_rewrites_the_file_and_fails_the_commit(fixing_project: Path) -> None:
    done = pre_commit(fixing_project, "tests/test_bad.py")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "files were modified by this hook" in done.stdout
    fixed = (fixing_project / "tests" / "test_bad.py").read_text()
    assert "@pytest.mark.flaky" not in fixed
    assert '@pytest.mark.xfail(strict=False, reason="flaky: <tracking issue>")' in fixed
    again = pre_commit(fixing_project, "tests/test_bad.py")
    assert "files were modified by this hook" not in again.stdout


# A project whose hook scope matters: a requirements file and a pytest.ini that decide
# what a marker does, a generated directory the config excludes, and a pipeline.
SCOPED = {
    "tests/test_bad.py": BAD_TEST,
    "tests/test_good.py": GOOD_TEST,
    "generated/test_generated.py": BAD_TEST.replace("test_allreduce", "test_generated"),
    "requirements-test.txt": "pytest\npytest-rerunfailures==16.7\n",
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "detlint.toml": 'extend-exclude = ["generated"]\n',
    ".buildkite/pipeline.yml": PIPELINE,
    "README.md": "# kernels\n",
}


@pytest.fixture(scope="module")
def scoped_project(tmp_path_factory: pytest.TempPathFactory, project: Path) -> Path:
    root = tmp_path_factory.mktemp("scoped")
    for name, text in SCOPED.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    shutil.copy2(project / ".pre-commit-config.yaml", root / ".pre-commit-config.yaml")
    git("init", "--quiet", cwd=root)
    git("add", "--all", cwd=root)
    return root


def finding_lines(output: str) -> set[str]:
    """The findings' first lines (path:line:col: CODE message) in a hook's or a check's output."""
    return {line for line in output.splitlines() if re.match(r"^\S+:\d+:\d+: DET\d{3} ", line)}


@pytest.mark.parametrize("changed", ["requirements-test.txt", "pytest.ini", "detlint.toml"])
def test_hook_runs_when_only_a_dependency_or_config_file_changes(
    scoped_project: Path, changed: str
) -> None:
    # Adding the plugin to the requirements (or editing the pytest or detlint config)
    # changes what the marker does: the hook runs, and reports the test it reaches.
    done = pre_commit(scoped_project, changed)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "tests/test_bad.py:4:2: DET101 rerun marker: a 10% violation is" in done.stdout


def test_hook_is_not_run_for_files_detlint_does_not_read(scoped_project: Path) -> None:
    done = pre_commit(scoped_project, "README.md")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(no files to check)Skipped" in done.stdout.replace(".", "")


def test_hook_keeps_excluded_files_out_though_pre_commit_names_them(scoped_project: Path) -> None:
    done = pre_commit(scoped_project, "generated/test_generated.py", "tests/test_good.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "DET" not in done.stdout


def test_hook_on_every_staged_file_agrees_with_a_check_from_the_root(scoped_project: Path) -> None:
    env = {
        **os.environ,
        **GIT_ENV,
        "PRE_COMMIT_HOME": str(scoped_project.parent / "pre-commit-home"),
    }
    hook = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run"],  # the staged files, as at a commit
        cwd=scoped_project,
        env={**env, "PRE_COMMIT_COLOR": "never"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    check = subprocess.run(
        [str(Path(sys.executable).parent / "detlint"), "check"],
        cwd=scoped_project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert hook.returncode == check.returncode == 1, hook.stdout + check.stdout
    found = finding_lines(check.stdout)
    assert {line.split(": ")[1].split()[0] for line in found} >= {"DET101", "DET411", "DET501"}
    assert not any(line.startswith("generated/") for line in found)
    assert finding_lines(hook.stdout) == found


def test_autoupdate_freeze_pins_the_snippet_to_a_commit_and_the_hook_runs(
    tmp_path: Path, project: Path, hook_repository: tuple[Path, str]
) -> None:
    """The README's snippet as written (`rev: <commit>`), with the one command it names:
    `pre-commit autoupdate --freeze` writes the commit of the hook repository's default
    branch (no release is tagged), and the hook then runs from it."""
    hook_path, commit = hook_repository
    root = tmp_path / "pinned"
    shutil.copytree(project, root, ignore=shutil.ignore_patterns(".git"))
    config = snippet("pre-commit")
    assert re.search(r"(?m)^\s*rev: <commit> ", config)
    config = re.sub(r"(?m)^(\s*- repo: ).*$", lambda m: f"{m.group(1)}{hook_path}", config)
    (root / ".pre-commit-config.yaml").write_text(config)
    git("init", "--quiet", cwd=root)
    git("add", "--all", cwd=root)
    home = project.parent / "pre-commit-home"  # the hook environment the other cases built
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "autoupdate", "--freeze"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"updating <commit> -> {commit}" in done.stdout
    pinned = (root / ".pre-commit-config.yaml").read_text()
    assert re.search(rf"(?m)^\s*rev: {commit} ", pinned)
    assert pinned == config.replace("<commit>", commit, 1)
    ran = pre_commit(root, "tests/test_bad.py", home=home)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "tests/test_bad.py:4:2: DET101" in ran.stdout
