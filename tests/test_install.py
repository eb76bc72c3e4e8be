"""The README's install line for CI, run for real: until a release is tagged, the snippets
install a commit from detlint's git URL. The line is run as written, with the URL pointed
at a scratch clone of this working tree and the commit `git ls-remote` gives filled in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from test_precommit import git, working_tree_clone
from test_readme_snippets import INSTALL, load, snippet


def test_every_ci_snippet_installs_detlint_with_the_same_line() -> None:
    github = [
        step.get("run") for step in next(iter(load(snippet("github"))["jobs"].values()))["steps"]
    ]
    (buildkite,) = load(snippet("buildkite"))["steps"]
    gitlab = next(iter(load(snippet("gitlab")).values()))["script"]
    for commands in (github, buildkite["command"], gitlab):
        assert commands.count(INSTALL) == 1
        assert not [c for c in commands if c and c != INSTALL and "pip install" in c]


def test_the_install_line_installs_a_working_detlint(tmp_path: Path) -> None:
    clone = tmp_path / "detlint"
    commit = working_tree_clone(clone)
    # The commit the README's `git ls-remote` prints, filled in where the line says.
    listed = git("ls-remote", clone.as_uri(), "HEAD", cwd=tmp_path).split()[0]
    assert listed == commit
    assert INSTALL.endswith('@<commit>"'), INSTALL
    line = INSTALL.replace("https://github.com/detlint/detlint", clone.as_uri())
    line = line.replace("<commit>", listed)
    assert line != INSTALL
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # The venv's pip first on PATH, as after setup-python or in the python image.
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        ["bash", "-e", "-c", line],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    example = Path(__file__).resolve().parents[1] / "examples" / "needle"
    ran = subprocess.run(
        [str(venv / "bin" / "detlint"), "check", str(example), "--output-format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 1, ran.stderr
    assert '"code": "DET101"' in ran.stdout
