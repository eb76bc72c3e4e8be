"""The fast truth scenarios: detlint's printed numbers against real plugin runs.

Each fast scenario writes a tiny project, reads detlint's claim and runs the real
plugin (pinned, in its own cached virtualenv) on 300 instances. Every scenario
must agree within 3 binomial standard errors, except the known discrepancies,
which must still disagree (a fixed model makes the entry stale).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.known import KNOWN_DISCREPANCIES  # noqa: E402
from bench.truth.run import FAST_CASES, run_scenario, select  # noqa: E402
from bench.truth.venvs import VenvError  # noqa: E402

pytestmark = pytest.mark.calibration

FAST = select(fast=True, only=[])


def test_fast_set_covers_each_plugin():
    assert len(FAST) >= 5
    assert {s.venv for s in FAST} == {"rerunfailures", "flaky", "pytest-retry"}
    assert set(KNOWN_DISCREPANCIES) <= {s.name for s in FAST}


@pytest.mark.parametrize("scenario", FAST, ids=lambda s: s.name)
def test_fast_scenario_matches_plugin(tmp_path, scenario):
    try:
        row = run_scenario(scenario, FAST_CASES, tmp_path)
    except VenvError as error:
        pytest.fail(f"cannot build the pinned plugin environment: {error}")
    assert row.seen.cases == FAST_CASES
    assert sum(row.seen.outcomes.values()) == FAST_CASES, row.seen.outcomes
    detail = (row.claim.reported, row.seen.share, row.claim.message)
    if scenario.name in KNOWN_DISCREPANCIES:
        assert row.verdict.verdict == "DISCREPANCY", (
            f"stale known discrepancy ({KNOWN_DISCREPANCIES[scenario.name]}): now {detail}"
        )
    else:
        assert row.verdict.verdict == "ok", detail
        assert row.text == (), row.text
