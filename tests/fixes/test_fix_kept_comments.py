"""A marker replaced by one line keeps the comments written inside it, as comment
lines above the line it started on."""

from __future__ import annotations

from click.testing import CliRunner

from detlint.cli.main import cli

BEFORE = """\
import pytest


@pytest.mark.flaky(
    reruns=3,  # the network is slow
    # and so is the disk
)
def test_a():
    assert True
"""
AFTER = """\
import pytest


# the network is slow
# and so is the disk
@pytest.mark.xfail(strict=False, reason="flaky: <tracking issue>")
def test_a():
    assert True
"""


def test_fix_keeps_the_comments_inside_the_replaced_marker(repository, monkeypatch):
    (repository / "test_a.py").write_text(BEFORE)
    monkeypatch.chdir(repository)
    result = CliRunner().invoke(
        cli, ["check", "--fix-only", "--unsafe-fixes", "."], prog_name="detlint"
    )
    assert "Fixed 1 finding" in result.stderr, result.output
    assert (repository / "test_a.py").read_text() == AFTER
