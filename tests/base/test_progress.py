"""The progress bar: drawn on a terminal only, never by a forked worker, never
imported by runs that show none, and without effect on what a run finds."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import detlint.base.progress
from detlint.base.progress import NULL_PROGRESS, progress_bar
from detlint.engine import PARALLEL_THRESHOLD, analyse
from detlint.readers.project.settings import Settings
from detlint.rules.catalogue import select_codes

ROOT = Path(__file__).parents[2]
REPOS = Path(__file__).parents[1] / "fixtures" / "repos"
SELECTED = select_codes(None, ())
PHASES = ("reading pipelines", "reading files", "linking tests", "linking CI steps", "judging")


class Terminal(io.StringIO):
    """A standard error that says it is a terminal, and keeps what is written to it."""

    def isatty(self) -> bool:
        return True


class SharedTerminal(Terminal):
    """A terminal whose writes also reach a file, so that a forked child's show up."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)

    def write(self, text: str) -> int:
        os.write(self.fd, text.encode())
        return super().write(text)


def on_terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    """Standard error is a terminal, and the bar is drawn from the start. Called in the
    test itself: pytest's output capture sets ``sys.stderr`` again after fixtures run."""
    fake = Terminal()
    monkeypatch.setattr(sys, "stderr", fake)
    monkeypatch.setattr(detlint.base.progress, "DELAY_SECONDS", 0.0)
    return fake


