"""A rerun plugin a CI step installs (``pip install pytest-rerunfailures``) is evidence
of the plugin for the project the step works in, like a requirements file."""

from __future__ import annotations

from repo_expectations import run_check, written_repository

FLAKY = "import pytest\n\n\n@pytest.mark.flaky(reruns=2)\ndef test_a():\n    assert True\n"
PROJECT = '[project]\nname = "x"\n[project.optional-dependencies]\ntest = ["pytest"]\n'


def _workflow(install: str, working: str = "") -> str:
    where = f"        working-directory: {working}\n" if working else ""
    return (
        "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - run: {install}\n{where}      - run: pytest\n{where}"
    )


def _codes(document: dict, path: str) -> list[str]:
    return sorted(f["code"] for f in document["findings"] if f["path"] == path)


def test_a_plugin_the_step_installs_backs_the_marker(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "pyproject.toml": PROJECT,
            "tests/test_a.py": FLAKY,
            ".github/workflows/ci.yml": _workflow(
                'python -m pip install -U pytest "pytest-rerunfailures>=14"'
            ),
        },
    )
    _, document = run_check(repo)
    assert _codes(document, "tests/test_a.py") == ["DET101"]  # no "no plugin declared"
    (found,) = document["findings"]
    assert "pytest-rerunfailures>=14 from .github/workflows/ci.yml:6" in found["message"]


def test_without_the_install_the_marker_has_no_plugin(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "pyproject.toml": PROJECT,
            "tests/test_a.py": FLAKY,
            ".github/workflows/ci.yml": _workflow("pip install pytest"),
        },
    )
    _, document = run_check(repo)
    assert _codes(document, "tests/test_a.py") == ["DET101", "DET102"]


def test_the_install_counts_for_the_project_the_step_works_in(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "a/pyproject.toml": PROJECT,
            "a/tests/test_a.py": FLAKY,
            "b/pyproject.toml": PROJECT,
            "b/tests/test_b.py": FLAKY,
            ".github/workflows/ci.yml": _workflow("uv pip install pytest-rerunfailures", "a"),
        },
    )
    _, document = run_check(repo)
    assert _codes(document, "a/tests/test_a.py") == ["DET101"]
    assert _codes(document, "b/tests/test_b.py") == ["DET101", "DET102"]


def test_an_install_continued_over_lines_is_read(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "pyproject.toml": PROJECT,
            "tests/test_a.py": FLAKY,
            ".gitlab-ci.yml": (
                "unit:\n  script:\n    - |\n      pip install -U pytest \\\n"
                "        pytest-rerunfailures==14.0\n      pytest tests\n"
            ),
        },
    )
    _, document = run_check(repo)
    assert _codes(document, "tests/test_a.py") == ["DET101"]
