"""What ``detlint check`` says about fixes: only a fix ``--fix`` can make is fixable.

A finding whose plan cannot be carried out (the reason is ``fix_unavailable`` in
JSON) is never marked ``[*]``, counted in "N fixable" or in ``--statistics``;
``--statistics`` marks codes as ruff does; ``--diff`` says what ``--unsafe-fixes``
would add; ``check - --fix`` prints the fixed text; an ignore comment naming a
code no rule has is a warning.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from detlint.cli.main import cli

NEEDLE = Path(__file__).parents[2] / "examples" / "needle"

# The flaky package's decorator in a module that never imports pytest: the
# quarantine the fix writes (pytest.mark.xfail) has no name to use.
NO_PYTEST = "from flaky import flaky\n\n\n@flaky(max_runs=3)\ndef test_kernel():\n    assert True\n"


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, ["check", *args], prog_name="detlint", input=stdin)


@pytest.fixture
def unfixable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "requirements.txt").write_text("flaky\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_kernel.py").write_text(NO_PYTEST)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def needle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "needle"
    shutil.copytree(NEEDLE, target)
    monkeypatch.chdir(target)
    return target


def test_a_fix_that_cannot_be_made_is_not_marked_or_counted(unfixable: Path) -> None:
    concise = invoke("--unsafe-fixes")
    assert concise.exit_code == 1
    (head,) = [line for line in concise.stdout.splitlines() if "DET101" in line]
    assert head.startswith("tests/test_kernel.py:4:2: DET101 flaky decorator")
    assert "[*]" not in concise.stdout
    assert "fixable" not in concise.stdout
    assert "hidden fix" not in invoke().stdout  # nor counted as a fix --unsafe-fixes would add

    full = invoke("--unsafe-fixes", "--output-format", "full").stdout
    assert "[*]" not in full
    assert "  = fix unavailable: the module does not import pytest\n" in full
    assert "= fix (unsafe)" not in full

    stats = invoke("--unsafe-fixes", "--statistics").stdout
    assert stats == "1\tDET101\tretry-marker\n"
    rows = json.loads(invoke("--unsafe-fixes", "--statistics", "--output-format", "json").stdout)
    assert rows == [{"code": "DET101", "name": "retry-marker", "count": 1, "fixable": False}]

    document = json.loads(invoke("--unsafe-fixes", "--output-format", "json").stdout)
    (det101,) = document["findings"]
    assert det101["fix"] is None
    assert det101["fix_unavailable"] == "the module does not import pytest"
    sarif = json.loads(invoke("--unsafe-fixes", "--output-format", "sarif").stdout)
    assert "fixes" not in sarif["runs"][0]["results"][0]


def test_statistics_mark_fixable_codes_as_ruff_does(needle: Path) -> None:
    unsafe = invoke("--statistics", "--unsafe-fixes")
    assert unsafe.stdout == (
        "1\tDET101\t[*] retry-marker\n1\tDET411\t[*] job-retry\n1\tDET501\t[ ] stacked-retries\n"
    )
    # Without --unsafe-fixes nothing is fixable (every needle fix is unsafe): no markers.
    assert invoke("--statistics").stdout == (
        "1\tDET101\tretry-marker\n1\tDET411\tjob-retry\n1\tDET501\tstacked-retries\n"
    )


def test_diff_with_only_unsafe_fixes_says_how_to_see_them(needle: Path) -> None:
    hidden = invoke("--diff")
    assert hidden.exit_code == 0
    assert hidden.stdout == ""
    assert hidden.stderr == (
        "Would fix 0 findings (2 unsafe fixes hidden; add --unsafe-fixes to see them).\n"
    )
    shown = invoke("--diff", "--unsafe-fixes")
    assert shown.exit_code == 1
    assert shown.stderr == "Would fix 2 findings.\n"


def test_fix_on_standard_input_prints_the_fixed_text(needle: Path) -> None:
    path = "tests/test_batch_invariance.py"
    before = (needle / path).read_text()
    result = invoke("-", "--stdin-filename", path, "--fix", "--unsafe-fixes", stdin=before)
    assert result.exit_code == 0
    expected = before.replace('"NEEDLE_TRIALS", "5"', '"NEEDLE_TRIALS", "29"').replace(
        "@pytest.mark.flaky(reruns=3)\n", ""
    )
    assert expected != before
    assert result.stdout == expected
    assert "Found 1 finding in 1 file (1 fixed, 0 remaining)." in result.stderr
    assert (needle / path).read_text() == before  # the disk is never written

    # Nothing to fix (the fix is unsafe): the text comes back as it was read.
    kept = invoke("-", "--stdin-filename", path, "--fix", stdin=before)
    assert kept.exit_code == 1
    assert kept.stdout == before
    assert "DET101" in kept.stderr

    diff = invoke("-", "--stdin-filename", path, "--diff", "--unsafe-fixes", stdin=before)
    assert diff.exit_code == 1
    assert diff.stdout.startswith(f"--- a/{path}\n+++ b/{path}\n")
    assert '+NEEDLE_TRIALS = int(os.getenv("NEEDLE_TRIALS", "29"))\n' in diff.stdout
    assert (needle / path).read_text() == before


def test_an_unknown_code_in_an_ignore_comment_is_a_warning(unfixable: Path) -> None:
    module = unfixable / "tests" / "test_kernel.py"
    module.write_text(
        NO_PYTEST.replace("@flaky(max_runs=3)", "@flaky(max_runs=3)  # detlint: ignore[DET10]")
    )
    result = invoke()
    assert result.exit_code == 1  # the comment suppresses nothing
    assert result.stderr == (
        "warning: tests/test_kernel.py:4: `# detlint: ignore[DET10]` names an unknown code "
        "DET10, which suppresses nothing (codes are exact, e.g. DET101)\n"
    )
    assert "DET101" in result.stdout
    assert invoke("-q").stderr == ""
    module.write_text(
        NO_PYTEST.replace("@flaky(max_runs=3)", "@flaky(max_runs=3)  # detlint: ignore[DET101]")
    )
    clean = invoke()
    assert clean.exit_code == 0
    assert clean.stderr == ""


ALIASED = (
    "import pytest\n"
    "from flaky import flaky as fl{more}\n"
    "\n"
    "\n"
    "@fl(max_runs=3)\n"
    "def test_kernel():\n"
    "    assert {use}\n"
)
QUARANTINED = '@pytest.mark.xfail(strict=False, reason="flaky: <tracking issue>")\n'


@pytest.mark.parametrize(
    ("more", "use", "import_after"),
    [
        ("", "True", ""),  # the last use of `fl` goes: so does its import
        (", other", "other()", "from flaky import other\n"),  # only `fl` leaves the import
        ("", "fl", "from flaky import flaky as fl\n"),  # still used: kept
        ("", '"fl"', "from flaky import flaky as fl\n"),  # a string naming it: kept
    ],
)
def test_a_fix_removes_the_import_it_leaves_unused(
    unfixable: Path, more: str, use: str, import_after: str
) -> None:
    module = unfixable / "tests" / "test_kernel.py"
    module.write_text(ALIASED.format(more=more, use=use))
    result = invoke("--fix", "--unsafe-fixes")
    assert "Found 2 findings in 1 file (1 fixed, 1 remaining)." in result.stdout  # DET201 left
    assert module.read_text() == (
        f"import pytest\n{import_after}\n\n{QUARANTINED}def test_kernel():\n    assert {use}\n"
    )
    fixed = module.read_text()
    assert "(0 fixed" not in invoke("--fix", "--unsafe-fixes").stdout
    assert module.read_text() == fixed  # a second run changes nothing


def _help_and_fix(text: str, code: str) -> tuple[str, str]:
    """The help line and the fix line of ``code``'s finding in the full output."""
    block = text.split(f": {code} ", 1)[1]
    help_line = block.split("  = help: ", 1)[1].split("\n", 1)[0]
    fix_line = block.split("  = fix (unsafe): ", 1)[1].split("\n", 1)[0]
    return help_line, fix_line


