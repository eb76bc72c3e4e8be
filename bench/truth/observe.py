"""What the real plugin does: run the scenario's project with pytest and count failures.

An instance is reported failed when pytest ends it failed or errored (a setup
error fails CI as surely as a failed assertion).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bench.truth.scenario import TEST_FILE
from bench.truth.venvs import python_for

PLUGIN = Path(__file__).with_name("outcomes_plugin.py")


@dataclass(frozen=True)
class Observation:
    failed: int
    cases: int
    outcomes: dict[str, int]
    failed_ids: frozenset[str] = frozenset()

    @property
    def share(self) -> float:
        return self.failed / self.cases


def run_pytest(
    venv: str, root: Path, args: tuple[str, ...] = (), salt: str = "", name: str = "outcomes"
) -> dict[str, list[str]]:
    """One pytest run of the scenario's project under its plugin; the final outcome of
    every test id (``outcomes_plugin``). ``salt`` (TRUTH_RUN) makes the draws differ
    from another run's; ``name`` keeps the outcome files of several runs apart."""
    plugin_dir = root.parent / f"{root.name}-plugin"
    plugin_dir.mkdir(exist_ok=True)
    shutil.copy(PLUGIN, plugin_dir / "truth_outcomes.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON"))}
    env["PYTHONPATH"] = str(plugin_dir)
    env["TRUTH_OUTCOMES"] = str(plugin_dir / f"{name}.json")
    if salt:
        env["TRUTH_RUN"] = salt
    command = [str(python_for(venv)), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    result = subprocess.run(
        [*command, "-p", "truth_outcomes", *args, TEST_FILE],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode not in (0, 1):
        raise RuntimeError(
            f"pytest exited {result.returncode}:\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
        )
    raw: dict[str, list[str]] = json.loads((plugin_dir / f"{name}.json").read_text())
    return raw


def observe(
    venv: str, root: Path, cases: int, args: tuple[str, ...] = (), run: int = 0
) -> Observation:
    """One pytest run; ``args`` are the CI step's, ``run`` > 0 salts the draws afresh."""
    raw = run_pytest(venv, root, args, f"#run{run}" if run else "")
    failed = set(raw["failed"]) | set(raw["error"])
    return Observation(
        len(failed), cases, {k: len(v) for k, v in raw.items() if v}, frozenset(failed)
    )
