"""Every fenced block of README.md and docs/*.md is checked for what it is.

A shell block must parse with ``bash -n`` and each ``detlint`` command in it must
be one the CLI accepts; a YAML block must load, and a CI or pre-commit snippet may
use only keys its system documents, with shell commands that parse; TOML, JSON,
INI and Python blocks must parse. A Buildkite snippet must write every ``$`` the
shell should see as ``$$``, since Buildkite interpolates ``$VARIABLES`` when the
pipeline is uploaded. No snippet may pin detlint to a tag this repository does not
have: until a release is tagged they pin ``<commit>``, which the README says how to
fill. The CI snippets of docs/ are then run in a copy of ``examples/needle``, as
tests/test_readme_snippets.py runs the README's.
"""

from __future__ import annotations

import ast
import configparser
import json
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from test_readme_snippets import bash, environment, load, repo  # noqa: F401 (fixture)

from detlint.base.toml_reader import load_toml
from detlint.cli.main import cli
from detlint.report.formats import INFORMATION_URL, RULES_URL

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PLACEHOLDER = "<commit>"

GITHUB_WORKFLOW_KEYS = {"name", "run-name", "on", "permissions", "env", "defaults", "jobs"}
GITHUB_JOB_KEYS = {
    "name", "runs-on", "steps", "needs", "if", "permissions", "env", "strategy", "outputs",
    "timeout-minutes", "continue-on-error", "container", "services", "defaults", "environment",
}  # fmt: skip
GITHUB_STEP_KEYS = {
    "name", "id", "if", "uses", "run", "with", "env", "shell", "continue-on-error",
    "working-directory", "timeout-minutes",
}  # fmt: skip
BUILDKITE_STEP_KEYS = {
    "label", "key", "command", "commands", "artifact_paths", "retry", "soft_fail", "agents",
    "env", "plugins", "depends_on", "if", "timeout_in_minutes", "parallelism", "branches",
    "allow_dependency_failure", "concurrency", "concurrency_group", "matrix", "skip",
    "priority", "cancel_on_build_failing", "notify",
}  # fmt: skip
GITLAB_JOB_KEYS = {
    "script", "image", "stage", "artifacts", "before_script", "after_script", "rules", "needs",
    "variables", "allow_failure", "retry", "when", "tags", "cache", "services", "extends",
    "timeout", "dependencies", "parallel", "interruptible", "environment", "coverage",
}  # fmt: skip
GITLAB_ARTIFACTS_KEYS = {"when", "reports", "paths", "expire_in", "name", "expose_as", "exclude"}
GITLAB_REPORT_KEYS = {"codequality", "junit", "dotenv", "coverage_report", "sast"}
PRE_COMMIT_REPO_KEYS = {"repo", "rev", "hooks"}
PRE_COMMIT_HOOK_KEYS = {"id", "args", "files", "exclude", "stages", "additional_dependencies"}


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its info string and its text."""

    path: Path
    line: int
    language: str
    text: str
    section: str = ""

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line} ```{self.language}"


def blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    section = ""
    while index < len(lines):
        if lines[index].startswith("## "):
            section = lines[index][3:].strip()
        opening = re.match(r"^(\s*)```(\S*)\s*$", lines[index])
        if opening is None:
            index += 1
            continue
        indent = len(opening.group(1))
        end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == "```")
        body = "\n".join(line[indent:] for line in lines[index + 1 : end]) + "\n"
        found.append(Block(path, index + 1, opening.group(2), body, section))
        index = end + 1
    return found


ALL_BLOCKS = [block for path in DOCUMENTS for block in blocks(path)]


def bash_parses(command: str) -> None:
    done = subprocess.run(["bash", "-n", "-c", command], capture_output=True, text=True)
    assert done.returncode == 0, f"{command!r}: {done.stderr}"


def detlint_accepts(arguments: list[str]) -> None:
    """Parse a ``detlint`` command line as the CLI would, without running it."""
    name, *rest = arguments
    command = cli.get_command(click.Context(cli), name)
    assert command is not None, f"detlint has no command {name!r}"
    try:
        command.make_context(name, rest)
    except click.exceptions.Exit:
        pass
    except click.BadParameter as error:
        # A file the reader has (a baseline, a report) need not exist here.
        if "does not exist" not in error.format_message():
            raise


def detlint_lines(shell: str) -> list[list[str]]:
    """The arguments of each simple command in the text that runs ``detlint`` (or a
    venv's ``bin/detlint``), its redirections left out."""
    commands: list[list[str]] = [[]]
    for line in shell.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = iter(lexer)
        for token in tokens:
            if "<" in token or ">" in token:
                next(tokens, None)  # the redirection's file
            elif token in ("&&", "||", ";", "|", "&", "(", ")", ";;"):
                commands.append([])
            else:
                commands[-1].append(token)
        commands.append([])
    return [
        words[1:]
        for words in commands
        if words and (words[0] == "detlint" or words[0].endswith("/bin/detlint"))
    ]


def pinned_refs(text: str) -> list[str]:
    """The refs a snippet pins detlint's own repository to."""
    refs = re.findall(r"github\.com/detlint/detlint@([^\"'\s]+)", text)
    refs += re.findall(r"uses: detlint/detlint@(\S+)", text)
    if "github.com/detlint/detlint" in text:
        refs += re.findall(r"(?m)^\s*rev:\s*(\S+)", text)
    return refs


def existing_tags() -> set[str]:
    done = subprocess.run(
        ["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def system(block: Block, document: Any) -> str:
    """Which CI system (or pre-commit) a YAML snippet is for, or "" for other YAML."""
    if isinstance(document, dict) and "repos" in document:
        return "pre-commit"
    if isinstance(document, dict) and "jobs" in document:
        return "github-workflow"
    if (isinstance(document, dict) and "steps" in document) or block.text.startswith("# Buildkite"):
        return "buildkite"
    if isinstance(document, list) and all("run" in s or "uses" in s for s in document):
        return "github-steps"
    if isinstance(document, dict) and all(
        isinstance(job, dict) and "script" in job for job in document.values()
    ):
        return "gitlab"
    return ""


def buildkite_unescaped_dollars(text: str) -> list[str]:
    """The lines with a `$` Buildkite would interpolate at upload (`$$` is its escape)."""
    return [line for line in text.splitlines() if "$" in line.replace("$$", "")]


def check_github_steps(steps: list[dict[str, Any]]) -> None:
    for step in steps:
        assert set(step) <= GITHUB_STEP_KEYS, set(step) - GITHUB_STEP_KEYS
        assert ("run" in step) != ("uses" in step)
        if "run" in step:
            bash_parses(step["run"])
            for arguments in detlint_lines(step["run"]):
                detlint_accepts(arguments)


def check_ci_snippet(kind: str, block: Block, document: Any) -> None:
    """The keys of a CI snippet are its system's, and its commands parse."""
    if kind == "github-workflow":
        assert set(document) <= GITHUB_WORKFLOW_KEYS, set(document) - GITHUB_WORKFLOW_KEYS
        for job in document["jobs"].values():
            assert set(job) <= GITHUB_JOB_KEYS, set(job) - GITHUB_JOB_KEYS
            check_github_steps(job["steps"])
    elif kind == "github-steps":
        check_github_steps(document)
    elif kind == "buildkite":
        assert buildkite_unescaped_dollars(block.text) == []
        document = load(block.text.replace("$$", "$"))
        steps = document["steps"] if isinstance(document, dict) else document
        for step in steps:
            assert set(step) <= BUILDKITE_STEP_KEYS, set(step) - BUILDKITE_STEP_KEYS
            commands = step.get("command", step.get("commands"))
            command = "\n".join(commands) if isinstance(commands, list) else commands
            bash_parses(command)
            for arguments in detlint_lines(command):
                detlint_accepts(arguments)
    elif kind == "gitlab":
        for job in document.values():
            assert set(job) <= GITLAB_JOB_KEYS, set(job) - GITLAB_JOB_KEYS
            artifacts = job.get("artifacts", {})
            assert set(artifacts) <= GITLAB_ARTIFACTS_KEYS
            assert set(artifacts.get("reports", {})) <= GITLAB_REPORT_KEYS
            bash_parses("\n".join(job["script"]))
            for arguments in detlint_lines("\n".join(job["script"])):
                detlint_accepts(arguments)
    elif kind == "pre-commit":
        hooks = {h["id"] for h in load((ROOT / ".pre-commit-hooks.yaml").read_text())}
        for repository in document["repos"]:
            assert set(repository) <= PRE_COMMIT_REPO_KEYS
            for hook in repository["hooks"]:
                assert set(hook) <= PRE_COMMIT_HOOK_KEYS
                assert hook["id"] in hooks


def check_block(block: Block) -> None:
    if block.section == "DET901 unreadable-file":
        # Files detlint must report as unreadable; tests/rules runs every example.
        assert block.text.strip()
        return
    if block.language in ("sh", "bash", "shell"):
        bash_parses(block.text)
        for arguments in detlint_lines(block.text):
            detlint_accepts(arguments)
    elif block.language == "yaml":
        document = load(block.text)
        kind = system(block, document)
        if kind:
            check_ci_snippet(kind, block, document)
    elif block.language == "toml":
        load_toml(block.text)
    elif block.language == "json":
        try:
            json.loads(block.text)
        except json.JSONDecodeError:
            json.loads("{" + block.text + "}")  # members of an object, shown alone
    elif block.language == "ini":
        configparser.ConfigParser(interpolation=None).read_string(block.text)
    elif block.language == "python":
        ast.parse(block.text)
    else:
        # Output and diagrams: shown, not run; test_readme.py compares the README's with
        # what detlint prints.
        assert block.language in ("", "text"), f"{block}: no check for this language"
        assert block.text.strip()


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=str)
def test_every_fenced_block_is_valid_for_its_language(block: Block) -> None:
    check_block(block)


def test_the_blocks_include_every_ci_system() -> None:
    kinds = set()
    for block in ALL_BLOCKS:
        if block.language == "yaml" and "rules.md" not in block.path.name:
            kinds.add(system(block, load(block.text)))
    assert {"github-workflow", "github-steps", "buildkite", "gitlab", "pre-commit"} <= kinds


def test_no_snippet_pins_a_tag_this_repository_lacks() -> None:
    allowed = existing_tags() | {PLACEHOLDER}
    refs = [(str(b), ref) for b in ALL_BLOCKS for ref in pinned_refs(b.text)]
    assert len(refs) >= 6  # the try section, pre-commit, the action and three CI snippets
    assert [(where, ref) for where, ref in refs if ref not in allowed] == []
    # Nor does the prose around them.
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        prose = re.findall(r"detlint/detlint@([^\"'`\s]+)", text)
        assert [ref for ref in prose if ref not in allowed] == [], document
    # The README says once how to fill the placeholder.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "git ls-remote\nhttps://github.com/detlint/detlint HEAD" in readme
    assert "`pre-commit autoupdate --freeze`" in readme


def test_links_detlint_prints_name_no_missing_tag() -> None:
    # SARIF's helpUri and informationUri: the default branch, never a release tag.
    assert RULES_URL.startswith("https://github.com/detlint/detlint/blob/main/")
    assert INFORMATION_URL == "https://github.com/detlint/detlint"
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for ref in re.findall(r"github\.com/detlint/detlint/(?:blob|tree)/([^/\s)]+)", text):
            assert ref == "main" or ref in existing_tags(), (document, ref)


def test_the_unescaped_buildkite_snippet_is_caught() -> None:
    """What the `$` check guards against: a snippet as docs/output-formats.md had it."""
    text = 'steps:\n  - command: |\n      detlint check || status=$?\n      exit "$$status"\n'
    assert buildkite_unescaped_dollars(text) == ["      detlint check || status=$?"]
    block = Block(ROOT / "docs" / "x.md", 1, "yaml", text)
    with pytest.raises(AssertionError):
        check_block(block)


def test_a_misspelt_detlint_option_is_caught() -> None:
    block = Block(ROOT / "docs" / "x.md", 1, "sh", "detlint check --output-fromat json\n")
    with pytest.raises(click.UsageError):
        check_block(block)


# The docs' CI snippets, run: each detlint command in a copy of examples/needle, with a
# stand-in `buildkite-agent`, exits as the snippet expects and writes what it hands on.
DOC_CI_BLOCKS = [
    block
    for block in ALL_BLOCKS
    if block.path.name == "output-formats.md"
    and block.language == "yaml"
    and system(block, load(block.text))
]


def commands_of(block: Block) -> tuple[str, list[str]]:
    """The snippet's shell text as its CI system runs it, and the files it hands on."""
    document = load(block.text.replace("$$", "$"))
    kind = system(block, document)
    if kind == "github-steps":
        files = [s["with"]["sarif_file"] for s in document if "sarif_file" in s.get("with", {})]
        return "\n".join(s["run"] for s in document if "run" in s), files
    if kind == "gitlab":
        (job,) = document.values()
        return "\n".join(job["script"]), list(job["artifacts"]["reports"].values())
    steps = document["steps"] if isinstance(document, dict) else document
    (step,) = steps
    command = step["command"]
    text = "\n".join(command) if isinstance(command, list) else command
    return text, [step["artifact_paths"]] if "artifact_paths" in step else []


@pytest.mark.parametrize("block", DOC_CI_BLOCKS, ids=str)
def test_the_docs_ci_snippets_run(block: Block, repo: Path, tmp_path: Path) -> None:  # noqa: F811
    agent_bin = tmp_path / "bin"
    agent_bin.mkdir()
    calls = tmp_path / "agent-calls"
    agent = agent_bin / "buildkite-agent"
    agent.write_text(f'#!/bin/sh\necho "$@" >> {calls}\ncat > {calls}.stdin\n')
    agent.chmod(0o755)
    summary = tmp_path / "step-summary.md"
    env = {**environment(agent_bin), "GITHUB_STEP_SUMMARY": str(summary)}
    text, files = commands_of(block)
    done = bash(text, repo, env)
    # examples/needle has findings: a step fails with 1 unless told not to, never 2 or 127.
    expected = 0 if "--exit-zero" in text or text.startswith("detlint audit") else 1
    assert done.returncode == expected, done.stdout + done.stderr
    for name in files:
        assert (repo / name).stat().st_size > 0, name
    if "buildkite-agent annotate" in text:
        assert calls.read_text().split() == [
            "annotate", "--context", "detlint", "--style", "warning"
        ]  # fmt: skip
        assert "| [DET101" in Path(f"{calls}.stdin").read_text()
    if "GITHUB_STEP_SUMMARY" in text:
        assert summary.read_text().startswith("#")
    if "--output-format github" in text:
        assert "::warning file=tests/test_batch_invariance.py,line=25," in done.stdout
