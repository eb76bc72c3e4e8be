"""Vendored trees (``third_party/``, ``_vendored/``, submodules) hold other projects'
tests and pipelines: skipped by default, listed in the audit, read when configured."""

from __future__ import annotations

import os
import subprocess

import pytest
from repo_expectations import run_audit, run_check, written_repository

from detlint.readers.project.discovery import clear_cache

FLAKY = "import pytest\n\n\n@pytest.mark.flaky(reruns=3)\ndef test_a():\n    assert True\n"
FILES = {
    "requirements.txt": "pytest-rerunfailures\n",
    "tests/test_own.py": FLAKY,
    "third_party/lib/tests/test_lib.py": FLAKY,
    "src/pkg/_vendored/six/test_six.py": FLAKY,
    "third_party/lib/.buildkite/pipeline.yml": "steps:\n  - command: pytest tests || true\n",
    # This project's tests of an external service are its own.
    "tests/external/test_service.py": FLAKY,
}


def _paths(document: dict) -> list[str]:
    return sorted(f["path"] for f in document["findings"])


@pytest.fixture(autouse=True)
def _fresh_listing():
    clear_cache()
    yield
    clear_cache()


def test_vendored_trees_are_skipped_and_listed(tmp_path):
    repo = written_repository(tmp_path, FILES)
    _, document = run_check(repo)
    assert _paths(document) == ["tests/external/test_service.py", "tests/test_own.py"]
    assert run_audit(repo)["skipped"] == [
        {"path": "src/pkg/_vendored", "why": "vendored"},
        {"path": "third_party", "why": "vendored"},
    ]


def test_vendored_dirs_configured_empty_reads_them(tmp_path):
    repo = written_repository(tmp_path, FILES)
    (repo / "pyproject.toml").write_text("[tool.detlint]\nvendored-dirs = []\n")
    _, document = run_check(repo)
    assert "third_party/lib/tests/test_lib.py" in _paths(document)
    assert "src/pkg/_vendored/six/test_six.py" in _paths(document)


def test_a_nested_repository_is_vendored(tmp_path):
    repo = written_repository(tmp_path, {"requirements.txt": "pytest-rerunfailures\n"})
    (repo / "tests").mkdir()
    (repo / "tests" / "test_own.py").write_text(FLAKY)
    nested = repo / "kernels"
    (nested / "tests").mkdir(parents=True)
    (nested / "tests" / "test_k.py").write_text(FLAKY)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull}
    for where in (nested, repo):
        subprocess.run(["git", "init", "-q"], cwd=where, check=True, env=env)
    subprocess.run(["git", "-C", str(nested), "add", "."], check=True, env=env)
    _, document = run_check(repo)
    assert _paths(document) == ["tests/test_own.py"]
    assert {"path": "kernels", "why": "vendored"} in run_audit(repo)["skipped"]
