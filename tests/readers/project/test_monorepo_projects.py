"""In a monorepo each test's plugin evidence is its own project's: never a sibling's,
never from above the repository. A run on one file (pre-commit) and a run from the root
agree on every finding for that file."""

from __future__ import annotations

import pytest
from repo_expectations import git_repository, run_check

from detlint.readers.project.discovery import clear_cache

FLAKY = "import pytest\n\n\n@pytest.mark.flaky(reruns=3)\ndef test_x():\n    assert True\n"


def _project(name: str, test_deps: str) -> str:
    return f'[project]\nname = "{name}"\n[project.optional-dependencies]\ntest = [{test_deps}]\n'


@pytest.fixture
def monorepo(tmp_path):
    clear_cache()
    files = {
        # a declares pytest-rerunfailures in its test extra; b only pytest.
        "a/pyproject.toml": _project("a", '"pytest", "pytest-rerunfailures"'),
        "a/tests/test_a.py": FLAKY,
        "b/pyproject.toml": _project("b", '"pytest"'),
        "b/tests/test_b.py": FLAKY,
        # c builds with its own pyproject (no pytest): the root's test requirements apply.
        "c/pyproject.toml": '[project]\nname = "c"\n',
        "c/tests/test_c.py": FLAKY,
        "requirements-dev.txt": "pytest\nflaky==3.8.1\n",
        # a's CI requirements live in a folder of a's.
        "a/requirements/ci.txt": "pytest-timeout\n",
    }
    git_repository(tmp_path, files)
    yield tmp_path
    clear_cache()


def _by_file(document: dict) -> dict[str, list[tuple[int, str, str]]]:
    found: dict[str, list[tuple[int, str, str]]] = {}
    for f in document["findings"]:
        found.setdefault(f["path"], []).append((f["line"], f["code"], f["message"]))
    return found


def test_each_test_reads_its_own_projects_plugin(monorepo):
    _, document = run_check(monorepo)
    found = _by_file(document)
    (a,) = found["a/tests/test_a.py"]
    assert "pytest-rerunfailures from a/pyproject.toml" in a[2]
    b_codes = sorted(code for _, code, _ in found["b/tests/test_b.py"])
    assert b_codes == ["DET101", "DET102"]  # b declares no rerun plugin: none from a
    assert all("a/pyproject.toml" not in message for _, _, message in found["b/tests/test_b.py"])
    # c is tested in the root's environment, which has the flaky package: reruns= fails.
    ((_, code, message),) = found["c/tests/test_c.py"]
    assert code == "DET102"
    assert "flaky==3.8.1 from requirements-dev.txt:2" in message


@pytest.mark.parametrize("path", ["a/tests/test_a.py", "b/tests/test_b.py", "c/tests/test_c.py"])
def test_a_run_on_one_file_agrees_with_the_run_from_the_root(monorepo, path):
    _, whole = run_check(monorepo)
    _, one = run_check(monorepo, path)
    assert _by_file(one)[path] == _by_file(whole)[path]
    # and from inside the project, as a pre-commit hook configured there would run it
    project, _, rest = path.partition("/")
    _, inside = run_check(monorepo / project, rest)
    assert [(line, code) for line, code, _ in _by_file(inside)[rest]] == [
        (line, code) for line, code, _ in _by_file(whole)[path]
    ]