def counts_within_totals(text: str) -> bool:
    """Whether every ``n/total`` the bar drew has n <= total."""
    pairs = re.findall(r"(\d+)/(\d+) (?:files|steps)", text)
    return bool(pairs) and all(int(n) <= int(total) for n, total in pairs)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_with_pipelines_shows_each_phase(jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = on_terminal(monkeypatch)
    root = REPOS / "ci_pipelines"
    with progress_bar(True) as progress:
        analysis = analyse([root], root, Settings(), SELECTED, jobs=jobs, progress=progress)
    written = terminal.getvalue()
    for phase in PHASES:
        assert f"{phase}: " in written
    assert analysis.ci is not None
    assert counts_within_totals(written)
    assert written.endswith("\r")  # the bar is erased (leave=False)


def test_a_run_without_pipelines_shows_its_phases(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from repo_expectations import repository_copy

    terminal = on_terminal(monkeypatch)
    # A repository of its own: inside this one, its pipelines would be read as context.
    root = repository_copy(REPOS / "flaky_pkg", tmp_path / "flaky_pkg")
    with progress_bar(True) as progress:
        analyse([root], root, Settings(), SELECTED, jobs=1, progress=progress)
    written = terminal.getvalue()
    for phase in ("reading files", "linking tests", "judging"):
        assert f"{phase}: " in written
    assert "reading pipelines" not in written
    assert counts_within_totals(written)


def test_a_run_shorter_than_the_delay_draws_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = on_terminal(monkeypatch)
    monkeypatch.setattr(detlint.base.progress, "DELAY_SECONDS", 3600.0)
    root = REPOS / "ci_pipelines"
    with progress_bar(True) as progress:
        analyse([root], root, Settings(), SELECTED, jobs=1, progress=progress)
    assert terminal.getvalue() == ""


def test_disabled_draws_nothing_even_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = on_terminal(monkeypatch)
    root = REPOS / "ci_pipelines"
    with progress_bar(False) as progress:
        assert progress is NULL_PROGRESS
        analyse([root], root, Settings(), SELECTED, jobs=1, progress=progress)
    assert terminal.getvalue() == ""


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter whose standard error is a pipe, not a terminal."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )


def test_without_a_terminal_nothing_is_written_and_tqdm_is_not_imported() -> None:
    done = run_python(
        f"""
        import sys
        from pathlib import Path
        import detlint.base.progress
        from detlint.engine import analyse
        from detlint.base.progress import NULL_PROGRESS, progress_bar
        from detlint.rules.catalogue import select_codes
        from detlint.readers.project.settings import Settings

        detlint.base.progress.DELAY_SECONDS = 0.0
        root = Path({str(REPOS / "ci_pipelines")!r})
        with progress_bar(True) as progress:
            assert progress is NULL_PROGRESS
            analyse([root], root, Settings(), select_codes(None, ()), progress=progress)
        print("tqdm" in sys.modules)
        """
    )
    assert done.stdout == "False\n"
    assert done.stderr == ""


def test_check_does_not_import_tqdm() -> None:
    done = run_python(
        """
        import sys
        from click.testing import CliRunner
        from detlint.cli.main import cli

        result = CliRunner().invoke(cli, ["check", "examples/needle"], prog_name="detlint")
        assert result.exit_code in (0, 1), result.output
        print("tqdm" in sys.modules)
        """
    )
    assert done.stdout == "False\n"


def test_a_forked_child_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written = tmp_path / "stderr"
    fake = SharedTerminal(written)
    monkeypatch.setattr(sys, "stderr", fake)
    monkeypatch.setattr(detlint.base.progress, "DELAY_SECONDS", 0.0)
    try:
        with progress_bar(True) as progress:
            progress.phase("parent", 10)
            before = written.stat().st_size
            assert before > 0  # drawn at once: without the delay, every call draws
            pid = os.fork()
            if pid == 0:
                status = 1
                try:
                    progress.advance(3)
                    progress.phase("child", 5)
                    progress.advance()
                    progress.close()
                    status = 0
                finally:
                    os._exit(status)
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
            assert written.stat().st_size == before
            progress.phase("parent again", 10)  # the parent's bar still draws
            assert written.stat().st_size > before
            assert "child" not in written.read_text()
    finally:
        os.close(fake.fd)


FLAKY = """\
import pytest


@pytest.mark.flaky(reruns=2)
def test_flaky_{n}():
    pass
"""
PIPELINE = """\
steps:
  - label: tests
    command: pytest --reruns 2 tests
    retry:
      automatic: true
"""


@pytest.mark.parametrize("pipelines", [False, True], ids=["scan", "staged"])
def test_the_bar_changes_no_finding(
    tmp_path: Path, pipelines: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enough files for worker processes (fork_map, or the staged scan with a pipeline),
    each inheriting the bar."""
    terminal = on_terminal(monkeypatch)
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures==16.7\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    if pipelines:
        (tmp_path / ".buildkite").mkdir()
        (tmp_path / ".buildkite" / "pipeline.yml").write_text(PIPELINE)
    tests = tmp_path / "tests"
    tests.mkdir()
    for n in range(PARALLEL_THRESHOLD):
        (tests / f"test_{n:04d}.py").write_text(FLAKY.format(n=n))
    counted: list[tuple[str, int, int]] = []  # (description, count, total) after advancing

    class Recording(detlint.base.progress._Bar):
        __slots__ = ()

        def advance(self, count: int = 1) -> None:
            super().advance(count)
            counted.append((self.bar.desc, self.bar.n, self.bar.total))

    monkeypatch.setattr(detlint.base.progress, "_Bar", Recording)
    plain = analyse([tmp_path], tmp_path, Settings(), SELECTED, jobs=2)
    with progress_bar(True) as progress:
        shown = analyse([tmp_path], tmp_path, Settings(), SELECTED, jobs=2, progress=progress)
    assert shown.findings == plain.findings
    assert shown.gates == plain.gates
    assert shown.modules == plain.modules
    assert [finding.code for finding in shown.findings].count("DET101") == PARALLEL_THRESHOLD
    written = terminal.getvalue()
    assert "reading files: " in written
    assert counts_within_totals(written)
    assert all(count <= total for _, count, total in counted)
    reading = [count for description, count, _ in counted if description == "reading files"]
    assert reading[-1] == PARALLEL_THRESHOLD  # complete once the scan is
    if not pipelines:  # fork_map's parent counts its share as it goes, two files a file
        assert reading[: PARALLEL_THRESHOLD // 2] == list(range(2, PARALLEL_THRESHOLD + 1, 2))


def test_advance_never_passes_the_total(monkeypatch: pytest.MonkeyPatch) -> None:
    on_terminal(monkeypatch)
    with progress_bar(True) as progress:
        progress.phase("counting", 3)
        progress.advance(2)
        progress.advance(5)
        assert (progress.bar.n, progress.bar.total) == (3, 3)  # type: ignore[attr-defined]
        progress.phase("again", 4, "steps")
        assert (progress.bar.n, progress.bar.total) == (0, 4)  # type: ignore[attr-defined]
        progress.advance()
        assert progress.bar.n == 1  # type: ignore[attr-defined]
