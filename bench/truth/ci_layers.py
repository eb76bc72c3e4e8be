"""A CI retry layer around the plugin: the suite run again as the CI system would.

A job retry (GitHub Actions ``nick-fields/retry``, GitLab ``retry:``, Buildkite
``retry: automatic``, a shell loop) reruns the whole suite while it fails. Read per
test, as if that test were the only one failing, an instance is reported when it
fails in every run the layer makes. Each run after the first sets ``TRUTH_RUN``,
so its draws are fresh rather than a replay of the first run's.
"""

from __future__ import annotations

from pathlib import Path

from bench.truth.observe import Observation, observe
from bench.truth.scenario import Scenario


def observe_layers(scenario: Scenario, root: Path, cases: int) -> Observation:
    """The scenario's plugin run, repeated ``runs`` times; failed means failed in all."""
    seen = [
        observe(scenario.venv, root, cases, scenario.pytest_args, run)
        for run in range(scenario.runs)
    ]
    if scenario.runs == 1:
        return seen[0]
    always = frozenset.intersection(*(run.failed_ids for run in seen))
    outcomes = {
        f"failed in all {scenario.runs} runs": len(always),
        "passed in a run": cases - len(always),
    }
    return Observation(len(always), cases, outcomes, always)
