"""One cached virtualenv per plugin at a pinned version, so runs replay exactly.

Each plugin gets its own environment: with two rerun plugins installed their
retries multiply, which would measure a combination no scenario names. The
combined environments of ``COMBINED`` are the exception, for the scenarios that
name exactly that combination.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PYTEST_PIN = "9.2.0"
PINS: dict[str, tuple[str, str]] = {
    "rerunfailures": ("pytest-rerunfailures", "16.7"),
    "flaky": ("flaky", "3.8.1"),
    "pytest-retry": ("pytest-retry", "1.7.0"),
    "tenacity": ("tenacity", "9.1.2"),
}
# pytest's --report-log, so that each run can keep the report log a CI job keeps too.
REPORTLOG_PIN = "pytest-reportlog==0.4.0"
# Environments with several plugins installed together, by the PINS keys they join.
COMBINED: dict[str, tuple[str, ...]] = {"rerunfailures+flaky": ("rerunfailures", "flaky")}
CACHE = Path(os.environ.get("DETLINT_TRUTH_CACHE", Path.home() / ".cache" / "detlint-truth"))


class VenvError(RuntimeError):
    """The plugin environment could not be built (usually: no package index)."""


def pins(venv: str) -> tuple[tuple[str, str], ...]:
    """The (package, version) pairs installed in the environment, besides pytest."""
    return tuple(PINS[key] for key in COMBINED.get(venv, (venv,)))


def label(venv: str) -> str:
    return "+".join(f"{package}@{version}" for package, version in pins(venv))


def python_for(venv: str) -> Path:
    """The interpreter of the plugin's environment, building it on first use."""
    home = CACHE / "+".join(f"{package}-{version}" for package, version in pins(venv))
    python = home / "bin" / "python"
    ready = home / ".ready"
    if ready.exists() and REPORTLOG_PIN not in ready.read_text():
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        _run([*pip, REPORTLOG_PIN], f"pip install {REPORTLOG_PIN}")
        ready.write_text(ready.read_text().strip() + f" {REPORTLOG_PIN}\n")
    if ready.exists():
        return python
    shutil.rmtree(home, ignore_errors=True)
    home.parent.mkdir(parents=True, exist_ok=True)
    _run([sys.executable, "-m", "venv", str(home)], f"creating {home}")
    wanted = [f"pytest=={PYTEST_PIN}", *(f"{p}=={v}" for p, v in pins(venv)), REPORTLOG_PIN]
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *wanted]
    _run(pip, f"pip install {' '.join(wanted)} (is the package index reachable?)")
    (home / ".ready").write_text(" ".join(wanted) + "\n")
    return python


def _run(command: list[str], what: str) -> None:
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise VenvError(f"{what}: {error}") from error
    if result.returncode != 0:
        raise VenvError(f"{what} failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
