"""The README's CI snippets, run as far as this machine allows.

Each snippet is read out of README.md (the ```yaml block after its
``<!-- readme:snippet:NAME -->`` marker), parsed as the CI system would, and
its commands run with bash in a copy of ``examples/needle`` as the CI system
would run them: ``pip install detlint`` is the one line left out, because the
detlint under test is already on PATH. What a hosted service does with the
result (GitHub's SARIF upload, Buildkite's annotation) is checked at the
handover: the file or the ``buildkite-agent`` call it would receive. The
pre-commit snippet is exercised by tests/test_precommit.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from repo_expectations import repository_copy
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "needle"
SARIF_SCHEMA = Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json"
# Until a release is tagged, the snippets install a commit from the git URL, which the
# reader fills in; tests/test_install.py runs this very line against a local clone.
INSTALL = 'pip install "git+https://github.com/detlint/detlint@<commit>"'
GITLAB_SCHEMA = Path(__file__).parent / "schemas" / "gitlab-code-quality.json"


def snippet(name: str) -> str:
    """The first ```yaml block after ``<!-- readme:snippet:NAME -->`` in README.md."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(f"<!-- readme:snippet:{name} -->")
    fence = next(i for i in range(start, len(lines)) if lines[i].startswith("```yaml"))
    end = next(i for i in range(fence + 1, len(lines)) if lines[i].startswith("```"))
    return "\n".join(lines[fence + 1 : end]) + "\n"


