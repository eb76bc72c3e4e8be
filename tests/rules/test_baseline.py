"""The baseline on real runs: recorded findings survive edits around them, changed or
new knobs are reported, removed ones are counted as gone, a broken file is a
one-line error, and a written file has the user's umask or keeps its permissions."""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest
from click.testing import CliRunner

from detlint.base.span import Span
from detlint.cli.main import cli
from detlint.engine import analyse
from detlint.readers.project.settings import Settings
from detlint.rules.baseline import (
    BASELINE_SCHEMA,
    BaselineError,
    compare_baseline,
    fingerprint,
    write_baseline,
)
from detlint.rules.catalogue import select_codes
from detlint.rules.finding import Finding

SELECTED = select_codes(None, ())

TESTS = """\
import pytest


@pytest.mark.flaky(reruns=3)
def test_one():
    pass


@pytest.mark.flaky(reruns=2)
def test_two():
    pass
"""

PIPELINE = """\
steps:
  - command: pytest tests
    soft_fail: true
"""


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures==16.7\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(TESTS)
    (tmp_path / ".buildkite").mkdir()
    (tmp_path / ".buildkite" / "pipeline.yml").write_text(PIPELINE)
    return tmp_path


def _findings(root):
    return analyse([root], root, Settings(), SELECTED).findings


def _edit(root, old, new, name="tests/test_a.py"):
    path = root / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def _written(root):
    findings = _findings(root)
    assert {f.code for f in findings} >= {"DET101", "DET401"}
    count = write_baseline(root / "baseline.json", findings, root)
    assert count == len(findings)
    return findings


def test_unchanged_tree_has_nothing_new(repo):
    findings = _written(repo)
    result = compare_baseline(repo / "baseline.json", _findings(repo), repo)
    assert (result.new, result.matched, result.gone) == ((), len(findings), 0)


def test_lines_inserted_above_and_reindentation_keep_findings_recorded(repo):
    findings = _written(repo)
    _edit(repo, "import pytest\n", "import pytest\nimport os\n\nA = 1\nB = 2\n")
    (repo / ".buildkite" / "pipeline.yml").write_text(
        "env:\n  A: 1\nsteps:\n    -   command: pytest tests\n        soft_fail:   true\n"
    )
    after = _findings(repo)

    # The edits really moved every finding, so a line-number match would fail here.
    def lines(found):
        return sorted((f.span.path, f.code, f.span.line) for f in found)

    assert [key[:2] for key in lines(after)] == [key[:2] for key in lines(findings)]
    assert all(a[2] != b[2] for a, b in zip(lines(after), lines(findings), strict=True))
    result = compare_baseline(repo / "baseline.json", after, repo)
    assert (result.new, result.gone) == ((), 0)


def test_a_changed_marker_is_new_and_its_old_self_gone(repo):
    _written(repo)
    _edit(repo, "reruns=3", "reruns=5")
    result = compare_baseline(repo / "baseline.json", _findings(repo), repo)
    ((new,),) = [result.new]
    assert (new.code, new.span.path, new.span.line) == ("DET101", "tests/test_a.py", 4)
    assert result.gone == 1


def test_a_removed_marker_is_counted_as_gone(repo):
    findings = _written(repo)
    _edit(repo, "@pytest.mark.flaky(reruns=2)\n", "")
    result = compare_baseline(repo / "baseline.json", _findings(repo), repo)
    assert result.new == ()
    assert (result.matched, result.gone) == (len(findings) - 1, 1)


def test_identical_markers_count_separately(repo):
    _edit(repo, "reruns=2", "reruns=3")  # two identical markers in one file
    _written(repo)
    more = "\n\n@pytest.mark.flaky(reruns=3)\ndef test_three():\n    pass\n"
    (repo / "tests" / "test_a.py").write_text(TESTS.replace("reruns=2", "reruns=3") + more)
    result = compare_baseline(repo / "baseline.json", _findings(repo), repo)
    # Two recorded copies cover two of the three now present: the last one is new.
    assert [(f.code, f.span.line) for f in result.new] == [("DET101", 14)]
    assert result.gone == 0
    one_left = TESTS.split("\n\n\n@pytest.mark.flaky(reruns=2)")[0] + "\n"
    assert one_left.count("@pytest.mark.flaky(reruns=3)") == 1
    (repo / "tests" / "test_a.py").write_text(one_left)
    result = compare_baseline(repo / "baseline.json", _findings(repo), repo)
    assert (result.new, result.gone) == ((), 1)


