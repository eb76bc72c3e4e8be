"""A truth scenario: one knob written into a tiny project, and how to lay that project out.

A scenario is data: the plugin it runs under, the lines above the test, how many
trials each attempt makes and where the violation is raised. ``write_project``
turns it into files that detlint reads statically and pytest runs for real, so
the very same text is both what detlint judges and what the plugin executes.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

from bench.truth.venvs import PYTEST_PIN, pins

RATE = 0.10
SEED = "detlint-truth"
TEST_FILE = "test_truth.py"


def github_workflow(*steps: str) -> str:
    """A GitHub Actions workflow of one job that checks the project out, installs its
    requirements and then runs ``steps`` (each a step's YAML, its first line starting
    with ``- ``, further lines indented from there)."""
    lines = [
        "",
        "name: ci",
        "on: [push]",
        "jobs:",
        "  test:",
        "    runs-on: ubuntu-latest",
        "    steps:",
        "      - uses: actions/checkout@v4",
        "      - run: pip install -r requirements.txt",
    ]
    for step in steps:
        lines += ["      " + line for line in step.split("\n")]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Scenario:
    """One knob setting; ``expect_text`` lists what detlint's message must quote."""

    name: str
    venv: str
    decorators: tuple[str, ...] = ()
    trials: int = 1
    # Where the violation is raised: "test" (the test body), "fixture" (a conftest.py
    # fixture) or "module-fixture" (a fixture of the test module).
    where: str = "test"
    ini: tuple[str, ...] = ()
    imports: tuple[str, ...] = ()
    module_code: str = ""
    expect_text: tuple[str, ...] = ()
    fast: bool = False
    note: str = ""
    # Lines above ``class TestTruth:``; the test becomes a method of that class.
    class_decorators: tuple[str, ...] = ()
    in_class: bool = False
    # The test body in place of the drawn checks (``draws`` is bound before it).
    body: str = ""
    # Further project files, (relative path, text): CI configurations detlint reads.
    files: tuple[tuple[str, str], ...] = ()
    # Arguments the CI step gives pytest; the plugin run uses the same.
    pytest_args: tuple[str, ...] = ()
    # How many times a CI layer runs the suite; an instance is reported when it
    # fails in every run (the per-test reading of a job retry).
    runs: int = 1
    # The code of the finding that is the claim, when other tests of the module have
    # findings of their own (a marked neighbour in ``module_code`` has its DET101).
    claim_code: str = ""


# Each run of a CI layer sets TRUTH_RUN, so a rerun process draws afresh.
MODULE = """\
import os
import random

import pytest
{imports}
_attempts = {{}}
_RUN = os.environ.get("TRUTH_RUN", "")


def _draws(nodeid):
    attempt = _attempts.get(nodeid, 0) + 1
    _attempts[nodeid] = attempt
    return random.Random(f"{seed}{{_RUN}}:{{nodeid}}:{{attempt}}")

{module_code}
{test}"""

TEST = """\
{decorators}@pytest.mark.parametrize("case", range({cases}))
def test_case({self}case, request{fixture_arg}):
{body}
"""

CONFTEST = """\
import os
import random

import pytest

_attempts = {{}}
_RUN = os.environ.get("TRUTH_RUN", "")


@pytest.fixture
def violation(request):
    nodeid = request.node.nodeid
    attempt = _attempts.get(nodeid, 0) + 1
    _attempts[nodeid] = attempt
    draws = random.Random(f"{seed}{{_RUN}}:{{nodeid}}:{{attempt}}")
{checks}
    yield
"""


def _checks(trials: int, indent: str) -> str:
    """The trial loop as a test author writes it, so detlint can read its bound."""
    if trials == 1:
        return f"{indent}assert draws.random() >= {RATE}"
    return f"{indent}for _ in range({trials}):\n{indent}    assert draws.random() >= {RATE}"


MODULE_FIXTURE = """\
@pytest.fixture
def violation(request):
    draws = _draws(request.node.nodeid)
{checks}
    yield

"""


def _body(scenario: Scenario) -> str:
    if scenario.where in ("fixture", "module-fixture"):
        return "    pass"
    draws = "    draws = _draws(request.node.nodeid)\n"
    if scenario.body:
        return draws + textwrap.indent(textwrap.dedent(scenario.body).strip("\n"), "    ")
    return draws + _checks(scenario.trials, "    ")


def _test(scenario: Scenario, cases: int) -> str:
    """The test function, or a method of ``TestTruth`` under the class's decorators."""
    in_class = scenario.in_class or bool(scenario.class_decorators)
    test = TEST.format(
        decorators="".join(f"{line}\n" for line in scenario.decorators),
        cases=cases,
        self="self, " if in_class else "",
        fixture_arg=", violation" if scenario.where in ("fixture", "module-fixture") else "",
        body=_body(scenario),
    )
    if not in_class:
        return test
    head = "".join(f"{line}\n" for line in scenario.class_decorators) + "class TestTruth:\n"
    return head + textwrap.indent(test, "    ")


def render_module(scenario: Scenario, cases: int) -> str:
    module_code = textwrap.dedent(scenario.module_code)
    if scenario.where == "module-fixture":
        module_code += MODULE_FIXTURE.format(checks=_checks(scenario.trials, "    "))
    return MODULE.format(
        imports="".join(f"{line}\n" for line in scenario.imports),
        seed=SEED,
        module_code=module_code,
        test=_test(scenario, cases),
    )


def write_project(scenario: Scenario, root: Path, cases: int) -> None:
    """Test module, optional conftest, pytest.ini and a requirements file naming the plugin."""
    root.mkdir(parents=True, exist_ok=True)
    (root / TEST_FILE).write_text(render_module(scenario, cases))
    if scenario.where == "fixture":
        conftest = CONFTEST.format(seed=SEED, checks=_checks(scenario.trials, "    "))
        (root / "conftest.py").write_text(conftest)
    (root / "pytest.ini").write_text("[pytest]\n" + "".join(f"{line}\n" for line in scenario.ini))
    pinned = "".join(f"{package}=={version}\n" for package, version in pins(scenario.venv))
    (root / "requirements.txt").write_text(f"pytest=={PYTEST_PIN}\n{pinned}")
    for relative, text in scenario.files:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(textwrap.dedent(text).lstrip("\n"))
