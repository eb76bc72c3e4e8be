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


def headings(level: str) -> list[str]:
    return [line[len(level) + 1 :] for line in README.splitlines() if line.startswith(level + " ")]


def first_screen() -> str:
    """What a reader sees before the long sections: the opening and "Try it"."""
    return README[: README.index("\n## What detlint is for\n") + 1] + "## What detlint is for"


def test_readme_try_it_comes_right_after_the_two_commands():
    markers = re.findall(r"<!-- readme:([a-z-]+) -->", README)
    assert markers[:3] == ["install-and-run", "test", "try"]
    assert headings("##")[0] == "Try it on your repository"
    install, check, baseline = fenced_block_after("<!-- readme:try -->", "sh").splitlines()
    # The CI snippets' install line (run for real by tests/test_install.py), with a comment.
    from test_readme_snippets import INSTALL

    assert shlex.split(install, comments=True) == shlex.split(INSTALL)
    assert shlex.split(check, comments=True) == ["detlint", "check"]
    assert shlex.split(baseline, comments=True) == [
        "detlint",
        "check",
        "--write-baseline",
        ".detlint-baseline.json",
    ]


def test_readme_try_it_commands_work_on_a_repository(tmp_path):
    """The second and third command, and the baseline run the section names, in a copy of
    examples/needle, with the installed `detlint` as a reader's shell finds it."""
    import subprocess
    import sys

    from repo_expectations import repository_copy

    repo = repository_copy(ROOT / "examples" / "needle", tmp_path / "needle")
    _, check, baseline = fenced_block_after("<!-- readme:try -->", "sh").splitlines()
    follow_up = re.search(r"`(detlint check --baseline [^`]+)`", first_screen())
    assert follow_up is not None
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"

    def run(command):
        return subprocess.run(
            ["bash", "-e", "-c", command],
            cwd=repo,
            env={**os.environ, "PATH": path},
            capture_output=True,
            text=True,
        )

    found = run(check)
    assert found.returncode == 1, found.stderr
    assert "tests/test_batch_invariance.py:25:2: DET101 " in found.stdout
    assert re.search(r"^Found 3 findings in \d+ files\.$", found.stdout, re.M)
    written = run(baseline)
    assert written.returncode == 0, written.stderr
    assert "Wrote 3 findings to .detlint-baseline.json." in written.stdout + written.stderr
    assert (repo / ".detlint-baseline.json").exists()
    again = run(follow_up.group(1))
    assert again.returncode == 0, again.stdout + again.stderr
    assert re.fullmatch(r"All checks passed \(\d+ files; 3 in baseline\)\.\n", again.stdout)


def test_readme_explains_its_jargon_on_the_first_screen():
    """The phrases every finding uses are explained above the long sections, and the
    first command's output uses them as explained."""
    screen = first_screen()
    assert screen.index("How to read a finding") < screen.index("## What detlint is for")
    for phrase in ("**a 10% violation**", "**reported X% instead\nof Y%**"):
        assert phrase in screen
    assert "**gates 1 test file**" in screen
    output = fenced_block_after("The first command above prints:", "text")
    assert "a 10% violation is reported 0.079% instead of 2.8%" in output
    whole = run_in_root(["check", "--no-cache", "--output-format", "full", "examples/needle"])
    assert "gates 1 test file under examples/needle/tests" in whole.output


def test_readme_speed_comes_after_the_adoption_material():
    top = headings("##")
    assert "Speed" in top
    assert top.index("Adopting detlint in a team") < top.index("Speed")
    for adoption in ("pre-commit", "GitHub Actions", "Buildkite", "GitLab CI"):
        assert README.index(f"### {adoption}\n") < README.index("## Speed\n")
    assert "Speed" not in headings("###")