def test_file_is_sorted_stable_and_relative(repo):
    findings = _findings(repo)
    write_baseline(repo / "baseline.json", list(reversed(findings)), repo)
    first = (repo / "baseline.json").read_bytes()
    write_baseline(repo / "baseline.json", findings, repo)
    assert (repo / "baseline.json").read_bytes() == first
    document = json.loads(first)
    assert document["schema"] == BASELINE_SCHEMA
    entries = document["findings"]
    assert [(e["path"], e["line"]) for e in entries] == sorted(
        (e["path"], e["line"]) for e in entries
    )
    assert {e["path"] for e in entries} == {"tests/test_a.py", ".buildkite/pipeline.yml"}
    assert sorted(p.name for p in repo.iterdir()) == [
        ".buildkite",
        "baseline.json",
        "requirements.txt",
        "tests",
    ]  # no temporary file left behind


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        ('{"schema": "other/1", "findings": []}', "is not a detlint baseline"),
        (f'{{"schema": "{BASELINE_SCHEMA}"}}', "has no list of findings"),
        (f'{{"schema": "{BASELINE_SCHEMA}", "findings": [{{"code": 1}}]}}', "finding 1 needs"),
        (f'{{"schema": "{BASELINE_SCHEMA}", "findings": ["x"]}}', "finding 1 needs"),
    ],
)
def test_broken_baseline_is_a_one_line_error(tmp_path, content, message):
    (tmp_path / "b.json").write_text(content)
    with pytest.raises(BaselineError, match=message) as raised:
        compare_baseline(tmp_path / "b.json", [], tmp_path)
    assert "\n" not in str(raised.value)


def test_missing_baseline_and_unwritable_target(tmp_path):
    with pytest.raises(BaselineError, match="cannot read baseline"):
        compare_baseline(tmp_path / "missing.json", [], tmp_path)
    with pytest.raises(BaselineError, match="cannot write baseline"):
        write_baseline(tmp_path / "no" / "dir" / "b.json", [], tmp_path)


def _finding(code="DET101", path="t.py"):
    return Finding(code, "retry-marker", "warning", Span(path, 3, 1, 3, 20), "m", "h")


def test_fingerprint_ignores_layout_and_comments_but_not_the_knob():
    base = fingerprint(_finding(), "@pytest.mark.flaky(reruns=3)")
    assert fingerprint(_finding(), "    @pytest.mark.flaky(reruns=3)   # expect: DET101") == base
    assert fingerprint(_finding(), "@pytest.mark.flaky(reruns=5)") != base
    assert fingerprint(_finding(code="DET102"), "@pytest.mark.flaky(reruns=3)") != base
    assert fingerprint(_finding(path="u.py"), "@pytest.mark.flaky(reruns=3)") != base


@pytest.fixture
def restore_umask():
    """The test sets the process umask; the one before it is put back afterwards."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


POSIX_MODES = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")


def _write_baseline_via_cli(root, monkeypatch):
    """``detlint check --write-baseline baseline.json`` in ``root``; the file's mode."""
    monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, ["check", "--write-baseline", "baseline.json"])
    assert result.exit_code == 0, result.output + result.stderr
    assert "Wrote 3 findings to baseline.json" in result.output
    assert json.loads((root / "baseline.json").read_text())["schema"] == BASELINE_SCHEMA
    assert not [p.name for p in root.iterdir() if p.name.endswith(".tmp")]  # replaced whole
    return stat.S_IMODE((root / "baseline.json").stat().st_mode)


@POSIX_MODES
@pytest.mark.parametrize(
    ("mask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)], ids=["022", "002", "077"]
)
def test_a_new_baseline_gets_the_users_umask(repo, monkeypatch, restore_umask, mask, mode):
    os.umask(mask)
    assert _write_baseline_via_cli(repo, monkeypatch) == mode


@POSIX_MODES
@pytest.mark.parametrize("mode", [0o600, 0o664], ids=["600", "664"])
def test_a_rewritten_baseline_keeps_its_permissions(repo, monkeypatch, restore_umask, mode):
    os.umask(0o022)
    (repo / "baseline.json").write_text("an old baseline\n")
    (repo / "baseline.json").chmod(mode)
    assert _write_baseline_via_cli(repo, monkeypatch) == mode
