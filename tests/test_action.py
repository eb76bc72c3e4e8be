"""The GitHub Action (action.yml at the repository root), read and run as the runner would.

The composite action's steps are checked against each other (every input and step
output an expression names exists, no expression inside a script), then run in
order on this machine: the install step once, for real, from a scratch clone of this
working tree standing for ``github.action_path``; then, for each case, the check and
exit steps with the inputs substituted, each in ``bash --noprofile --norc -eo pipefail``
as GitHub runs ``shell: bash``, on a copy of ``examples/needle``. The steps that use
other actions are not run: setup-python's Python is the one running the tests, and the
SARIF upload is checked at the handover (its ``if:``, and the file it is given).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from repo_expectations import repository_copy
from test_precommit import working_tree_clone
from test_readme_snippets import SARIF_SCHEMA, load, snippet

ROOT = Path(__file__).resolve().parents[1]
ACTION = load((ROOT / "action.yml").read_text())
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
REFERENCE = re.compile(r"\b(inputs|steps|github|runner)\.([\w.-]+)")


def references(text: str) -> list[tuple[str, str]]:
    return REFERENCE.findall(text)


def test_the_action_is_composite_and_declares_its_inputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"args", "output-format", "python-version"}
    assert ACTION["inputs"]["output-format"]["default"] == "github"
    assert ACTION["inputs"]["args"]["default"] == ""
    uses = [step["uses"] for step in STEPS if "uses" in step]
    assert uses == ["actions/setup-python@v5", "github/codeql-action/upload-sarif@v3"]


def test_inputs_and_step_outputs_are_consistent() -> None:
    """Every expression names a declared input or an output an earlier step writes, every
    input is used, and no script holds an expression (inputs reach it through env)."""
    used_inputs = set()
    written: dict[str, set[str]] = {}
    for step in STEPS:
        texts = [str(step.get("if", "")), *map(str, step.get("env", {}).values())]
        texts += [str(value) for value in step.get("with", {}).values()]
        for kind, name in [ref for text in texts for ref in references(text)]:
            if kind == "inputs":
                assert name in ACTION["inputs"], name
                used_inputs.add(name)
            elif kind == "steps":
                step_id, outputs, output = name.split(".")
                assert outputs == "outputs"
                assert output in written.get(step_id, set()), name
        if "run" in step:
            assert step["shell"] == "bash"
            assert "${{" not in step["run"]
            names = set(re.findall(r'echo "(\w+)=.*" >> "\$GITHUB_OUTPUT"', step["run"]))
            written[step.get("id", "")] = names
    assert used_inputs == set(ACTION["inputs"])
    for output in ACTION["outputs"].values():
        (kind, name), *_ = references(output["value"])
        step_id, _, key = name.split(".")
        assert key in written[step_id]


def test_the_readme_uses_the_action_with_its_inputs() -> None:
    workflow = load(snippet("github-action"))
    assert workflow["permissions"]["security-events"] == "write"
    (job,) = workflow["jobs"].values()
    (step,) = [step for step in job["steps"] if step.get("uses", "").startswith("detlint/")]
    assert step["uses"] == "detlint/detlint@<commit>"
    assert set(step["with"]) <= set(ACTION["inputs"])
    assert step["with"]["output-format"] in ("github", "sarif")


def evaluate(expression: str, context: dict[str, str]) -> str:
    """A context lookup, the only expression the action's values use."""
    assert expression in context, f"{expression} is not known to the test"
    return context[expression]


def substitute(text: str, context: dict[str, str]) -> str:
    return EXPRESSION.sub(lambda match: evaluate(match.group(1), context), text)


def condition_holds(condition: str, context: dict[str, str]) -> bool:
    """``ref == 'value'`` and ``ref != 'value'`` clauses joined by ``&&``."""
    holds = True
    for clause in condition.split("&&"):
        match = re.fullmatch(r"\s*([\w.-]+)\s*(==|!=)\s*'([^']*)'\s*", clause)
        assert match, f"the test cannot evaluate {clause!r}"
        value = context.get(match.group(1), "")
        holds = holds and ((value == match.group(3)) == (match.group(2) == "=="))
    return holds


@dataclass
class Run:
    """What the runner saw: each step's exit status, output and step outputs."""

    statuses: dict[str, int] = field(default_factory=dict)
    stdout: dict[str, str] = field(default_factory=dict)
    stderr: dict[str, str] = field(default_factory=dict)
    uploaded: Path | None = None
    context: dict[str, str] = field(default_factory=dict)


def run_step(step: dict[str, Any], workspace: Path, run: Run, temp: Path) -> int:
    env_values = {key: substitute(str(value), run.context) for key, value in step["env"].items()}
    output_file = temp / f"output-{len(run.statuses)}"
    output_file.touch()
    python_bin = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        **env_values,
        "PATH": f"{python_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        "RUNNER_TEMP": str(temp),
        "GITHUB_OUTPUT": str(output_file),
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    name = step.get("name", step.get("id", ""))
    run.statuses[name] = done.returncode
    run.stdout[name] = done.stdout
    run.stderr[name] = done.stderr
    for line in output_file.read_text().splitlines():
        key, _, value = line.partition("=")
        run.context[f"steps.{step.get('id', '')}.outputs.{key}"] = value
    return done.returncode


