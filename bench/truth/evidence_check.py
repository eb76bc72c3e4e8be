"""``detlint evidence`` against the truth: real plugin reports of several builds, read back.

    python bench/truth/evidence_check.py [--fast] [-n N] [-m M]

Each case runs a truth scenario's project for M builds (``reports.run_builds``: the
JUnit XML and the report log of each), reads one of the two formats with
``detlint evidence --repo <project> --output-format json`` and compares, pooled over
the N instances (every instance has the same truth):

- the per-attempt failure rate (the count detlint says it rests on, ``rate.count``
  of ``rate.of``) against 1 - 0.9^T, or for a rate read from failed builds (pytest-retry
  in JUnit) the failed share against (1 - 0.9^T)^(R+1);
- the per-trial rate detlint prints, against 0.10, and its trial count against T;
- the failed builds (and XFAIL builds) detlint counts, against what the plugin
  reported in each build: these must match exactly;
- the flip rate against 2s(1 - s), s the share of builds expected to record a failed
  attempt (its standard error counts the overlap of consecutive pairs).

Within 3 standard errors is ``ok``; the exit status is 1 on any DISCREPANCY.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.truth.reports import Builds, run_builds
from bench.truth.scenario import RATE, Scenario, write_project
from bench.truth.scenarios import ALL
from bench.truth.tables import markdown_table

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Case:
    """One scenario read in one report format, and what detlint must base its rate on."""

    scenario: str
    format: str  # "junit" or "report-log"
    basis: str = "first attempts"
    all_fail: int = 1  # attempts that must all fail for a failed build (failed-builds basis)
    flips: bool = True  # whether a flip rate is expected
    # Attempts a build may make until it records the violation (a strict xfail's XPASS
    # is rerun until an XFAIL), for the share of builds that record it.
    build_attempts: int = 1
    fast: bool = False


CASES = (
    Case("rr-reruns1-T1", "junit"),
    Case("rr-loop5-reruns2", "junit", fast=True),
    Case("rr-loop5-reruns2", "report-log"),
    Case("rr-addopts-reruns2-unmarked", "junit"),
    Case("rr-addopts-reruns2-unmarked", "report-log"),
    Case("flaky-max3-min1-T1", "junit"),
    Case("flaky-max3-min2-T1", "junit", "attempts", flips=False, fast=True),
    Case("flaky-max3-min2-T1", "report-log", "attempts", flips=False),
    Case("retry-retries2-T5", "junit", "failed builds", all_fail=3),
    Case("retry-retries2-T5", "report-log"),
    Case("xfail-nonstrict-T1", "junit"),
    Case("xfail-nonstrict-T1", "report-log"),
    Case("xfail-strict-T1", "junit", "XFAIL attempts"),
    Case("xfail-strict-T1", "report-log", "XFAIL attempts"),
    Case("xfail-strict-reruns3-T1", "junit", "XFAIL attempts", build_attempts=4),
    Case("xfail-strict-reruns3-T1", "report-log", "XFAIL attempts", build_attempts=4),
    Case("rr-class-reruns2-T5", "junit"),
    Case("rr-ini-reruns2-T5", "report-log"),
    Case("flaky-deco-max3-min1-T5", "junit"),
    Case("retry-ini-retries2-T5", "junit", "failed builds", all_fail=3),
    Case("both-flaky-max3-T5", "report-log"),
)


@dataclass(frozen=True)
class Check:
    what: str
    claim: str
    truth: str
    verdict: str


def _scenario(name: str) -> Scenario:
    return next(s for s in ALL if s.name == name)


def read_evidence(project: Path, files: tuple[Path, ...]) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # Every test of a scenario is one instance of the same test: a build where a strict
    # xfail's XPASS fails 90% of them is not an infrastructure failure here.
    command = [sys.executable, "-m", "detlint", "evidence", "--repo", str(project)]
    command += ["--infrastructure-share", "0.999"]
    result = subprocess.run(
        [*command, "--output-format", "json", *map(str, files)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    if result.returncode != 0:
        raise RuntimeError(f"detlint evidence exited {result.returncode}: {result.stderr[-2000:]}")
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def _within(value: float, expected: float, error: float) -> str:
    if error == 0:
        return "ok" if value == expected else "DISCREPANCY"
    return "ok" if abs(value - expected) <= 3 * error else "DISCREPANCY"


def _rates(case: Case, scenario: Scenario, tests: list[dict[str, Any]]) -> list[Check]:
    attempt = 1 - (1 - RATE) ** scenario.trials
    expected = attempt**case.all_fail
    count = sum(t["rate"]["count"] for t in tests)
    total = sum(t["rate"]["of"] for t in tests)
    bases = sorted({t["rate"]["basis"] for t in tests})
    share = count / total
    error = (expected * (1 - expected) / total) ** 0.5
    checks = [
        Check(
            "basis", ", ".join(bases), case.basis, "ok" if bases == [case.basis] else "DISCREPANCY"
        ),
        Check(
            f"{'failed share' if case.all_fail > 1 else 'rate'} ({count}/{total})",
            f"{share:.4f}",
            f"{expected:.4f} +- {3 * error:.4f}",
            _within(share, expected, error),
        ),
    ]
    if scenario.trials > 1:
        trials = sorted({t["trials"] for t in tests})
        p = share ** (1 / case.all_fail)
        q = 1 - (1 - p) ** (1 / scenario.trials)
        # Delta method: dq/dshare through p = share^(1/R') and q = 1 - (1-p)^(1/T).
        slope = (1 - attempt) ** (1 / scenario.trials - 1) / scenario.trials
        slope *= attempt ** (1 - case.all_fail) / case.all_fail
        printed = all(t["per_trial"] is not None for t in tests)
        ok = printed and trials == [scenario.trials]
        verdict = _within(q, RATE, slope * error) if ok else "DISCREPANCY"
        checks.append(
            Check(
                f"per trial (T={trials})",
                f"{q:.4f}",
                f"{RATE:.4f} +- {3 * slope * error:.4f}",
                verdict,
            )
        )
    return checks


def _reported(tests: list[dict[str, Any]], builds: Builds) -> list[Check]:
    failed = sum(t["hard_failures"] for t in tests)
    xfailed = sum(t["expected_failures"] for t in tests)
    truth_failed = sum(len(set(o["failed"]) | set(o["error"])) for o in builds.outcomes)
    truth_xfailed = sum(len(o["xfailed"]) for o in builds.outcomes)
    same = failed == truth_failed and xfailed == truth_xfailed
    return [
        Check(
            "failed/XFAIL builds",
            f"{failed}/{xfailed}",
            f"{truth_failed}/{truth_xfailed}",
            "ok" if same else "DISCREPANCY",
        )
    ]


def _flips(case: Case, scenario: Scenario, tests: list[dict[str, Any]], m: int) -> list[Check]:
    printed = [t["flip_rate"] for t in tests]
    if not case.flips:
        ok = all(value is None for value in printed)
        return [
            Check("flip rate", "none" if ok else "printed", "none", "ok" if ok else "DISCREPANCY")
        ]
    attempt = 1 - (1 - RATE) ** scenario.trials
    s = (1 - (1 - attempt) ** case.build_attempts) ** case.all_fail
    f = 2 * s * (1 - s)
    flips = sum(t["flips"] for t in tests)
    pairs = sum(t["pairs"] for t in tests)
    cov = s * (1 - s) * (1 - 4 * s * (1 - s))
    variance = len(tests) * ((m - 1) * f * (1 - f) + 2 * (m - 2) * cov) / pairs**2
    share = flips / pairs
    return [
        Check(
            f"flip rate ({flips}/{pairs})",
            f"{share:.4f}",
            f"{f:.4f} +- {3 * variance**0.5:.4f}",
            _within(share, f, variance**0.5),
        )
    ]


def check_case(case: Case, project: Path, builds: Builds, m: int) -> list[Check]:
    scenario = _scenario(case.scenario)
    files = builds.junit if case.format == "junit" else builds.report_log
    document = read_evidence(project, files)
    tests = document["tests"]
    problems = [Check("problems", "; ".join(document["problems"]), "none", "DISCREPANCY")]
    return [
        *(problems if document["problems"] else []),
        *_rates(case, scenario, tests),
        *_reported(tests, builds),
        *_flips(case, scenario, tests, m),
    ]


def run_cases(cases: list[Case], n: int, m: int, workdir: Path) -> list[tuple[Case, Check]]:
    rows: list[tuple[Case, Check]] = []
    ran: dict[str, Builds] = {}
    for case in cases:
        scenario = _scenario(case.scenario)
        project = workdir / scenario.name
        if scenario.name not in ran:
            write_project(scenario, project, n)
            ran[scenario.name] = run_builds(scenario.venv, project, m)
        for check in check_case(case, project, ran[scenario.name], m):
            rows.append((case, check))
            print(f"{case.scenario} {case.format}: {check}", file=sys.stderr, flush=True)
    return rows


def table(rows: list[tuple[Case, Check]]) -> str:
    header = ["scenario", "report", "check", "detlint", "truth", "verdict"]
    cells = [[c.scenario, c.format, k.what, k.claim, k.truth, k.verdict] for c, k in rows]
    return markdown_table(header, cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="the fast cases, N=60 M=4")
    parser.add_argument("-n", type=int, default=None, help="instances (default 200)")
    parser.add_argument("-m", type=int, default=None, help="builds (default 5)")
    args = parser.parse_args(argv)
    n = args.n or (60 if args.fast else 200)
    m = args.m or (4 if args.fast else 5)
    cases = [c for c in CASES if c.fast or not args.fast]
    with tempfile.TemporaryDirectory(prefix="detlint-evidence-truth-") as tmp:
        rows = run_cases(cases, n, m, Path(tmp))
    print(f"N={n} instances x M={m} builds")
    print(table(rows))
    return 1 if any(check.verdict == "DISCREPANCY" for _, check in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
