"""A rerun option on a pytest command written in a repository file that no pipeline of
the repository runs (a shell script, a Makefile recipe, a Python launcher, a noxfile) is
DET421 on the option: the command is run by hand or by a CI system outside the
repository, and every test it runs reports a failure only when every attempt fails. The
tests it runs are not known, so the figures are a single-attempt test's: with
``--reruns 3`` a 10% violation is reported 0.010% of the time (``0.1^4``)."""

from __future__ import annotations

import pytest
from repo_expectations import run_audit, run_check, written_repository

TEST = "def test_a():\n    assert True\n"
PLACE = (
    "which no pipeline of this repository that detlint reads runs (it is run by hand, by a CI "
    "system outside the repository, or by one detlint does not read, such as Jenkins),"
)
SINGLE = "a 10% violation is reported 0.010% of the time instead of 10.0% in a single-attempt test"


def _det421(tmp_path, files: dict[str, str]) -> list[dict]:
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    _, document = run_check(repo)
    return [f for f in document["findings"] if f["code"] == "DET421"]


GPU_LAUNCHER = """\
import subprocess


def run_shell_command(cmd, env_vars=None):
    return subprocess.run(cmd, env=env_vars)


def run_test(testmodule, base_dir):
    cmd = [
        "python3",
        "-m",
        "pytest",
        f"--html={base_dir}/log.html",
        "--reruns",
        "3",
        "-v",
        testmodule,
    ]
    return run_shell_command(cmd, env_vars={"HIP_VISIBLE_DEVICES": "0"})
"""


@pytest.mark.parametrize(
    ("path", "text", "line", "where", "flag"),
    [
        ("build/rocm/run_single_gpu.py", GPU_LAUNCHER, 14, "the Python script", "--reruns 3"),
        (
            "tools/run.py",
            'import subprocess, sys\n\nsubprocess.run([sys.executable, "-m", "pytest",'
            ' "--reruns=2", "tests"])\n',
            3,
            "the Python script",
            "--reruns 2",
        ),
        (
            "tools/all_tests.py",
            'import sys\n\nimport pytest\n\nsys.exit(pytest.main(["--reruns", "3", "tests/"]))\n',
            5,
            "the Python script",
            "--reruns 3",
        ),
        (
            "tools/nightly.py",
            'import os\n\nos.system("pytest --reruns 3 -x tests")\n',
            3,
            "the Python script",
            "--reruns 3",
        ),
        (
            "scripts/run_tests.sh",
            "#!/bin/sh\nset -e\npython -m pytest --reruns 3 tests\n",
            3,
            "the shell script",
            "--reruns 3",
        ),
        (
            "Makefile",
            "lint:\n\truff check .\n\ntest:\n\tpytest --reruns 2 tests\n",
            5,
            "the `test` recipe of the Makefile",
            "--reruns 2",
        ),
        (
            "noxfile.py",
            "import nox\n\n\n@nox.session\ndef tests(session):\n"
            '    session.install("pytest", "pytest-rerunfailures")\n'
            '    session.run("pytest", "--reruns", "3", *session.posargs)\n',
            7,
            "the noxfile",
            "--reruns 3",
        ),
    ],
)
def test_a_rerun_flag_no_pipeline_reaches_is_reported(tmp_path, path, text, line, where, flag):
    (found,) = _det421(tmp_path, {path: text})
    assert (found["path"], found["line"]) == (path, line)
    message = found["message"]
    assert message.startswith(f"`{flag}` on the pytest command written in {where} `{path}`, ")
    assert PLACE in message
    assert "reruns every failing test it runs without a `flaky` marker of its own" in message
    figure = SINGLE.replace("0.010%", "0.10%") if flag.endswith("2") else SINGLE
    assert figure in message


def test_both_commands_of_a_launcher_are_reported_on_their_flags(tmp_path):
    text = (
        "import subprocess\n\n\ndef run(path, fast):\n    if fast:\n"
        '        cmd = ["pytest", "-x", "--reruns", "3", path]\n'
        "    else:\n"
        '        cmd = ["pytest",\n               "--force-reruns", "2", path]\n'
        "    subprocess.run(cmd)\n"
    )
    found = _det421(tmp_path, {"ci/run.py": text})
    assert [(f["line"], f["message"].split("`")[1]) for f in found] == [
        (6, "--reruns 3"),
        (9, "--force-reruns 2"),
    ]
    assert "whatever its marker says (--force-reruns)" in found[1]["message"]
    assert "reported 0.10% of the time instead of 10.0%" in found[1]["message"]


