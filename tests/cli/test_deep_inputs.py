"""Files nested deeper than a recursive parser follows, in an encoding no codec reads, or
with a document type declaration: each is named on one line and the run goes on with
the rest, as any other unreadable file is; none stops the run with an internal error."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from repo_expectations import git_repository

DEPTH = 100_000  # far past the interpreter's recursion limit
TEST_MODULE = "def test_a():\n    assert 1\n"
GOOD_JUNIT = (
    '<?xml version="1.0" encoding="utf-8"?>\n'
    '<testsuite name="pytest" timestamp="2026-01-02T03:04:05">'
    '<testcase classname="tests.test_a" name="test_a"/></testsuite>\n'
)


def detlint(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "detlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def nested_toml() -> str:
    return '[project]\nname = "x"\n[tool.other]\nkey = ' + "[" * DEPTH + "]" * DEPTH + "\n"


def nested_json(key: str) -> str:
    return "{" + f'"{key}": ' + "[" * DEPTH + "]" * DEPTH + "}\n"


def test_nested_pyproject_as_the_config_file_is_a_one_line_error(tmp_path: Path) -> None:
    git_repository(tmp_path, {"tests/test_a.py": TEST_MODULE, "pyproject.toml": nested_toml()})
    result = detlint(tmp_path, "check", "--no-cache", ".")
    assert result.returncode == 2
    assert result.stderr == (
        "detlint check: error: pyproject.toml is not valid TOML: arrays or inline tables "
        "nested too deeply to read\n"
    )


def test_nested_pyproject_beside_a_config_file_is_a_det901(tmp_path: Path) -> None:
    git_repository(
        tmp_path,
        {
            "tests/test_a.py": TEST_MODULE,
            "pyproject.toml": nested_toml(),
            "detlint.toml": "[tool.detlint]\n",
        },
    )
    result = detlint(tmp_path, "check", "--no-cache", ".")
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == (
        "pyproject.toml:1:1: DET901 pyproject.toml is not valid TOML: arrays or inline "
        "tables nested too deeply to read"
    )
    assert "internal error" not in result.stderr


def test_nested_baseline_is_a_one_line_error(tmp_path: Path) -> None:
    git_repository(tmp_path, {"tests/test_a.py": TEST_MODULE})
    (tmp_path / "baseline.json").write_text(nested_json("schema"))
    result = detlint(tmp_path, "check", "--no-cache", "--baseline", "baseline.json", ".")
    assert result.returncode == 2
    assert result.stderr == (
        "detlint check: error: baseline baseline.json is JSON nested too deeply to read\n"
    )


def test_evidence_sets_unreadable_reports_aside_and_reads_the_good_one(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "a-good.xml").write_text(GOOD_JUNIT)
    bogus = GOOD_JUNIT.replace('encoding="utf-8"', 'encoding="bogus"')
    (reports / "b-bogus.xml").write_text(bogus)
    laughs = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 12))
    bomb = (
        f'<?xml version="1.0"?>\n<!DOCTYPE t [<!ENTITY l0 "ha">{laughs}]>\n'
        '<testsuite name="pytest"><testcase classname="c" name="&l11;"/></testsuite>\n'
    )
    (reports / "c-bomb.xml").write_text(bomb)
    (reports / "d-deep.jsonl").write_text(
        '{"$report_type": "SessionStart"}\n' + nested_json("$report_type")
    )
    started = time.monotonic()
    result = detlint(tmp_path, "evidence", "reports")
    assert time.monotonic() - started < 60
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert (
        lines[0]
        == "detlint evidence: 1 build read, 1 tests (from 2026-01-02 03:04 to 2026-01-02 03:04)"
    )
    assert lines[-3:] == [
        "not read: reports/b-bogus.xml: cannot decode: unknown encoding: bogus",
        "not read: reports/c-bomb.xml: has a document type declaration (<!DOCTYPE>), "
        "which JUnit files never need",
        "not read: reports/d-deep.jsonl: line 2 is JSON nested too deeply to read",
    ]


def workflow(command: str) -> dict[str, str]:
    return {
        ".github/workflows/ci.yml": (
            "name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
            f"      - run: |\n          {command}\n"
        ),
        "tests/test_a.py": TEST_MODULE,
        "pyproject.toml": '[project]\nname = "x"\ndependencies = ["pytest-rerunfailures"]\n',
    }


NESTED_TOO_DEEP = (
    ".github/workflows/ci.yml:7:14: DET901 the command of step 'test' nests subshells, "
    "groups, substitutions or `bash -c` scripts deeper than detlint's shell reader "
    "follows: the commands inside them are not read"
)


def test_shell_command_nested_past_the_readers_depth_is_a_det901(tmp_path: Path) -> None:
    """Without the finding the step reads as running no tests: 'All checks passed'."""
    rerun = "pytest --reruns 2 tests/test_a.py"
    cases = {
        "subshells": "( " * 100 + rerun + " )" * 100,
        "groups": "{ " * 100 + rerun + "; }" * 100,
        "substitutions": "echo " + "$(echo " * 100 + rerun + ")" * 100,
        "bash -c": 'bash -c "' + "( " * 60 + rerun + " )" * 60 + '"',
    }
    for name, command in cases.items():
        root = tmp_path / name.replace(" ", "-")
        git_repository(root, workflow(command))
        result = detlint(root, "check", "--no-cache", ".")
        assert result.returncode == 1, (name, result.stderr)
        assert result.stdout.splitlines()[:2] == [
            NESTED_TOO_DEEP,
            "  help: detlint read the rest of the pipeline and the run went on; a command "
            "written with less nesting (or moved to a script file) is read",
        ], name


def test_shell_command_within_the_readers_depth_is_read(tmp_path: Path) -> None:
    command = "( " * 50 + "pytest --reruns 2 tests/test_a.py" + " )" * 50
    git_repository(tmp_path, workflow(command))
    result = detlint(tmp_path, "check", "--no-cache", ".")
    assert result.returncode == 1, result.stderr
    assert "DET901" not in result.stdout
    assert result.stdout.startswith(".github/workflows/ci.yml:8:1: DET421 ci-reruns-flag: ")
