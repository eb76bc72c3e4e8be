"""Reading intent from free text: skip reasons, xfail reasons, comments.

A skip whose reason says "flaky" is a quarantine nobody will see again; an
xfail whose reason names no issue is one nobody will come back to. Both are
judged from words, so the words live in one place.
"""

from __future__ import annotations

import functools
import re

# Words that say a test fails only sometimes. "unstable" counts unless it is
# numerics ("numerically unstable in float32" is deterministic); "unreliable" is
# left out for the same reason; "racy" must be a whole word ("accuracy").
FLAKY_WORDS = (
    "flak",
    "intermittent",
    "nondetermin",
    "non-determin",
    "sporadic",
    "race condition",
    "randomly fail",
    "sometimes fail",
    "fails sometimes",
    "occasionally fail",
    "timing-dependent",
)
# Words matched with context, beyond FLAKY_WORDS; the prefilter looks for their stems.
CONTEXT_PATTERNS = (r"\bracy\b", r"(?<!numerically )(?<!numerical )unstable")
CONTEXT_STEMS = ("racy", "unstable")


@functools.cache
def _flaky_pattern() -> re.Pattern[str]:
    """Compiled on first use: the command line imports this module on every run."""
    alternatives = "|".join([*(re.escape(word) for word in FLAKY_WORDS), *CONTEXT_PATTERNS])
    return re.compile(rf"\w*(?:{alternatives})[\w-]*", re.IGNORECASE)


# An issue URL, a `#123` reference, or a tracker key such as `PROJ-123`.
DEFAULT_TRACKING_PATTERN = r"https?://\S+|(?<![\w&])#\d+\b|\b[A-Z][A-Z0-9]+-\d+\b|\bgh-\d+\b"


def says_flaky(*texts: str) -> str | None:
    """The first flaky-sounding word in any of ``texts`` (whole: "Flaky", "nondeterministic")."""
    for text in texts:
        match = _flaky_pattern().search(text)
        if match:
            return match.group(0)
    return None


def tracking_reference(text: str, pattern: str = DEFAULT_TRACKING_PATTERN) -> str | None:
    """The issue reference in ``text`` (URL, #123, PROJ-123), or None."""
    match = re.search(pattern, text)
    return match.group(0) if match else None
