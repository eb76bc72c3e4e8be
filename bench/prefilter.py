"""detlint's byte prefilter, mirrored here: would a detlint run parse this file?

Both trees need the answer: the synthetic generator guards that a file meant to
hold no knob does not look like one to detlint, and the corpus copy counts its
candidates and picks its one-file targets by it.
"""

from __future__ import annotations

# The words of detlint's byte prefilter (detlint/readers/python/prefilter.py and the
# FLAKY_STEMS of detlint/readers/reasons.py) at the time of writing. A file whose lowercased
# bytes hold one of them is parsed; update these when those change.
KNOB_WORDS = (b"flaky", b"xfail", b"retry", b"backoff", b"add_marker", b"quarantin")
FLAKY_WORDS = (
    *(b"flak", b"intermitten", b"nondetermin", b"non-determin", b"sporadic", b"racy"),
    *(b"race condition", b"race", b"timing", b"probabilistic", b"unstable", b"unreliable"),
    *(b"sometimes", b"occasional", b"randomly", b"too often", b"random fail"),
)
TRIAL_WORDS = (b"getenv", b"environ")


def prefilter_words(data: bytes, *, trials: bool) -> list[str]:
    """The prefilter words ``data`` holds: empty when detlint would not parse the file.

    A knob word anywhere, or "skip" together with a flaky-sounding word. With ``trials``
    (DET301, not selected by default) also "range(" together with an environment read.
    """
    lowered = data.lower()
    hits = [w.decode() for w in KNOB_WORDS if w in lowered]
    if b"skip" in lowered:
        hits += [w.decode() for w in FLAKY_WORDS if w in lowered]
    if trials and b"range(" in lowered and any(w in lowered for w in TRIAL_WORDS):
        hits.append("range( + getenv/environ")
    return hits