@pytest.mark.parametrize(
    ("path", "text", "line", "option", "value"),
    [
        (
            "scripts/run_tests.sh",
            'python -m pytest --reruns "$RERUNS" tests\n',
            1,
            '--reruns "$RERUNS"',
            '"$RERUNS"',
        ),
        (
            "tools/run.py",
            'import subprocess\n\nN = 3\nsubprocess.run(["pytest", "--reruns", str(N), "tests"])\n',
            4,
            "--reruns str(N)",
            "str(N)",
        ),
    ],
)
def test_a_count_from_a_variable_is_named_not_guessed(tmp_path, path, text, line, option, value):
    (found,) = _det421(tmp_path, {path: text})
    assert (found["path"], found["line"]) == (path, line)
    message = found["message"]
    assert message.startswith(f"`{option}` on the pytest command written in ")
    assert f"with a count detlint cannot read (`{value}`)" in message
    assert "%" not in message
    assert found.get("numbers") is None


WORKFLOW = """\
on: push
jobs:
  t:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pip install pytest pytest-rerunfailures
      - run: ./scripts/run_tests.sh
"""


def test_a_script_a_pipeline_runs_is_reported_once_as_the_pipelines(tmp_path):
    script = "#!/bin/sh\npython -m pytest --reruns 3 tests\n"
    found = _det421(
        tmp_path, {"scripts/run_tests.sh": script, ".github/workflows/ci.yml": WORKFLOW}
    )
    assert len(found) == 1
    assert (found[0]["path"], found[0]["line"]) == ("scripts/run_tests.sh", 2)
    assert PLACE not in found[0]["message"]


def test_a_python_wrapper_a_pipeline_runs_is_not_reported_as_unreached(tmp_path):
    workflow = WORKFLOW.replace("./scripts/run_tests.sh", "python scripts/run_tests.py")
    script = (
        'import subprocess\n\nsubprocess.run(["pytest", "--reruns", "3", "tests"], check=True)\n'
    )
    found = _det421(
        tmp_path, {"scripts/run_tests.py": script, ".github/workflows/ci.yml": workflow}
    )
    assert all(PLACE not in f["message"] for f in found)


def test_a_test_modules_own_pytest_main_stays_det104(tmp_path):
    module = (
        "import sys\n\nimport pytest\n\n\ndef test_b():\n    assert True\n\n\n"
        'if __name__ == "__main__":\n    sys.exit(pytest.main(["--reruns", "3", __file__]))\n'
    )
    repo = written_repository(tmp_path, {"tests/test_b.py": module})
    _, document = run_check(repo)
    codes = [(f["code"], f["path"], f["line"]) for f in document["findings"]]
    assert codes == [("DET104", "tests/test_b.py", 11)]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("scripts/run_tests.sh", "python -m pytest --reruns-delay 5 tests\n"),
        ("scripts/run_tests.sh", "python -m pytest --reruns 3 --only-rerun OSError tests\n"),
        ("scripts/run_tests.sh", "python -m pytest --reruns 3 --fail-on-flaky tests\n"),
        ("scripts/run_tests.sh", "python -m pytest --reruns 0 tests\n"),
        ("scripts/run_tests.sh", "echo 'rerun with --reruns 3'\npytest tests\n"),
        ("tools/run.py", 'HELP = "pytest --reruns 3 tests"\nprint(HELP)\n'),
        ("tools/run.py", 'import subprocess\n\nsubprocess.run(["pytest", "tests"])\n'),
        ("vendor/lib/run.sh", "pytest --reruns 3 tests\n"),
        ("build/lib/pkg/run.sh", "pytest --reruns 3 tests\n"),
        (
            "tests/test_runner.py",
            'import subprocess\n\nsubprocess.run(["pytest", "--reruns", "3"])\n',
        ),
    ],
)
def test_commands_that_rerun_nothing_or_are_not_the_projects_are_not_reported(tmp_path, path, text):
    assert _det421(tmp_path, {path: text}) == []


def test_the_audit_names_an_unread_count_without_numbers(tmp_path):
    repo = written_repository(
        tmp_path,
        {"tests/test_a.py": TEST, "scripts/run_tests.sh": "pytest --reruns $N tests\n"},
    )
    document = run_audit(repo)
    (found,) = [f for f in document["findings"] if f["code"] == "DET421"]
    assert (found["path"], found["line"]) == ("scripts/run_tests.sh", 1)
    assert "with a count detlint cannot read (`$N`)" in found["message"]
    assert found["numbers"] is None