def load(text: str) -> Any:
    return YAML(typ="safe", pure=True).load(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """examples/needle as a repository of its own, where a CI job would check it out."""
    return repository_copy(EXAMPLE, tmp_path / "needle")


def environment(extra_bin: Path | None = None) -> dict[str, str]:
    path = [str(Path(sys.executable).parent), os.environ.get("PATH", "/usr/bin:/bin")]
    if extra_bin is not None:
        path.insert(0, str(extra_bin))
    return {**os.environ, "PATH": os.pathsep.join(path)}


def bash(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``bash -e -c``: how GitHub's default shell, GitLab and Buildkite run a command."""
    return subprocess.run(
        ["bash", "-e", "-c", command], cwd=cwd, env=env, capture_output=True, text=True
    )


def without_install(commands: list[str]) -> list[str]:
    assert INSTALL in commands, "the snippet must say how to install detlint"
    return [command for command in commands if command != INSTALL]


def test_pre_commit_snippet_names_the_hook_this_repository_defines() -> None:
    config = load(snippet("pre-commit"))
    (repository,) = config["repos"]
    hooks = load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [hook["id"] for hook in repository["hooks"]] == ["detlint"]
    assert "detlint" in {hook["id"] for hook in hooks}
    # No release is tagged: the rev is the commit `pre-commit autoupdate --freeze` writes
    # (tests/test_snippet_pins.py runs it).
    assert repository["rev"] == "<commit>"


def test_github_snippet_annotates_and_writes_valid_sarif(repo: Path) -> None:
    import jsonschema

    workflow = load(snippet("github"))
    assert workflow["permissions"]["security-events"] == "write"
    (job,) = workflow["jobs"].values()
    steps = job["steps"]
    runs = [step for step in steps if "run" in step]
    assert without_install([step["run"] for step in runs])
    results = {}
    for step in runs:
        if step["run"] == INSTALL:
            continue
        results[step["run"]] = bash(step["run"], repo, environment())
    annotate, sarif = (results[step["run"]] for step in runs if step["run"] != INSTALL)
    # The annotation step fails the job on findings and prints workflow commands.
    assert annotate.returncode == 1
    commands = annotate.stdout.splitlines()
    assert any(
        line.startswith("::warning file=tests/test_batch_invariance.py,") for line in commands
    )
    assert all(line.startswith("::") for line in commands)
    # The SARIF step runs whatever the step before it said, and hands the upload a valid file.
    sarif_step = next(step for step in runs if "sarif" in step["run"])
    assert sarif_step["if"] == "always()"
    assert sarif.returncode == 0, sarif.stderr
    upload = next(step for step in steps if "upload-sarif" in step.get("uses", ""))
    assert upload["if"] == "always()"
    document = json.loads((repo / upload["with"]["sarif_file"]).read_text())
    jsonschema.Draft7Validator(json.loads(SARIF_SCHEMA.read_text())).validate(document)
    (run,) = document["runs"]
    assert {result["ruleId"] for result in run["results"]} == {"DET101", "DET411", "DET501"}


def buildkite_interpolated(text: str) -> str:
    """The pipeline as Buildkite runs it: it interpolates $VARIABLES when the pipeline is
    uploaded, and `$$` is its escape for a `$` the shell sees. The snippet must escape
    every `$`, or Buildkite would substitute the build's own variables."""
    import re

    assert re.search(r"(?<!\$)\$(?!\$)", text.replace("$$", "")) is None
    return text.replace("$$", "$")


def buildkite_step() -> dict[str, Any]:
    (step,) = load(buildkite_interpolated(snippet("buildkite")))["steps"]
    return dict(step)


def test_buildkite_snippet_annotates_the_build_and_fails_the_step(
    repo: Path, tmp_path: Path
) -> None:
    step = buildkite_step()
    agent_bin = tmp_path / "bin"
    agent_bin.mkdir()
    calls = tmp_path / "agent-calls"
    agent = agent_bin / "buildkite-agent"
    agent.write_text(f'#!/bin/sh\necho "$@" >> {calls}\ncat > {calls}.stdin\n')
    agent.chmod(0o755)
    # Buildkite joins a command list with newlines and runs it with `bash -e -c`.
    done = bash("\n".join(without_install(step["command"])), repo, environment(agent_bin))
    assert done.returncode == 1, done.stderr
    assert calls.read_text().split() == ["annotate", "--style", "warning", "--context", "detlint"]
    markdown = Path(f"{calls}.stdin").read_text()
    table = [line for line in markdown.splitlines() if line.startswith("| [DET")]
    assert sorted(row.split("]")[0] for row in table) == ["| [DET101", "| [DET411", "| [DET501"]
    assert "`tests/test_batch_invariance.py:25:2`" in markdown


def test_buildkite_snippet_keeps_a_usage_error_apart_from_findings(
    repo: Path, tmp_path: Path
) -> None:
    # A broken config is exit 2: the step fails with it, and nothing is annotated.
    (repo / "pyproject.toml").write_text("[tool.detlint\n")
    agent_bin = tmp_path / "bin"
    agent_bin.mkdir()
    calls = tmp_path / "agent-calls"
    (agent_bin / "buildkite-agent").write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    (agent_bin / "buildkite-agent").chmod(0o755)
    step = buildkite_step()
    done = bash("\n".join(without_install(step["command"])), repo, environment(agent_bin))
    assert done.returncode == 2, done.stderr
    assert "pyproject.toml is not valid TOML" in done.stderr
    assert not calls.exists()


def test_buildkite_snippet_leaves_no_annotation_on_a_clean_tree(repo: Path, tmp_path: Path) -> None:
    step = buildkite_step()
    for path in repo.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            path.unlink()
    (repo / "test_plain.py").write_text("def test_sum():\n    assert 1 + 1 == 2\n")
    agent_bin = tmp_path / "bin"
    agent_bin.mkdir()
    (agent_bin / "buildkite-agent").write_text("#!/bin/sh\nexit 99\n")
    (agent_bin / "buildkite-agent").chmod(0o755)
    done = bash("\n".join(without_install(step["command"])), repo, environment(agent_bin))
    assert done.returncode == 0, done.stderr


def test_gitlab_snippet_writes_the_junit_report_it_declares(repo: Path) -> None:
    (job,) = load(snippet("gitlab")).values()
    assert job["artifacts"]["when"] == "always"
    done = bash("\n".join(without_install(job["script"])), repo, environment())
    assert done.returncode == 1, done.stderr
    report = repo / job["artifacts"]["reports"]["junit"]
    root = ElementTree.parse(report).getroot()
    failures = root.iter("failure")
    assert sum(1 for _ in failures) == 3  # DET101, DET411 and DET501, each in its own file/rule
    import jsonschema

    quality = json.loads((repo / job["artifacts"]["reports"]["codequality"]).read_text())
    jsonschema.Draft202012Validator(json.loads(GITLAB_SCHEMA.read_text())).validate(quality)
    assert sorted(issue["check_name"] for issue in quality) == ["DET101", "DET411", "DET501"]


def test_the_snippets_are_pipelines_detlint_finds_nothing_in(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".buildkite").mkdir()
    (repo / ".github" / "workflows" / "detlint.yml").write_text(snippet("github"))
    (repo / ".github" / "workflows" / "action.yml").write_text(snippet("github-action"))
    (repo / "action.yml").write_text((ROOT / "action.yml").read_text())
    (repo / ".buildkite" / "pipeline.yml").write_text(snippet("buildkite"))
    (repo / ".gitlab-ci.yml").write_text(snippet("gitlab"))
    (repo / ".pre-commit-config.yaml").write_text(snippet("pre-commit"))
    subprocess.run(["git", "init", "--quiet", str(repo)], check=True)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "detlint"), "check", "--select", "ALL"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_configuration_example_is_valid_config(tmp_path: Path) -> None:
    """The README's `[tool.detlint]` example loads, and every key in it takes effect."""
    from detlint.cli.config_files import load_settings

    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("```toml")
    end = lines.index("```", start + 1)
    (tmp_path / "pyproject.toml").write_text("\n".join(lines[start + 1 : end]) + "\n")
    settings = load_settings(None, tmp_path)
    assert settings.fail_on == "warning"
    assert settings.select == ("DET1", "DET2")
    assert settings.extend_exclude == ("generated/*", "legacy/*")
    assert settings.exclude is None  # the defaults stay
    assert settings.vendored_dirs == ("vendor",)
    assert dict(settings.per_file_ignores) == {"tests/stress/**": ("DET101",)}
    assert settings.retry_decorators == frozenset({"ourlib.testing.retry_test"})
    assert settings.quarantine_reason == "flaky: <tracking issue>"
