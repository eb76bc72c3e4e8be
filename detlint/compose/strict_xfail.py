"""A strict xfail's stack: the test turns the build red when it passes.

``xfail(strict=True)`` (or ``xfail_strict`` in the config, or unittest's
``expectedFailure``) reports a failure as XFAIL and a pass as FAILED
``[XPASS(strict)]``, so it is not a gate that never blocks: it inverts each
attempt's outcome (``StrictXfail``), and what stands above it acts on the
inverted one. The rerun plugins treat a strict XPASS differently, as checked
against each of them (docs/semantics, "xfail"):

- pytest-rerunfailures reruns it, and the run stops at the first XFAIL: red only
  when every attempt passes, ``(1 - p) ** (N + 1)``;
- pytest-retry never retries an xpassed test: its retries add nothing;
- the flaky package suppresses the failed report and counts a success: the test
  is never red, so the gate stays one that never blocks.

A retry decorator inside the test's body retries the failing attempts before the
outcome is inverted, so its layer stays below; pytest-repeat's copies and a CI
job retry act on the inverted outcome, above.
"""

from __future__ import annotations

from detlint.compose.plugins import RERUNFAILURES, RETRY
from detlint.model import BLOCKING, STRICT_XFAIL, FlakyRuns, Gate, Layer, Reruns, StrictXfail


def strict_xfail_stack(
    layers: list[Layer], inner: int, notes: list[str]
) -> tuple[Gate, list[Layer]]:
    """The gate and layers of a strict xfail test, from the layers composed for it
    (the first ``inner`` of them a retry decorator's); ``notes`` records why a
    layer is dropped."""
    below, above = layers[:inner], layers[inner:]
    if any(isinstance(layer, FlakyRuns) for layer in above):
        notes.append(
            "the flaky package suppresses a strict XPASS and counts it a success: "
            "the test is never red"
        )
        return STRICT_XFAIL, layers
    kept: list[Layer] = []
    for layer in above:
        if isinstance(layer, Reruns) and layer.plugin == RETRY:
            notes.append("pytest-retry does not retry an xpassed test: its retries add nothing")
            continue
        kept.append(layer)
    if any(isinstance(layer, Reruns) and layer.plugin == RERUNFAILURES for layer in kept):
        notes.append(
            "pytest-rerunfailures reruns a strict XPASS and stops at the first XFAIL: "
            "red only when every attempt passes"
        )
    return BLOCKING, [*below, StrictXfail(), *kept]
