"""The byte-level prefilter: which files might hold a knob at all.

Most test files hold none, and parsing is the expensive step, so a file is
parsed only when its lowercased bytes contain a token a knob needs. This
module imports nothing heavy: a run whose files all fail the prefilter never
imports the modules that parse and read Python.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from detlint.reasons import CONTEXT_STEMS, FLAKY_WORDS

# A file is parsed only if its lowercased bytes hold one of these.
KNOB_TOKENS = (b"flaky", b"xfail", b"retry", b"backoff", b"add_marker", b"quarantin")
SKIP_TOKEN = b"skip"
TRIAL_TOKENS = (b"getenv", b"environ")


FLAKY_TOKENS = tuple(word.lower().encode() for word in (*FLAKY_WORDS, *CONTEXT_STEMS))


@dataclass(frozen=True)
class Prefilter:
    """The byte-level test for "might hold a knob"."""

    extra: tuple[bytes, ...] = ()
    trials: bool = False  # also parse files with trial loops (for DET301)

    @functools.cached_property
    def _tokens(self) -> tuple[bytes, ...]:
        return KNOB_TOKENS + self.extra

    def _knob(self, lowered: bytes) -> bool:
        for token in self._tokens:
            if token in lowered:
                return True
        return SKIP_TOKEN in lowered and any(word in lowered for word in FLAKY_TOKENS)

    def wants(self, data: bytes) -> bool:
        """Whether a whole file might hold a knob (or, for DET301, an env-driven trial loop)."""
        lowered = data.lower()
        if self._knob(lowered):
            return True
        return self.trials and b"range(" in lowered and any(t in lowered for t in TRIAL_TOKENS)

    def may_export(self, data: bytes) -> bool:
        """Whether a helper or conftest.py can define a mark alias or a trial fixture."""
        lowered = data.lower()
        return self._knob(lowered) or any(token in lowered for token in TRIAL_TOKENS)

    def wants_block(self, text: str) -> bool:
        """Whether one block of a candidate file must be parsed.

        For DET301 a trial loop and the env read bounding it usually sit in
        different blocks, so each is kept on its own token.
        """
        lowered = text.lower().encode("utf-8", "surrogatepass")
        if self._knob(lowered):
            return True
        return self.trials and (b"range(" in lowered or any(t in lowered for t in TRIAL_TOKENS))
