"""GitHub runs only the repository's own workflows: a nested project's
``.github/workflows/`` (a vendored kernel package, a subtree) is not a pipeline of
the repository, unless detlint is run on that project itself (distilled from
spyder's ``external-deps/spyder-kernels``, bench/realworld)."""

from __future__ import annotations

import subprocess

from repo_expectations import run_check, written_repository

NESTED_WORKFLOW = """\
    on: push
    jobs:
      linux:
        runs-on: ubuntu-latest
        steps:
          - run: pytest kernels/tests || pytest kernels/tests
          - run: pytest kernels/tests || true
"""


def _repository(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_app.py": "def test_app():\n    assert True\n",
            "external-deps/kernels/kernels/tests/test_k.py": "def test_k():\n    assert True\n",
            "external-deps/kernels/.github/workflows/tests.yml": NESTED_WORKFLOW,
            ".github/workflows/ci.yml": """\
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pytest tests
            """,
        },
    )
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def test_a_nested_projects_workflows_are_not_read_from_the_root(tmp_path):
    _, document = run_check(_repository(tmp_path))
    assert document["findings"] == []


def test_they_are_read_when_detlint_runs_on_that_project(tmp_path):
    repo = _repository(tmp_path)
    _, document = run_check(repo / "external-deps" / "kernels")
    found = {(f["path"], f["line"], f["code"]) for f in document["findings"]}
    # `pytest || pytest` is a retry (DET411), not a hidden exit status; `|| true` hides it
    assert found == {
        (".github/workflows/tests.yml", 6, "DET411"),
        (".github/workflows/tests.yml", 7, "DET431"),
    }
