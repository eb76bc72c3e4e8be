"""Reading intent from reasons: calibrated on real suites (numpy, scipy)."""

from __future__ import annotations

import pytest

from detlint.reasons import says_flaky, tracking_reference


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Flaky on CI", "Flaky"),
        ("Intermittent failure acceptable.", "Intermittent"),
        ("non-deterministic order of results", "non-deterministic"),
        ("race condition in the cache warm-up", "race condition"),
        ("racy under free-threading", "racy"),
        ("fails sometimes on ARM", "fails sometimes"),
        ("low accuracy on ppc64le", None),  # "racy" inside "accuracy" is not a word
        ("Align vectors near inf is numerically unstable in float32", None),
        ("unstable on macOS runners", "unstable"),
        ("unreliable due to python's behaviour", None),
        ("posix only", None),
    ],
)
def test_says_flaky(text, word):
    assert says_flaky(text) == word


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("see https://github.com/org/repo/issues/12", "https://github.com/org/repo/issues/12"),
        ("intermittent, see #4821", "#4821"),
        ("PROJ-77: nondeterministic reduction", "PROJ-77"),
        ("tracked in gh-17839", "gh-17839"),
        ("flaky on the A100 nodes", None),
        ("float64 vs float32", None),
        ("C#9 interop", None),
    ],
)
def test_tracking_reference(text, reference):
    assert tracking_reference(text) == reference
