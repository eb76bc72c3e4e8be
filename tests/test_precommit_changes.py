"""The pre-commit hook, run by pre-commit itself, on commits to a project with legacy
findings: a commit that touches a dependency file reports what it alters, and a
baseline's entries of files the commit does not touch are not called gone.

Built as ``test_precommit`` builds its hook (this checkout's working tree committed
in a scratch clone), into one ``PRE_COMMIT_HOME`` for both cases.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_precommit import GIT_ENV, git, working_tree_clone
from test_readme_snippets import snippet

LEGACY = {
    "pyproject.toml": (
        '[project]\nname = "kernels"\ndependencies = ["pytest-rerunfailures==16.7"]\n'
    ),
    "requirements-test.txt": "requests==2.31.0\n",
    "tests/test_a.py": "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_a():\n    pass\n",
    "tests/test_b.py": "import pytest\n\n\n@pytest.mark.flaky\ndef test_b():\n    pass\n",
}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the projects live, beside the one PRE_COMMIT_HOME their hook is built in."""
    return tmp_path_factory.mktemp("projects")


@pytest.fixture(scope="module")
def hook_config(home: Path) -> str:
    """The README's snippet, pointed at this checkout's working tree."""
    clone = home / "detlint"
    commit = working_tree_clone(clone)
    config = snippet("pre-commit")
    config = re.sub(r"(?m)^(\s*- repo: ).*$", lambda m: f"{m.group(1)}{clone}", config)
    return re.sub(r"(?m)^(\s*rev: ).*$", lambda m: f"{m.group(1)}{commit}", config)


def committed_project(root: Path, config: str) -> Path:
    for name, text in LEGACY.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / ".pre-commit-config.yaml").write_text(config)
    git("init", "--quiet", cwd=root)
    git("add", "--all", cwd=root)
    git("commit", "--quiet", "-m", "legacy", cwd=root)
    return root


def hook(project: Path, *files: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **GIT_ENV,
        "PRE_COMMIT_HOME": str(project.parent / "pre-commit-home"),
        "PRE_COMMIT_COLOR": "never",
    }
    command = [sys.executable, "-m", "pre_commit", "run", "--verbose", "--files", *files]
    return subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=600
    )


def test_a_commit_to_a_dependency_file_reports_what_it_alters(home: Path, hook_config: str) -> None:
    project = committed_project(home / "dependencies", hook_config)
    (project / "requirements-test.txt").write_text("requests==2.31.0\npytest-cov==5.0.0\n")
    git("add", "requirements-test.txt", cwd=project)
    done = hook(project, "requirements-test.txt")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "DET" not in done.stdout
    (project / "requirements-test.txt").write_text("requests==2.31.0\nflaky==3.8.1\n")
    git("add", "requirements-test.txt", cwd=project)
    done = hook(project, "requirements-test.txt")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "tests/test_a.py:4:2: DET102" in done.stdout
    assert "tests/test_b.py:4:2: DET101" in done.stdout
    assert "tests/test_b.py:4:2: DET101 rerun marker: a 10% violation is reported" in done.stdout


def test_a_hook_with_a_baseline_calls_no_untouched_entry_gone(home: Path, hook_config: str) -> None:
    # The README's baseline variant of the snippet.
    config, count = re.subn(r"# (args: \[--baseline, \S+\])", r"\1", hook_config)
    assert count == 1
    baseline = re.search(r"args: \[--baseline, (\S+)\]", config).group(1)  # type: ignore[union-attr]
    project = committed_project(home / "baselined", config)
    detlint = Path(sys.executable).parent / "detlint"
    written = subprocess.run(
        [str(detlint), "check", "--write-baseline", baseline],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert f"Wrote 2 findings to {baseline}." in written.stderr
    (project / "tests" / "test_b.py").write_text("def test_b():\n    pass\n")
    (project / "tests" / "test_a.py").write_text(LEGACY["tests/test_a.py"] + "\n# touched\n")
    git("add", "--all", cwd=project)
    done = hook(project, "tests/test_a.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "All checks passed (1 file; 1 in baseline)." in done.stdout
    assert "gone" not in done.stdout
    done = hook(project, "tests/test_a.py", "tests/test_b.py")
    assert "All checks passed (2 files; 1 in baseline; 1 baseline entry gone)." in done.stdout
