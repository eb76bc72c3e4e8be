"""CI reports of a truth scenario: several builds of the real plugin, each writing the
JUnit XML and the report log a CI job keeps.

A build is one pytest run of the scenario's project. Each build salts the seed of
the violation's draws (``TRUTH_RUN``, which the scenario's module reads), so the
builds differ the way CI builds of an intermittent test do, while every run still
replays exactly. The project detlint reads is the one the scenario wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.truth.observe import run_pytest


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
    out.mkdir(exist_ok=True)
    junit, logs, outcomes = [], [], []
    for build in range(builds):
        xml, log = out / f"build-{build:03d}.xml", out / f"build-{build:03d}.jsonl"
        reports = (f"--junitxml={xml}", f"--report-log={log}")
        outcomes.append(run_pytest(venv, root, reports, f"-build{build}", f"outcomes-{build}"))
        junit.append(xml)
        logs.append(log)
    return Builds(tuple(junit), tuple(logs), tuple(outcomes))
