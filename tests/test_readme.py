"""The README shows real output: its examples must be what detlint prints."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from detlint.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def fenced_block_after(marker: str, language: str) -> str:
    match = re.search(re.escape(marker) + r".*?```" + language + r"\n(.*?)```", README, re.S)
    assert match, f"README has no ```{language} block after {marker!r}"
    return match.group(1)


def run_in_root(args: list[str]):
    previous = Path.cwd()
    os.chdir(ROOT)
    try:
        return CliRunner().invoke(cli, args, prog_name="detlint")
    finally:
        os.chdir(previous)


def test_readme_first_command_output_is_real():
    command = fenced_block_after("<!-- readme:install-and-run -->", "sh").strip()
    detlint_args = shlex.split(command.split(".venv/bin/detlint", 1)[1])
    result = run_in_root(detlint_args)
    assert result.exit_code == 1  # findings
    assert result.output == fenced_block_after("The first command above prints:", "text")


def test_readme_power_output_is_real():
    result = run_in_root(["power", "--trials", "5", "--reruns", "3"])
    assert result.exit_code == 0
    assert result.output == fenced_block_after("shows the whole curve:", "text")


def test_readme_opens_with_the_two_commands():
    first, second = re.findall(r"<!-- readme:([a-z-]+) -->", README)[:2]
    assert (first, second) == ("install-and-run", "test")
    assert "pytest" in fenced_block_after("<!-- readme:test -->", "sh")
