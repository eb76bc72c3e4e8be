"""The README shows real output: its example must be what detlint prints."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from detlint.cli import cli

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def fenced_block_after(marker: str, language: str) -> str:
    match = re.search(re.escape(marker) + r".*?```" + language + r"\n(.*?)```", README, re.S)
    assert match, f"README has no ```{language} block after {marker!r}"
    return match.group(1)


def test_readme_example_output_is_real():
    command = fenced_block_after("<!-- readme:install-and-run -->", "sh").strip()
    detlint_args = shlex.split(command.split(".venv/bin/detlint", 1)[1])
    printed = fenced_block_after("The first command above prints:", "text")
    result = CliRunner().invoke(cli, detlint_args, prog_name="detlint")
    assert result.exit_code == 0
    assert result.output == printed


def test_readme_opens_with_the_two_commands():
    first, second = re.findall(r"<!-- readme:([a-z-]+) -->", README)[:2]
    assert (first, second) == ("install-and-run", "test")
    assert "pytest" in fenced_block_after("<!-- readme:test -->", "sh")
