"""A knob written once is one finding, wherever it runs: a tox.ini command that
several steps run, a matrix job's command line. The finding names the steps."""

from __future__ import annotations

from repo_expectations import run_check, written_repository

TEST = "def test_a():\n    assert True\n"


def test_a_tox_command_run_by_three_steps_is_one_finding(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": TEST,
            "requirements.txt": "pytest-rerunfailures\n",
            "tox.ini": (
                "[tox]\nenvlist = py311,py312,lint\n[testenv]\n"
                "commands = pytest --reruns 2 {posargs:tests}\n"
                "[testenv:lint]\ncommands = ruff check .\n"
            ),
            ".github/workflows/ci.yml": """\
                on: push
                jobs:
                  py311:
                    runs-on: ubuntu-latest
                    steps:
                      - run: tox -e py311
                  py312:
                    runs-on: ubuntu-latest
                    steps:
                      - run: tox -e py312
                  all:
                    runs-on: ubuntu-latest
                    steps:
                      - run: tox
                  lint:
                    runs-on: ubuntu-latest
                    steps:
                      - run: tox -e lint
            """,
        },
    )
    _, document = run_check(repo)
    (found,) = document["findings"]
    assert (found["path"], found["line"], found["code"]) == ("tox.ini", 4, "DET421")
    assert "reruns every failing test of steps 'py311', 'py312' and 1 more" in found["message"]
    assert "lint" not in found["message"]


def test_a_masked_command_of_a_matrix_is_one_finding(tmp_path):
    repo = written_repository(
        tmp_path,
        {
            "tests/test_a.py": TEST,
            ".buildkite/pipeline.yml": """\
                steps:
                  - label: "unit {{matrix}}"
                    command: pytest tests || true
                    matrix: ["3.11", "3.12"]
            """,
        },
    )
    _, document = run_check(repo)
    assert [f["code"] for f in document["findings"]] == ["DET431"]


def test_reruns_of_infrastructure_failures_only_are_no_finding(tmp_path):
    # trl's Makefile: --only-rerun names OSError, timeouts, HTTP 502/504 and OOM only.
    files = {
        "tests/test_a.py": TEST,
        "requirements.txt": "pytest-rerunfailures\n",
        "Makefile": (
            "test:\n\tpytest -n auto -s -v --reruns 5 --reruns-delay 1 --only-rerun "
            "'(OSError|Timeout|HTTPError.*502|HTTPError.*504|OutOfMemoryError)' tests\n"
        ),
        ".github/workflows/tests.yml": """\
            on: push
            jobs:
              tests:
                runs-on: ubuntu-latest
                steps:
                  - run: make test
        """,
    }
    _, document = run_check(written_repository(tmp_path / "infra", files))
    assert document["findings"] == []
    files["Makefile"] = files["Makefile"].replace("OSError|", "AssertionError|")
    _, document = run_check(written_repository(tmp_path / "assertions", files))
    assert [f["code"] for f in document["findings"]] == ["DET421"]
