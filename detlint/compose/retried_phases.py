"""Which phases of a test a rerun plugin retries, against where the test's checks are.

pytest-rerunfailures and the flaky package rerun a failed setup as well as a failed
call, so a violation a fixture raises is hidden as one in the body is. pytest-retry
1.7.0 retries the call phase only: a failure at the first attempt's setup is reported
at once (measured: a fixture that always fails ran once under ``flaky(retries=2)``;
its README: "failing test fixtures are not retried"). So a pytest-retry layer hides
nothing of a test whose checks are all in a fixture, and of one that checks in both,
its figures hold for the body's checks alone.
"""

from __future__ import annotations

from detlint.compose.plugins import RETRY
from detlint.model import Layer, Reruns
from detlint.readers.python.facts import TestFunction


def call_phase_only(layers: list[Layer], test: TestFunction, notes: list[str]) -> list[Layer]:
    """``layers`` without a pytest-retry layer when the test's checks are all made at
    setup, with a note that says why; a test that checks in its body too keeps it, and
    the note says what its figures are for."""
    checks = test.setup_checks
    retry = [layer for layer in layers if isinstance(layer, Reruns) and layer.plugin == RETRY]
    if checks is None or not any(layer.masks for layer in retry):
        return layers
    where = f"fixture `{checks.fixture}`"
    if checks.span.path == test.path:
        where += f" (line {checks.span.line})"
    if not checks.body:
        notes.append(
            f"pytest-retry retries the test's call only, and its checks are in {where}: "
            "a failure there is reported at once"
        )
        return [layer for layer in layers if layer not in retry]
    notes.append(
        f"pytest-retry retries the test's call only: a failure in {where} at the first "
        "attempt's setup is reported at once, so these figures are for the body's checks"
    )
    return layers
