"""CI reports of a truth scenario: several builds of the real plugin, each writing the
JUnit XML and the report log a CI job keeps.

A build is one pytest run of the scenario's project. Each build salts the seed of
the violation's draws (``TRUTH_RUN``, which the scenario's module reads), so the
builds differ the way CI builds of an intermittent test do, while every run still
replays exactly. The project detlint reads is the one the scenario wrote.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bench.truth.observe import PLUGIN
from bench.truth.scenario import TEST_FILE
from bench.truth.venvs import python_for


@dataclass(frozen=True)
class Builds:
    """The report files of M builds, in build order, and each build's final outcomes."""

    junit: tuple[Path, ...]
    report_log: tuple[Path, ...]
    # One dict per build: pytest's final outcome ("failed", "xfailed", ...) -> node ids.
    outcomes: tuple[dict[str, list[str]], ...]


def run_builds(venv: str, root: Path, builds: int) -> Builds:
    """Run the scenario's project ``builds`` times, each writing its reports."""
    out = root.parent / f"{root.name}-reports"
    plugin_dir = root.parent / f"{root.name}-plugin"
    out.mkdir(exist_ok=True)
    plugin_dir.mkdir(exist_ok=True)
    shutil.copy(PLUGIN, plugin_dir / "truth_outcomes.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON"))}
    env["PYTHONPATH"] = str(plugin_dir)
    junit, logs, outcomes = [], [], []
    for build in range(builds):
        xml, log = out / f"build-{build:03d}.xml", out / f"build-{build:03d}.jsonl"
        env["TRUTH_OUTCOMES"] = str(plugin_dir / f"outcomes-{build}.json")
        env["TRUTH_RUN"] = f"-build{build}"
        command = [str(python_for(venv)), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        reports = [f"--junitxml={xml}", f"--report-log={log}"]
        result = subprocess.run(
            [*command, "-p", "truth_outcomes", *reports, TEST_FILE],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if result.returncode not in (0, 1):
            tail = f"{result.stdout[-3000:]}{result.stderr[-3000:]}"
            raise RuntimeError(f"pytest exited {result.returncode}:\n{tail}")
        junit.append(xml)
        logs.append(log)
        outcomes.append(json.loads(Path(env["TRUTH_OUTCOMES"]).read_text()))
    return Builds(tuple(junit), tuple(logs), tuple(outcomes))
