"""``--fix`` writes only files of the project that it may write, keeping what they are.

A file reached through a symlink to outside the project, a read-only file and a
file with other hard links are not written, each with its reason; a written
file keeps its mode, owner and group; an edit saved while detlint writes is kept.
Each case runs ``detlint check --fix`` on a small repository.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from click.testing import CliRunner

import detlint.fixes.apply as apply
from detlint.cli.main import cli

MARKED = "import pytest\n\n\n@pytest.mark.flaky(reruns=3)\ndef test_a():\n    assert True\n"
FIXED = MARKED.replace(
    "@pytest.mark.flaky(reruns=3)",
    '@pytest.mark.xfail(strict=False, reason="flaky: <tracking issue>")',
)


def fix(root: Path, monkeypatch) -> tuple[int, str]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(
        cli, ["check", "--fix-only", "--unsafe-fixes", "."], prog_name="detlint"
    )
    return result.exit_code, result.stderr


def test_a_symlink_to_a_file_outside_the_project_is_not_written(repository, monkeypatch):
    outside = repository.parent / f"{repository.name}-outside"
    outside.mkdir()
    (outside / "test_real.py").write_text(MARKED)
    (repository / "test_link.py").symlink_to(outside / "test_real.py")
    (repository / "test_own.py").write_text(MARKED)
    status, errors = fix(repository, monkeypatch)
    real = os.path.realpath(outside / "test_real.py")
    assert (
        f"test_link.py: not written: its real path {real} is outside the project "
        f"({os.path.realpath(repository)}) (1 fix not applied)"
    ) in errors.splitlines()
    # the quarantine the fix writes is a finding of its own
    assert "Fixed 1 finding (2 remaining)." in errors
    assert (outside / "test_real.py").read_text() == MARKED
    assert (repository / "test_link.py").is_symlink()
    assert (repository / "test_own.py").read_text() == FIXED
    assert status == 0


def test_a_symlink_to_a_file_inside_the_project_writes_its_target(repository, monkeypatch):
    (repository / "tests").mkdir()
    (repository / "tests" / "test_real.py").write_text(MARKED)
    (repository / "test_link.py").symlink_to(Path("tests") / "test_real.py")
    fix(repository, monkeypatch)
    assert (repository / "test_link.py").is_symlink()
    assert (repository / "tests" / "test_real.py").read_text() == FIXED


def test_a_read_only_file_is_not_written(repository, monkeypatch):
    path = repository / "test_ro.py"
    path.write_text(MARKED)
    path.chmod(0o444)
    _, errors = fix(repository, monkeypatch)
    assert "test_ro.py: not written: read-only (mode 0444) (1 fix not applied)" in errors
    assert "Fixed 0 findings (1 remaining)." in errors
    assert path.read_text() == MARKED
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_file_with_hard_links_is_not_written_and_the_links_stay_one_file(repository, monkeypatch):
    path = repository / "test_a.py"
    path.write_text(MARKED)
    other = repository.parent / f"{repository.name}-link.py"
    os.link(path, other)
    _, errors = fix(repository, monkeypatch)
    assert (
        "test_a.py: not written: has 2 hard links, which writing a new file would split "
        "(edit it by hand, or break the links first) (1 fix not applied)"
    ) in errors
    assert path.read_text() == MARKED
    assert os.path.samefile(path, other)


def test_a_written_file_keeps_its_mode_owner_and_group(repository, monkeypatch):
    path = repository / "test_a.py"
    path.write_text(MARKED)
    path.chmod(0o640)
    if os.geteuid() == 0:
        os.chown(path, 4321, 4322)  # as root: an owner and group not the runner's
    before = path.stat()
    _, errors = fix(repository, monkeypatch)
    assert "Fixed 1 finding (1 remaining)." in errors  # the quarantine written
    after = path.stat()
    assert path.read_text() == FIXED
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert stat.S_IMODE(after.st_mode) == 0o640


def test_an_edit_saved_while_detlint_writes_is_kept(repository, monkeypatch):
    """The user saves the file after detlint's check and before its rename."""
    path = repository / "test_a.py"
    path.write_text(MARKED)
    saved = MARKED + "\n\ndef test_b():\n    pass\n"
    real_fsync = os.fsync

    def save_meanwhile(fd: int) -> None:
        real_fsync(fd)
        path.write_text(saved)

    monkeypatch.setattr(apply.os, "fsync", save_meanwhile)
    _, errors = fix(repository, monkeypatch)
    assert (
        "test_a.py: not written: changed while detlint was writing it; the file is as it "
        "was changed (1 fix not applied)"
    ) in errors
    assert path.read_text() == saved
    assert [p.name for p in repository.iterdir() if p.name.endswith(".tmp")] == []
