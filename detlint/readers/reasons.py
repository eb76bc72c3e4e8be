"""Reading intent from free text: skip reasons, xfail reasons, comments.

A skip whose reason says "flaky" is a quarantine nobody will see again; an
xfail whose reason names no issue is one nobody will come back to. Both are
judged from words, so the words live in one place.

The vocabulary is calibrated on the skip and xfail reasons of real suites
(numpy, scipy, dask/distributed, celery, prefect, pytorch-lightning, DeepSpeed,
torchao, vllm-ascend, fastmcp, flopy, numpyro, bokeh; see tests/test_reasons.py).
It errs on the side of silence: a finding a maintainer dismisses costs more than
a flaky skip that goes unreported, so a word counts only where the real reasons
use it to say that a test fails some of the time.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple


class FlakyTerm(NamedTuple):
    """One way of saying "fails only sometimes".

    ``pattern`` is matched case-insensitively (ASCII only); every text it matches
    contains ``stem`` once lowercased. The byte prefilter searches for the stems
    alone, so that invariant is what keeps it from dropping a file whose skip
    reason says flaky.
    """

    stem: str
    pattern: str


def _word(body: str) -> str:
    """``body`` as whole words: no letter or digit on either side, so "snowflake" and
    "flake8" are not "flake" while "known_flaky" (a snake_case tag) is "flaky"."""
    return rf"(?<![a-z0-9])(?:{body})(?![a-z0-9])"


# Ways of failing that a frequency word turns into "fails sometimes": "randomly fails",
# "hangs too often", "times out sometimes". A hang or a time-out alone is not enough:
# "This test hangs and should be rewritten" (prefect), "atomic_or operator hangs in
# current npu_ir version" (vllm-ascend) and "times out" (distributed) say nothing of
# how often.
_FAILING = (
    r"(?:fail(?:s|ed|ing|ures?)?|hang(?:s|ing)?|hung|times? out|timed out|timing out|"
    r"timeouts?|crash(?:es|ed|ing)?|deadlock(?:s|ed|ing)?|segfault(?:s|ed|ing)?)"
)
# Frequency words that count next to a way of failing, before or after it ("randomly
# fails", "fails occasionally", "hangs too often"), keyed by their prefilter stem. Not
# "often" or "frequently" alone: "compression libraries often fail" and "Timeouts often
# indicate subtle deadlocks" (distributed) are about something else than the test.
_FREQUENCY = {
    "sometimes": "sometimes",
    "occasional": "occasionally",
    "randomly": "randomly",
    "too often": "too often",
}


def _around_failing(stem: str, adverb: str) -> FlakyTerm:
    return FlakyTerm(stem, _word(rf"{adverb} {_FAILING}|{_FAILING} {adverb}"))


# Phrases hold single spaces, not \s+: the prefilter searches the file's bytes, where a
# phrase broken over two lines would not hold the stem either.
FLAKY_TERMS: tuple[FlakyTerm, ...] = (
    # Not Nix flakes, nor a CI service's "Early Flake Detection" (a feature a test needs);
    # "flakes", "flaked" and "a flake" are flaky.
    FlakyTerm(
        "flak",
        r"(?<!nix )" + _word("flak(?:y|ey|ier|iest|iness|ily|e|es|ed|ing)") + r"(?! detection)",
    ),
    FlakyTerm("intermitten", _word("intermitten(?:t|tly|cy)")),
    FlakyTerm("nondetermin", _word("nondetermin(?:ism|istic|istically|acy)")),
    FlakyTerm("non-determin", _word("non-determin(?:ism|istic|istically|acy)")),
    FlakyTerm("sporadic", _word("sporadic(?:ally)?")),
    FlakyTerm("racy", _word("racy")),  # "accuracy" is not racy
    FlakyTerm("race condition", _word("race conditions?")),
    # "races with the NCCL cache", "a data race": a race is intermittent by nature.
    FlakyTerm("race", _word("races? (?:with|between|against)|data races?")),
    FlakyTerm("timing", _word("timing[- ](?:dependent|sensitive)")),
    # "Probabilistic failure, need fix" (vllm-ascend, six skips).
    FlakyTerm("probabilistic", _word("probabilistic failures?|fails? probabilistically")),
    # Numerics are unstable deterministically ("Clipping by norm with 16-mixed is
    # numerically unstable", pytorch-lightning; "std with window == 1 is unstable in
    # bottleneck", xarray), and so are APIs and sort orders; "unstable in CI" is flaky.
    FlakyTerm(
        "unstable",
        r"(?<!numerically[ _])(?<!numerical[ _])"
        + _word("unstable")
        + r"(?! (?:apis?|interfaces?|features?|releases?|versions?|branch(?:es)?|channels?|"
        r"builds?|abi|sort(?:ing)?)(?![a-z0-9]))"
        r"(?! in (?!(?:the )?ci(?![a-z0-9])))",
    ),
    # "unreliable" is flaky when the test is: "the tests are unreliable" (fastmcp),
    # "unreliable on CI", or a reason that opens with it, the test being its subject
    # ("unreliable on MacOS and Firefox", bokeh). When something else is ("asyncio.wait_for
    # is unreliable on 3.10 and below", distributed) the skip is a version gate, and
    # "unreliable due to python's behaviour" blames the language, not luck.
    FlakyTerm(
        "unreliable",
        _word(r"tests? (?:\w+ ){0,2}unreliable|unreliable(?= tests?\b| (?:on|in) (?:the )?ci\b)")
        + r"|(?<![\s\S])unreliable(?= (?:on|in)\b)",
    ),
    *(_around_failing(stem, adverb) for stem, adverb in _FREQUENCY.items()),
    # Nouns: "occasional failures", "random failures". Not "occasional Unexpected collection
    # type" or "sometimes get wrong collection type" (flopy): an outcome that varies, in
    # words that do not say whether from run to run or from one matplotlib to the next.
    FlakyTerm("occasional", _word("occasional (?:failures?|hangs|timeouts|crashes)")),
    FlakyTerm("random fail", _word("random failures?")),
)
# What the byte prefilter looks for near a ``skip``: every text ``says_flaky`` accepts
# holds one of these once lowercased.
FLAKY_STEMS: tuple[str, ...] = tuple(dict.fromkeys(term.stem for term in FLAKY_TERMS))


@functools.cache
def _flaky_pattern() -> re.Pattern[str]:
    """Compiled on first use: the command line imports this module on every run.

    ASCII-only case folding keeps the stems' promise: under Unicode folding the Kelvin
    sign would match "k" while ``bytes.lower()`` leaves it as it is.
    """
    alternatives = "|".join(f"(?:{term.pattern})" for term in FLAKY_TERMS)
    return re.compile(alternatives, re.IGNORECASE | re.ASCII)


# Not issue keys: standards and digests ("RFC-3339", "SHA-256", "ISO-8601").
_NOT_KEYS = "PEP|RFC|ISO|IEEE|UTF|UCS|SHA|CVE"
# An issue reference (the leftmost in the text): a URL, trailing punctuation left out; an
# issue or pull request path, with or without a scheme ("see distributed/issues/4543",
# "github.com/org/repo/issues/12"); "owner/repo#123" or "repo#123" ("distributed#5723";
# a name of two characters or more, so that "C#9" is not one); "GH-123", "gh#123",
# "bpo-123"; a bare "#123", not an HTML entity ("&#123;"); a tracker key such as "PROJ-123":
# two capitals first, so that "X86-64" is not one, two digits or more, so that product
# names are not ("GPT-2", "MODFLOW-6", "PEP-8"), and no version ("LICENSE-2.0").
DEFAULT_TRACKING_PATTERN = (
    r"https?://[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]}]"
    r"|(?<![\w.-])(?:[\w.-]+/)*(?:issues|pulls?|merge_requests)/\d+\b"
    r"|(?<![\w.-])[A-Za-z][\w.-]+(?:/[\w.-]+)?#\d+\b"
    r"|\b(?i:gh|bpo)[-#]\d+\b"
    r"|(?<![\w&])#\d+\b"
    rf"|\b(?!(?:{_NOT_KEYS})-)[A-Z][A-Z_]+[A-Z0-9_]*-\d{{2,}}\b(?!\.\d)"
)


def says_flaky(*texts: str) -> str | None:
    """The first phrase in ``texts`` that says the test fails only sometimes, as written
    there ("Flaky", "nondeterministic", "hangs too often"), or None.

    Called once per skip or xfail mark with its reason and the comment on its line.
    """
    pattern = _flaky_pattern()
    for text in texts:
        match = pattern.search(text)
        if match:
            return match.group(0)
    return None


def tracking_reference(text: str, pattern: str = DEFAULT_TRACKING_PATTERN) -> str | None:
    """The issue reference in ``text`` (URL, issues path, repo#123, #123, PROJ-123), or None.

    ``pattern`` is the configured ``tracking-issue-pattern``; ``re`` caches its compilation.
    """
    match = re.search(pattern, text)
    return match.group(0) if match else None