def run_action(
    inputs: dict[str, str], workspace: Path, installed: tuple[Path, Path], *, install: bool = False
) -> Run:
    """The steps in order, as the runner takes them: a failed step skips the rest."""
    action_path, temp = installed
    defaults = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    run = Run(context={f"inputs.{k}": v for k, v in {**defaults, **inputs}.items()})
    run.context["github.action_path"] = str(action_path)
    for step in STEPS:
        if "if" in step and not condition_holds(step["if"], run.context):
            continue
        if step.get("uses", "").startswith("actions/setup-python"):
            continue
        if step.get("uses", "").startswith("github/codeql-action/upload-sarif"):
            run.uploaded = Path(substitute(step["with"]["sarif_file"], run.context))
            continue
        if step.get("name") == "Install detlint" and not install:
            continue
        if run_step(step, workspace, run, temp) != 0:
            break
    return run


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The action's checkout and a runner temp directory with detlint installed by the
    action's own install step."""
    action_path = tmp_path_factory.mktemp("action") / "detlint"
    working_tree_clone(action_path)
    temp = tmp_path_factory.mktemp("runner-temp")
    # The install step runs in the workspace, as on GitHub: a repository's modules
    # named like the ones it runs (venv, pip) must not be imported from there.
    scanned = plant_modules(tmp_path_factory.mktemp("workspace"))
    run = run_action({}, scanned, (action_path, temp), install=True)
    assert run.statuses["Install detlint"] == 0, run.stderr["Install detlint"]
    assert (temp / "detlint-venv" / "bin" / "detlint").exists()
    assert sorted(path.name for path in scanned.glob("PWNED*")) == []
    return action_path, temp


# Modules a workspace could hold under the names the action's Python commands import:
# each leaves a file behind when imported.
PLANTED = ("venv", "pip", "shlex", "click", "yaml", "libcst")


def plant_modules(workspace: Path) -> Path:
    for name in PLANTED:
        (workspace / f"{name}.py").write_text(
            f"import pathlib\npathlib.Path(__file__).with_name('PWNED-{name}').touch()\n"
        )
    return workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return repository_copy(ROOT / "examples" / "needle", tmp_path / "needle")


def test_annotations_by_default_and_the_job_fails_on_findings(
    installed: tuple[Path, Path], workspace: Path
) -> None:
    run = run_action({}, workspace, installed)
    assert run.statuses == {"Run detlint check": 0, "Exit with detlint's status": 1}
    lines = run.stdout["Run detlint check"].splitlines()
    assert all(line.startswith("::warning file=") for line in lines), lines
    assert [line.split("title=")[1].split(" ")[0] for line in lines] == [
        "DET411",
        "DET501",
        "DET101",
    ]
    assert "::warning file=tests/test_batch_invariance.py,line=25," in lines[2]
    assert run.uploaded is None
    assert run.context["steps.check.outputs.status"] == "1"


def test_sarif_is_uploaded_and_the_job_fails_on_findings(
    installed: tuple[Path, Path], workspace: Path
) -> None:
    import jsonschema

    run = run_action({"output-format": "sarif"}, workspace, installed)
    assert run.statuses == {"Run detlint check": 0, "Exit with detlint's status": 1}
    assert run.uploaded == installed[1] / "detlint.sarif"
    document = json.loads(run.uploaded.read_text())
    jsonschema.Draft7Validator(json.loads(SARIF_SCHEMA.read_text())).validate(document)
    (sarif_run,) = document["runs"]
    assert sorted(r["ruleId"] for r in sarif_run["results"]) == ["DET101", "DET411", "DET501"]


def test_args_are_split_as_a_shell_splits_them_and_never_run(
    installed: tuple[Path, Path], workspace: Path
) -> None:
    args = "--exit-zero --select 'DET101' --extend-exclude '$(touch pwned)'"
    run = run_action({"args": args}, workspace, installed)
    assert run.statuses == {"Run detlint check": 0, "Exit with detlint's status": 0}
    (line,) = run.stdout["Run detlint check"].splitlines()
    assert line.startswith("::warning file=tests/test_batch_invariance.py,line=25,")
    assert "title=DET101 retry-marker" in line
    assert not (workspace / "pwned").exists()


def test_a_clean_repository_passes(installed: tuple[Path, Path], tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text("def test_sum():\n    assert 1 + 1 == 2\n")
    run = run_action({"output-format": "sarif"}, tmp_path, installed)
    assert run.statuses == {"Run detlint check": 0, "Exit with detlint's status": 0}
    assert run.uploaded is not None
    assert json.loads(run.uploaded.read_text())["runs"][0]["results"] == []


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"output-format": "json"}, "::error title=detlint::the output-format input is"),
        (
            {"args": "--select 'DET101"},
            "::error title=detlint::the args input is not a list of arguments: No closing",
        ),
        ({"args": "--no-such-option"}, "detlint check: error: No such option '--no-such-option'."),
    ],
)
def test_a_usage_error_fails_the_job_with_status_2_and_uploads_nothing(
    installed: tuple[Path, Path], workspace: Path, inputs: dict[str, str], message: str
) -> None:
    run = run_action({"output-format": "sarif", **inputs}, workspace, installed)
    assert run.statuses == {"Run detlint check": 0, "Exit with detlint's status": 2}
    step = "Run detlint check"
    # Workflow commands on standard output, where the runner reads them; detlint's own
    # usage errors on standard error, as on a terminal.
    assert message in (run.stdout if message.startswith("::") else run.stderr)[step]
    assert run.uploaded is None


def test_modules_in_the_workspace_are_never_imported(
    installed: tuple[Path, Path], workspace: Path
) -> None:
    """The workspace is the scanned repository, and the action's steps run there: a
    ``python -c`` or ``python -m`` would import its modules before the standard
    library's, so each runs isolated (``-I``)."""
    plant_modules(workspace)
    run = run_action({}, workspace, installed)
    assert run.statuses == {"Run detlint check": 0, "Exit with detlint's status": 1}
    assert sorted(path.name for path in workspace.glob("PWNED*")) == []
