"""The fast evidence cases: ``detlint evidence`` on the reports real plugin builds wrote.

Each fast case runs a truth scenario's project for a few builds under the pinned plugin,
reads its reports with ``detlint evidence --repo`` and compares the pooled rates with the
truth (``bench/truth/evidence_check.py``): every check must agree within 3 binomial
standard errors, and the failed builds detlint counts must be the plugin's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.evidence_check import CASES, run_cases  # noqa: E402
from bench.truth.venvs import VenvError  # noqa: E402

pytestmark = pytest.mark.calibration

FAST = [case for case in CASES if case.fast]
INSTANCES, BUILDS = 60, 4


def test_fast_cases_cover_two_plugins_and_both_rate_bases():
    assert {case.scenario for case in FAST} == {"rr-loop5-reruns2", "flaky-max3-min2-T1"}
    assert {case.basis for case in FAST} == {"first attempts", "attempts"}


def test_fast_evidence_cases_match_the_plugins(tmp_path):
    try:
        rows = run_cases(FAST, INSTANCES, BUILDS, tmp_path)
    except VenvError as error:
        pytest.fail(f"cannot build the pinned plugin environment: {error}")
    checks = {(case.scenario, check.what.split(" (")[0]): check for case, check in rows}
    assert ("rr-loop5-reruns2", "per trial") in checks  # T = 5 is converted
    assert ("rr-loop5-reruns2", "flip rate") in checks
    wrong = [(key, check) for key, check in checks.items() if check.verdict != "ok"]
    assert not wrong, wrong
