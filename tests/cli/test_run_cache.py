"""The run cache: a repeat ``detlint check`` of an unchanged tree reuses the stored
result and prints byte for byte what a fresh run prints; any change that could
change the result (a file's bytes or state, a file added or removed, the config,
a dependency pin, the rules asked) analyses afresh and prints the new result."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from repo_expectations import RERUN_PYPROJECT, RERUN_TEST

from detlint.cli import run_cache
from detlint.cli.main import cli
from detlint.cli.run_cache import RunCache
from detlint.fixes import build
from detlint.report.formats import FORMATS

PYPROJECT, TEST_A = RERUN_PYPROJECT, RERUN_TEST
# The default run's report on the tree above, as a fresh run prints it (concise).
DET101_RERUNS_2 = (
    "tests/test_a.py:4:2: DET101 rerun marker: a 10% violation is reported 0.10% instead of 10.0%"
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small project (a git repository of its own) with one rerun marker, as the
    working directory. Its files are a moment old, younger than the racy-time rule
    accepts, so these tests lift the rule (one test below keeps it)."""
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "tests" / "test_a.py").write_text(TEST_A)
    monkeypatch.chdir(root)
    monkeypatch.setattr(run_cache, "RACY_SECONDS", -60.0)
    return root


def check(*args: str) -> tuple[int, str, bool]:
    """``detlint check ARGS`` in the working directory: exit code, output, and whether
    the result came from the run cache."""
    before = RunCache.hits
    result = CliRunner().invoke(cli, ["check", *args], prog_name="detlint")
    assert result.exit_code in (0, 1), result.output + result.stderr
    return result.exit_code, result.stdout, RunCache.hits > before


def fresh(*args: str) -> tuple[int, str]:
    """What a run that reads every file afresh gives (exit code, output)."""
    code, output, hit = check("--no-cache", *args)
    assert not hit
    return code, output


def entries() -> list[Path]:
    """The stored run results in the test's own cache directory (conftest)."""
    cache = Path(os.environ["DETLINT_CACHE_DIR"])
    return [p for p in cache.glob("*/runs-check/*") if p.name != ".pruned"]


def test_a_repeat_run_is_a_hit_and_prints_the_same(repo: Path) -> None:
    code, first, hit = check()
    assert (code, hit) == (1, False)
    assert first.splitlines()[0] == DET101_RERUNS_2
    assert len(entries()) == 1
    assert check() == (1, first, True)
    assert check() == (1, first, True)
    assert fresh() == (1, first)


@pytest.mark.parametrize("output_format", sorted(FORMATS))
def test_every_format_of_a_hit_is_byte_identical_to_a_fresh_run(
    repo: Path, output_format: str
) -> None:
    check()  # the concise run stores the result the other formats read
    code, output, hit = check("--output-format", output_format)
    assert hit
    expected = fresh("--output-format", output_format)
    if output_format == "junit":  # the suite's time is the run's own
        output, expected = (re.sub(r'time="[0-9.]+"', "", text) for text in (output, expected[1]))
        assert output == expected
        assert code == 1
    else:
        assert (code, output) == expected
    assert "tests/test_a.py" in output


def test_statistics_and_verbose_lines_of_a_hit(repo: Path) -> None:
    check()
    assert check("--statistics")[1:] == (fresh("--statistics")[1], True)
    runner = CliRunner()
    cold = runner.invoke(cli, ["check", "-v", "--no-cache"], prog_name="detlint")
    warm = runner.invoke(cli, ["check", "-v"], prog_name="detlint")
    assert warm.stderr == cold.stderr
    assert "detlint: files checked: 2\n" in warm.stderr


def test_a_file_edited_to_the_same_size_is_read_again(repo: Path) -> None:
    check()
    test_a = repo / "tests" / "test_a.py"
    mtime = test_a.stat().st_mtime_ns
    test_a.write_text(TEST_A.replace("reruns=2", "reruns=3"))  # same size
    os.utime(test_a, ns=(mtime + 10**9, mtime + 10**9))
    code, output, hit = check()
    assert not hit
    assert "a 10% violation is reported 0.010% instead of 10.0%" in output
    assert (code, output) == fresh()
    assert check() == (code, output, True)


