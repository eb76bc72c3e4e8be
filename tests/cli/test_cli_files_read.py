"""What ``detlint check`` says about the files it read, from the user's side: the files
the summary counts (those linted, not every file seen), a binary file named like a test
module, the size over which a file is not read (``max-file-size``, ``--max-file-size``)
and what DET901's help says was skipped.

Every test writes a small repository into ``tmp_path`` and runs the command line on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli

MARKED = """\
import pytest


@pytest.mark.flaky(reruns=2)
def test_marked():
    assert compute() == 1
"""
PLAIN = "def test_plain():\n    assert 1 + 1 == 2\n"
# The first bytes of an ELF executable: NUL bytes, and no knob token anywhere.
ELF = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b"\x02\x00\x3e\x00" + b"\x00" * 200


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def run(*args: str):
    return CliRunner().invoke(
        cli, ["check", "--no-cache", *args], prog_name="detlint", env={"NO_COLOR": "1"}
    )


def findings(*args: str) -> list[dict]:
    result = run("--output-format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)["findings"]


def test_summary_counts_the_files_linted_not_every_file_seen(repo: Path) -> None:
    write(
        repo,
        {
            "tests/test_a.py": PLAIN,
            "tests/test_b.py": PLAIN,
            "tests/conftest.py": "",
            "tests/helpers.py": "def helper():\n    return 1\n",  # not a test module
            "src/package/module.py": "VALUE = 1\n",
            "README.md": "# project\n",
            "requirements.txt": "requests\n",
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            ".github/workflows/ci.yml": (
                "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
                "    steps:\n      - run: pytest tests\n"
            ),
        },
    )
    result = run()
    assert result.exit_code == 0, result.output
    # Two test modules, conftest.py, pytest.ini and the workflow: 5 of the 9 files.
    assert result.output == "All checks passed (5 files).\n"


def test_an_executable_named_like_a_test_module_is_det901(repo: Path) -> None:
    write(repo, {"tests/test_x.py": ELF, "tests/test_ok.py": PLAIN})
    result = run()
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "tests/test_x.py:1:1: DET901 binary file, not Python source",
        "  help: detlint did not read this file, so no knob in it is checked; the run went on",
        "Found 1 finding in 2 files.",
    ]


def test_a_binary_helper_module_is_not_read_at_all(repo: Path) -> None:
    """Only files linted as tests are refused: a binary helper is never read."""
    write(repo, {"tests/data.py": ELF, "tests/test_ok.py": PLAIN})
    assert run().output == "All checks passed (1 file).\n"


def test_max_file_size_from_the_config_and_the_command_line(repo: Path) -> None:
    write(repo, {"tests/test_big.py": MARKED})
    size = len(MARKED.encode())
    assert [f["code"] for f in findings()] == ["DET101"]  # 5 MB by default
    skipped = f"file is {size} bytes, over the 50 bytes limit; skipped"
    [flagged] = findings("--max-file-size", "50")
    assert (flagged["code"], flagged["path"], flagged["line"]) == ("DET901", "tests/test_big.py", 1)
    assert flagged["message"] == skipped
    write(repo, {"pyproject.toml": "[tool.detlint]\nmax-file-size = 60\n"})
    [configured] = findings()
    assert configured["message"] == f"file is {size} bytes, over the 60 bytes limit; skipped"
    assert [f["code"] for f in findings("--max-file-size", str(size))] == ["DET101"]
    shown = run("--show-settings").output
    assert "max-file-size = 60" in shown


@pytest.mark.parametrize("value", ["0", "-1", '"5MB"', "true"])
def test_max_file_size_must_be_a_positive_number_of_bytes(repo: Path, value: str) -> None:
    write(
        repo,
        {"tests/test_a.py": PLAIN, "pyproject.toml": f"[tool.detlint]\nmax-file-size = {value}\n"},
    )
    result = run()
    assert result.exit_code == 2
    assert "max-file-size must be a positive number of bytes" in result.output


def test_det901_help_says_what_was_skipped(repo: Path) -> None:
    write(
        repo,
        {
            ".buildkite/pipeline.yml": (
                'steps:\n  - label: ":gpu: kernels"\n    command: pytest tests\n'
                "    retry: {automatic: true\n  - label: docs\n    command: make docs\n"
            ),
            "tests/test_kernels.py": MARKED.replace(
                "(reruns=2)\ndef test_marked(", "(reruns=2)\ndef test_marked(:"
            ),
        },
    )
    by_path = {f["path"]: f for f in findings() if f["code"] == "DET901"}
    pipeline = by_path[".buildkite/pipeline.yml"]
    assert pipeline["line"] == 4
    assert pipeline["message"].endswith("; line 4 was skipped")
    assert pipeline["help"] == (
        "detlint skipped line 4 and read the rest of this file; the run went on"
    )
    test = by_path["tests/test_kernels.py"]
    assert test["help"] == (
        "detlint did not read this file, so no knob in it is checked; the run went on"
    )


def test_det901_help_of_a_pytest_setting_read_otherwise(repo: Path) -> None:
    write(repo, {"pytest.ini": "[pytest]\nreruns = often\n", "tests/test_a.py": MARKED})
    [setting] = [f for f in findings() if f["code"] == "DET901"]
    assert (setting["path"], setting["line"]) == ("pytest.ini", 2)
    assert setting["message"] == "reruns is not an integer: 'often'"
    assert setting["help"] == (
        "detlint read this file; at most the setting on line 2 was skipped, as the message says"
    )