def test_gitlab_retry_help_quotes_what_the_fix_writes(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("def test_x():\n    assert True\n")
    pipeline = tmp_path / ".gitlab-ci.yml"
    pipeline.write_text("test:\n  script:\n    - pytest tests\n  retry: 2\n")
    monkeypatch.chdir(tmp_path)
    help_line, fix_line = _help_and_fix(
        invoke("--unsafe-fixes", "--output-format", "full").stdout, "DET411"
    )
    value = "{max: 2, when: [runner_system_failure, stuck_or_timeout_failure, api_failure]}"
    assert help_line == f"retry infrastructure failures only: `retry: {value}`"
    assert fix_line == f"Retry infrastructure failures only: `retry: {value}`"
    assert invoke("--fix", "--unsafe-fixes").exit_code == 0
    assert pipeline.read_text() == f"test:\n  script:\n    - pytest tests\n  retry: {value}\n"


LOOPED = (
    "import pytest\n\n\ndef run():\n    return 1\n\n\n"
    "@pytest.mark.flaky(reruns=3)\ndef test_kernel():\n"
    "    for _ in range(5):\n        assert run() == 1\n"
)


def test_a_literal_trial_loop_is_raised_as_the_help_says(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures\n")
    (tmp_path / "tests").mkdir()
    module = tmp_path / "tests" / "test_loop.py"
    module.write_text(LOOPED)
    monkeypatch.chdir(tmp_path)
    help_line, fix_line = _help_and_fix(
        invoke("--unsafe-fixes", "--output-format", "full").stdout, "DET101"
    )
    assert help_line.startswith("drop the marker and raise the trial loop from 5 to 29 iterations")
    assert help_line.endswith('@pytest.mark.xfail(strict=False, reason="flaky: <tracking issue>")')
    assert fix_line == "Drop the rerun marker and raise the trial loop from 5 to 29 iterations"
    result = invoke("--fix", "--unsafe-fixes")
    assert result.exit_code == 0, result.output
    # The marker was the last use of pytest: its import goes with it.
    assert module.read_text() == (
        "def run():\n    return 1\n\n\ndef test_kernel():\n"
        "    for _ in range(29):\n        assert run() == 1\n"
    )


# A method's rerun marker 86 characters long: its quarantine is 90, over the default 88.
LONG_REASON = "a" * 43
METHOD = (
    "import pytest\n\n\nclass TestA:\n"
    f'    @pytest.mark.flaky(reruns=3, reason="{LONG_REASON}")\n'
    "    def test_kernel(self):\n        assert True\n"
)


@pytest.mark.parametrize(
    ("config", "decorator"),
    [
        ("", f'    @pytest.mark.xfail(\n        strict=False, reason="{LONG_REASON}"\n    )\n'),
        (
            "[tool.ruff]\nline-length = 100\n",
            f'    @pytest.mark.xfail(strict=False, reason="{LONG_REASON}")\n',
        ),
        (
            "[tool.black]\nline-length = 90\n",
            f'    @pytest.mark.xfail(strict=False, reason="{LONG_REASON}")\n',
        ),
    ],
)
def test_a_quarantine_keeps_to_the_line_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, decorator: str
) -> None:
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures\n")
    if config:
        (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "tests").mkdir()
    module = tmp_path / "tests" / "test_a.py"
    module.write_text(METHOD)
    assert max(len(line) for line in METHOD.splitlines()) == 86
    monkeypatch.chdir(tmp_path)
    invoke("--fix", "--unsafe-fixes")
    assert module.read_text() == (
        f"import pytest\n\n\nclass TestA:\n{decorator}    def test_kernel(self):\n"
        "        assert True\n"
    )