def test_same_size_and_same_mtime_is_still_read_again(repo: Path) -> None:
    """An edit that keeps the size and puts the modification time back still changes
    the file's change time (ctime), which the signature holds."""
    check()
    test_a = repo / "tests" / "test_a.py"
    before = test_a.stat()
    time.sleep(0.05)  # past the filesystem's timestamp granularity
    test_a.write_text(TEST_A.replace("reruns=2", "reruns=3"))
    os.utime(test_a, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert test_a.stat().st_mtime_ns == before.st_mtime_ns
    code, output, hit = check()
    assert not hit
    assert "reported 0.010% instead of 10.0%" in output  # reruns=3
    assert (code, output) == fresh()


def test_a_file_added_and_removed(repo: Path) -> None:
    check()
    added = repo / "tests" / "test_b.py"
    added.write_text(TEST_A.replace("reruns=2", "reruns=1"))
    code, output, hit = check()
    assert not hit
    assert "tests/test_b.py:4:2: DET101" in output
    assert "Found 2 findings in 3 files." in output
    assert (code, output) == fresh()
    (repo / "tests" / "test_a.py").unlink()
    code, output, hit = check()
    assert not hit
    assert "tests/test_a.py" not in output
    assert "Found 1 finding in 2 files." in output
    assert (code, output) == fresh()


def test_a_config_change(repo: Path) -> None:
    check()
    with (repo / "pyproject.toml").open("a") as stream:
        stream.write('\n[tool.detlint]\nignore = ["DET101"]\n')
    code, output, hit = check()
    assert (code, hit) == (0, False)
    assert "DET101" not in output
    assert (code, output) == fresh()


def test_a_dependency_pin_change(repo: Path) -> None:
    check()
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(PYPROJECT.replace("pytest-rerunfailures==14.0", "flaky==3.8.1"))
    code, output, hit = check()
    assert (code, hit) == (1, False)
    assert output.startswith(
        "tests/test_a.py:4:2: DET102 `reruns=` is not an argument of the flaky package's "
        "marker: the test errors with a TypeError at setup instead of running (reported "
        "100% of the time, violation or not)\n"
    )
    assert (code, output) == fresh()


def test_a_different_selection_has_an_entry_of_its_own(repo: Path) -> None:
    code, default, _ = check()
    code, output, hit = check("--select", "DET102")
    assert (code, hit) == (0, False)
    assert "DET101" not in output
    assert (code, output) == fresh("--select", "DET102")
    assert check("--select", "DET102") == (0, output, True)
    assert check() == (1, default, True)
    assert len(entries()) == 2


def test_no_cache_and_clean(repo: Path) -> None:
    fresh()
    assert entries() == []  # --no-cache stores nothing
    code, output, _ = check()
    assert len(entries()) == 1
    assert check("--no-cache")[2] is False
    cleaned = CliRunner().invoke(cli, ["clean"], prog_name="detlint")
    assert cleaned.exit_code == 0
    assert "Removed" in cleaned.output
    assert entries() == []
    assert check() == (code, output, False)
    assert check() == (code, output, True)


def test_writing_modes_and_a_part_of_the_tree_are_never_reused(repo: Path) -> None:
    check()
    assert check("--diff", "--unsafe-fixes")[2] is False
    assert check("--fix", "--unsafe-fixes")[2] is False  # fixed: the marker is gone
    assert "DET101" not in check()[1]
    entries_before = len(entries())
    assert check("tests")[2] is False
    assert check("tests")[2] is False
    assert len(entries()) == entries_before


def test_a_tree_modified_within_two_seconds_is_not_stored(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As git's racy-clean rule: a file as new as the run may change again unseen."""
    monkeypatch.setattr(run_cache, "RACY_SECONDS", 2.0)
    first = check()
    assert entries() == []
    assert check() == first  # a miss again
    time.sleep(2.1)
    assert check()[2] is False
    assert len(entries()) == 1
    assert check() == (first[0], first[1], True)


# A run cache entry keeps the findings' fixes as built from the tree it analysed: a
# repeat check marks and counts the same fixes, in every format, without building any.
def test_a_repeat_run_marks_the_same_fixes_and_builds_none(
    repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, fresh, reused = check("--unsafe-fixes")
    assert (status, reused) == (1, False)
    assert "DET101 [*] rerun marker" in fresh
    assert "[*] 1 fixable with the `--fix` option." in fresh
    _, fresh_json, _ = check("--output-format", "json")

    def no_build(*args: object, **kwargs: object) -> object:
        raise AssertionError("a repeat run on an unchanged tree built a fix")

    monkeypatch.setattr(build, "build_fixes", no_build)
    status, again, reused = check("--unsafe-fixes")
    assert (status, reused) == (1, True)
    assert again == fresh
    _, again_json, reused = check("--output-format", "json")
    assert reused
    assert again_json == fresh_json
    assert '"fixable": true' in again_json or '"fix": {' in again_json


def test_a_changed_tree_builds_its_fixes_afresh(repo, monkeypatch) -> None:
    check()
    (repo / "tests" / "test_a.py").write_text(
        "import pytest\n\n\n@pytest.mark.flaky(reruns=3)\ndef test_one():\n    assert True\n"
    )
    calls = []
    real = build.build_fixes
    monkeypatch.setattr(build, "build_fixes", lambda *a: calls.append(1) or real(*a))
    status, output, reused = check("--unsafe-fixes")
    assert (status, reused, calls) == (1, False, [1])
    assert "DET101 [*] rerun marker" in output
