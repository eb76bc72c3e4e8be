"""The byte-level prefilter: which files might hold a knob at all.

Most test files hold none, and parsing is the expensive step, so a file is
parsed only when its lowercased bytes contain a token a knob needs. This
module imports nothing heavy: a run whose files all fail the prefilter never
loads libcst.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from detlint.reasons import FLAKY_WORDS

# A file is parsed only if its lowercased bytes hold one of these.
KNOB_TOKENS = (b"flaky", b"xfail", b"retry", b"backoff", b"add_marker", b"quarantin")
SKIP_TOKEN = b"skip"
TRIAL_TOKENS = (b"getenv", b"environ")


def _words(words: Iterable[str]) -> tuple[bytes, ...]:
    return tuple(word.lower().encode() for word in words)


@dataclass(frozen=True)
class Prefilter:
    """The byte-level test for "might hold a knob"."""

    extra: tuple[bytes, ...] = ()
    trials: bool = False  # also parse files with trial loops (for DET301)

    def wants(self, data: bytes) -> bool:
        lowered = data.lower()
        if any(token in lowered for token in KNOB_TOKENS + self.extra):
            return True
        if SKIP_TOKEN in lowered and any(word in lowered for word in _words(FLAKY_WORDS)):
            return True
        return self.trials and b"range(" in lowered and any(t in lowered for t in TRIAL_TOKENS)

    def wants_text(self, text: str) -> bool:
        return self.wants(text.encode("utf-8", "surrogatepass"))
