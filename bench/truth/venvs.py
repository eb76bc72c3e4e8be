"""One cached virtualenv per plugin at a pinned version, so runs replay exactly.

Each plugin gets its own environment: with two rerun plugins installed their
retries multiply, which would measure a combination no scenario names.
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
CACHE = Path(os.environ.get("DETLINT_TRUTH_CACHE", Path.home() / ".cache" / "detlint-truth"))


class VenvError(RuntimeError):
    """The plugin environment could not be built (usually: no package index)."""


def label(venv: str) -> str:
    package, version = PINS[venv]
    return f"{package}@{version}"


def python_for(venv: str) -> Path:
    """The interpreter of the plugin's environment, building it on first use."""
    package, version = PINS[venv]
    home = CACHE / f"{package}-{version}"
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
    pins = [f"pytest=={PYTEST_PIN}", f"{package}=={version}", REPORTLOG_PIN]
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *pins]
    _run(pip, f"pip install {' '.join(pins)} (is the package index reachable?)")
    (home / ".ready").write_text(" ".join(pins) + "\n")
    return python


def _run(command: list[str], what: str) -> None:
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise VenvError(f"{what}: {error}") from error
    if result.returncode != 0:
        raise VenvError(f"{what} failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
