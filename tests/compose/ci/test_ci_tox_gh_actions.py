"""A bare ``tox`` with tox-gh-actions runs the environments its ``[gh-actions]``
mapping names, not the whole envlist (distilled from celery, bench/realworld: the
smoke environment's ``--reruns 5`` was given to the unit-test jobs)."""

from __future__ import annotations

from repo_expectations import run_check, written_repository

TOX_INI = """\
[tox]
requires =
    tox-gh-actions
envlist =
    {3.11,3.12}-unit
    {3.11,3.12}-smoke

[gh-actions]
python =
    3.11: 3.11-unit
    3.12: 3.12-unit

[testenv]
commands =
    unit: pytest -vv t/unit {posargs}
    smoke: pytest -xsvv t/smoke --reruns 5 {posargs}
"""


def _workflow(command: str) -> str:
    return f"""\
        on: push
        jobs:
          unit:
            runs-on: ubuntu-latest
            steps:
              - run: python -m pip install tox tox-gh-actions
              - run: {command}
    """


def _codes(tmp_path, command: str) -> set[tuple[str, int, str]]:
    repo = written_repository(
        tmp_path,
        {
            "tox.ini": TOX_INI,
            "requirements.txt": "pytest-rerunfailures==16.1\n",
            "t/unit/test_u.py": "def test_u():\n    assert True\n",
            "t/smoke/test_s.py": "def test_s():\n    assert True\n",
            ".github/workflows/ci.yml": _workflow(command),
        },
    )
    _, document = run_check(repo)
    return {(f["path"], f["line"], f["code"]) for f in document["findings"]}


def test_bare_tox_runs_the_mapped_envs_only(tmp_path):
    assert _codes(tmp_path, "tox --verbose") == set()


def test_an_env_named_on_the_command_line_still_wins(tmp_path):
    assert _codes(tmp_path, 'tox -e "3.12-smoke"') == {("tox.ini", 16, "DET421")}
