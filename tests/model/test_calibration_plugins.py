"""Calibration against the real plugins: does the model describe them?

For each plugin in turn (the other two disabled with ``-p no:NAME``), a real
pytest subprocess runs a few hundred synthetic tests. Each attempt runs
TRIALS trials and fails if any trial draws below RATE; the draws are seeded by
test id and attempt number, so every run is reproducible and can be replayed.

Two checks per plugin setting:
- replay: knowing every draw, the plugin's documented mechanics predict exactly
  which tests fail and how many attempts each one gets; the plugin must agree;
- statistics: the share of tests reported failed must match the model's
  ``Policy.reported`` within 3 binomial standard errors.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from detlint.model import FlakyRuns, Layer, Policy, Reruns

pytestmark = pytest.mark.calibration

CASES = 400
TRIALS = 3
RATE = 0.2
SEED = "detlint-calibration"
PLUGINS = ("rerunfailures", "flaky", "pytest-retry")

CONFTEST = """
import json, os

def pytest_terminal_summary(terminalreporter):
    outcomes = {}
    for key in ("passed", "failed", "error"):
        ids = {getattr(r, "nodeid", None) for r in terminalreporter.stats.get(key, [])}
        outcomes[key] = sorted(i for i in ids if i)
    with open(os.environ["CAL_OUTCOMES"], "w") as out:
        json.dump(outcomes, out)
"""

TEST_MODULE = """
import os
import random

import pytest
{imports}

_attempts = {{}}


{decorator}
@pytest.mark.parametrize("case", range({cases}))
def test_case(case, request):
    nodeid = request.node.nodeid
    attempt = _attempts.get(nodeid, 0) + 1
    _attempts[nodeid] = attempt
    with open(os.environ["CAL_ATTEMPTS"], "a") as log:
        log.write(f"{{nodeid}}\\t{{attempt}}\\n")
    draws = random.Random(f"{seed}:{{nodeid}}:{{attempt}}")
    for trial in range({trials}):
        assert draws.random() >= {rate}, f"violation in trial {{trial}}"
"""


@dataclass(frozen=True)
class Setting:
    plugin: str
    decorator: str
    layer: Layer
    args: tuple[str, ...] = ()
    imports: str = ""


SETTINGS = {
    "rerunfailures-reruns": Setting("rerunfailures", "@pytest.mark.flaky(reruns=2)", Reruns(2)),
    "rerunfailures-bare": Setting("rerunfailures", "@pytest.mark.flaky", Reruns(1)),
    "rerunfailures-cli": Setting("rerunfailures", "", Reruns(2), ("--reruns", "2")),
    "retry-retries": Setting(
        "pytest-retry", "@pytest.mark.flaky(retries=2)", Reruns(2, "pytest-retry")
    ),
    "retry-bare": Setting("pytest-retry", "@pytest.mark.flaky", Reruns(1, "pytest-retry")),
    "flaky-max-min": Setting(
        "flaky", "@pytest.mark.flaky(max_runs=4, min_passes=2)", FlakyRuns(4, 2)
    ),
    "flaky-bare": Setting("flaky", "@pytest.mark.flaky", FlakyRuns(2, 1)),
    "flaky-decorator": Setting(
        "flaky",
        "@flaky(max_runs=4, min_passes=1)",
        FlakyRuns(4, 1),
        imports="from flaky import flaky",
    ),
}


def attempt_fails(nodeid: str, attempt: int) -> bool:
    draws = random.Random(f"{SEED}:{nodeid}:{attempt}")
    return any(draws.random() < RATE for _ in range(TRIALS))


def replay(nodeid: str, layer: Layer) -> tuple[bool, int]:
    """(reported failed, attempts) as the plugin's documented mechanics predict."""
    if isinstance(layer, Reruns):
        attempt = 1
        while attempt_fails(nodeid, attempt) and attempt <= layer.count:
            attempt += 1
        return attempt_fails(nodeid, attempt), attempt
    assert isinstance(layer, FlakyRuns)
    passes = runs = 0
    while True:
        runs += 1
        passes += not attempt_fails(nodeid, runs)
        if passes >= layer.min_passes:
            return False, runs
        if layer.min_passes - passes > layer.max_runs - runs:
            return True, runs


def run_suite(tmp_path: Path, setting: Setting) -> tuple[dict[str, list[str]], dict[str, int]]:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    module = TEST_MODULE.format(
        imports=setting.imports,
        decorator=setting.decorator,
        cases=CASES,
        seed=SEED,
        trials=TRIALS,
        rate=RATE,
    )
    (tmp_path / "test_synthetic.py").write_text(textwrap.dedent(module))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["CAL_OUTCOMES"] = str(tmp_path / "outcomes.json")
    env["CAL_ATTEMPTS"] = str(tmp_path / "attempts.log")
    disabled = [arg for name in PLUGINS if name != setting.plugin for arg in ("-p", f"no:{name}")]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *disabled]
    result = subprocess.run(
        [*command, *setting.args, "test_synthetic.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode in (0, 1), result.stdout[-3000:] + result.stderr[-3000:]
    outcomes = json.loads((tmp_path / "outcomes.json").read_text())
    attempts: dict[str, int] = {}
    for line in (tmp_path / "attempts.log").read_text().splitlines():
        nodeid, attempt = line.split("\t")
        attempts[nodeid] = max(attempts.get(nodeid, 0), int(attempt))
    return outcomes, attempts


@pytest.mark.parametrize("name", SETTINGS)
def test_plugin_matches_model(tmp_path, name):
    setting = SETTINGS[name]
    outcomes, attempts = run_suite(tmp_path, setting)
    assert outcomes["error"] == []
    assert len(attempts) == CASES
    assert len(outcomes["passed"]) + len(outcomes["failed"]) == CASES

    # Replay: the plugin does exactly what its documented mechanics say.
    predicted = {nodeid: replay(nodeid, setting.layer) for nodeid in attempts}
    assert sorted(n for n, (failed, _) in predicted.items() if failed) == outcomes["failed"]
    assert {n: runs for n, (_, runs) in predicted.items()} == attempts

    # Statistics: the share reported failed is what the model says.
    model = Policy(TRIALS, (setting.layer,)).reported(RATE)
    observed = len(outcomes["failed"]) / CASES
    standard_error = (model * (1 - model) / CASES) ** 0.5
    assert abs(observed - model) <= 3 * standard_error, (name, observed, model)
    # ...and is far from what one unretried attempt would report.
    assert abs(observed - Policy(TRIALS).reported(RATE)) > 3 * standard_error
