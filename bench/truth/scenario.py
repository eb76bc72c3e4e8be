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

from bench.truth.venvs import PINS, PYTEST_PIN

RATE = 0.10
SEED = "detlint-truth"
TEST_FILE = "test_truth.py"


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


MODULE = """\
import random

import pytest
{imports}
_attempts = {{}}


def _draws(nodeid):
    attempt = _attempts.get(nodeid, 0) + 1
    _attempts[nodeid] = attempt
    return random.Random(f"{seed}:{{nodeid}}:{{attempt}}")

{module_code}
{decorators}@pytest.mark.parametrize("case", range({cases}))
def test_case(case, request{fixture_arg}):
{body}
"""

CONFTEST = """\
import random

import pytest

_attempts = {{}}


@pytest.fixture
def violation(request):
    nodeid = request.node.nodeid
    attempt = _attempts.get(nodeid, 0) + 1
    _attempts[nodeid] = attempt
    draws = random.Random(f"{seed}:{{nodeid}}:{{attempt}}")
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


def render_module(scenario: Scenario, cases: int) -> str:
    in_fixture = scenario.where in ("fixture", "module-fixture")
    module_code = textwrap.dedent(scenario.module_code)
    if scenario.where == "module-fixture":
        module_code += MODULE_FIXTURE.format(checks=_checks(scenario.trials, "    "))
    body = (
        "    pass"
        if in_fixture
        else ("    draws = _draws(request.node.nodeid)\n" + _checks(scenario.trials, "    "))
    )
    decorators = "".join(f"{line}\n" for line in scenario.decorators)
    imports = "".join(f"{line}\n" for line in scenario.imports)
    return MODULE.format(
        imports=imports,
        seed=SEED,
        module_code=module_code,
        decorators=decorators,
        cases=cases,
        fixture_arg=", violation" if in_fixture else "",
        body=body,
    )


def write_project(scenario: Scenario, root: Path, cases: int) -> None:
    """Test module, optional conftest, pytest.ini and a requirements file naming the plugin."""
    root.mkdir(parents=True, exist_ok=True)
    (root / TEST_FILE).write_text(render_module(scenario, cases))
    if scenario.where == "fixture":
        conftest = CONFTEST.format(seed=SEED, checks=_checks(scenario.trials, "    "))
        (root / "conftest.py").write_text(conftest)
    (root / "pytest.ini").write_text("[pytest]\n" + "".join(f"{line}\n" for line in scenario.ini))
    package, version = PINS[scenario.venv]
    (root / "requirements.txt").write_text(f"pytest=={PYTEST_PIN}\n{package}=={version}\n")
