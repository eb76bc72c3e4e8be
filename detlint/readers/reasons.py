"""Reading intent from free text: skip reasons, xfail reasons, comments.

A skip whose reason says "flaky" is a quarantine nobody will see again; an
xfail whose reason names no issue is one nobody will come back to. Both are
judged from words, so the words live in one place.

The vocabulary is calibrated on the skip and xfail reasons of real suites: several
hundred of them, each judged by hand, are kept in tests/fixtures/reasons/verdicts.jsonl
and the classifier must agree with every verdict. It is a model, not a phrase list:
words for intermittence ("flaky", "intermittent", "race"), frequency adverbs that make
a way of failing intermittent ("fails sometimes", "randomly crashes", "can time out"),
and what takes them back (a negation, "not flaky anymore"; a determinism setting; an
unstable API). It errs on the side of silence: a finding a maintainer dismisses costs
more than a flaky skip that goes unreported.
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
# "hangs too often", "segfaults too much", "can time out". A hang or a time-out alone is
# not enough: "This test hangs and should be rewritten" (prefect), "atomic_or operator
# hangs in current npu_ir version" (vllm-ascend) and "times out" (distributed) say
# nothing of how often.
_FAILING_WORDS = {  # by prefilter stem
    "fail": r"fail(?:s|ed|ing|ures?)?",
    "hang": r"hang(?:s|ing)?",
    "hung": "hung",
    "time": r"times? out|timed out|timing out|timeouts?",
    "crash": r"crash(?:es|ed|ing)?",
    "deadlock": r"deadlock(?:s|ed|ing)?",
    "segfault": r"segfault(?:s|ed|ing)?",
    "stall": r"stall(?:s|ed|ing)?",
    "freez": r"freez(?:es|ing)",
    "froze": "froze",
    "oom": "ooms?",
    "kill": "kills?",
}
_FAILING = f"(?:{'|'.join(_FAILING_WORDS.values())})"
# Frequency words that say "some of the time" only next to a way of failing, before or
# after it ("randomly fails", "fails randomly", "regularly crashes", "hangs too often"),
# keyed by their prefilter stem. Not "randomly" alone:
# "randomly initialized models happened to match" (rl) is a property of the inputs.
_NEXT_TO_FAILING = {
    "sometimes": "sometimes",
    "occasional": "occasionally",
    "frequently": "frequently",
    "randomly": "randomly",
    "at random": "at random",
    "stochastic": "stochastically",
    "regularly": "regularly",
    "spurious": "spuriously",
    "inconsistent": "inconsistently",
    "too often": "too often",
    "too much": "too much",
}


def _next_to_failing(stem: str, adverb: str) -> FlakyTerm:
    return FlakyTerm(stem, _word(rf"(?:{adverb}) {_FAILING}|{_FAILING} (?:{adverb})"))


# A possibility of failing is a failure that comes and goes: "can time out", "can hang
# forever", "Test can fail on Windows/FAT" (celery). One term for each modal and way of
# failing, so that the prefilter looks for "can fail", not for every "can". Not "may":
# "compilers may fail without correct setup" (setuptools) names what decides it, and
# nor a condition after it ("can fail if no GPU is free").
_MODALS = ("can", "could")
_DECIDED = r"(?! (?:\w+ ){0,2}(?:without|unless|if|when)(?![a-z0-9]))"
_NOT_TO = r"(?! to(?![a-z0-9]))"
# Frequency words that say "some of the time" whatever the verb: "sometimes get wrong
# collection type" (flopy), "It stalls the CI sometimes", "occasional Unexpected collection
# type", "Dask-Default-Threads are frequently detected" (distributed).
_ALONE = {
    "sometimes": "sometimes",
    "occasional": "occasional(?:ly)?",
    "frequently": "frequently",
    "now and then": "(?:every )?now and then",
    "from time to time": "from time to time",
    "once in a while": "once in a while",
}
# A word of speed after a frequency word is about time, not failure: "test is also
# sometimes slow" (jax), "occasionally very expensive". A time-out is a failure and
# stays one ("times out sometimes", spyder), and so does a wait a test gives up on:
# "watcher sometimes takes a long time to pick up file change ... on CI" (marimo).
_NOT_SPEED = (
    r"(?! (?:\w+ ){0,2}(?:slow(?:er|ly|s)?|fast(?:er)?|quick(?:er|ly)?|expensive|costly)"
    r"(?![a-z0-9]))"
)
# Failures that "random" makes intermittent: "random failing on CI" (coremltools).
_RANDOM_OUTCOMES = {
    "fail": r"failures?|failing|fails",
    "error": "errors?",
    "crash": "crash(?:es)?",
    "hang": "hangs",
    "timeout": "timeouts",
    "segfault": "segfaults",
}
# Nouns of failure that "spurious" and "inconsistent" make intermittent:
# "spurious JSON Decode errors" (pymor), "inconsistent ci test runs" (Megatron-LM).
# What a word of instability or reliability is about when a version follows it: "unstable
# with earlier versions of the api", "not reliable with pytest<7", "with Spyder-kernels 2".
# A gate on versions keeps a fixed problem off old releases; it quarantines nothing.
_NOT_A_VERSION = (
    r"(?! (?:with|on|in|for|under|before|below|prior to) (?:\S+ ){0,2}"
    r"(?:\S*\d|versions?|releases?|apis?)(?![a-z0-9]))"
)
_OUTCOMES = (
    r"(?:failures?|failing|fails|errors?|crash(?:es)?|hangs|timeouts|segfaults|runs?|"
    r"results?|outcomes?|behaviou?r)"
)
_SPURIOUS_OUTCOMES = r"(?:failures?|failing|fails|errors?|crash(?:es)?|hangs|timeouts|segfaults)"

# A race a sanitizer identifies: "race condition that TSAN identifies", "... found by
# ThreadSanitizer".
_NOT_SANITIZED = r"(?! (?:\w+ ){0,3}(?:tsan|thread ?sanitizer|sanitizers?)(?![a-z0-9]))"

# Phrases hold single spaces, not \s+: the prefilter searches the file's bytes, where a
# phrase broken over two lines would not hold the stem either.
_FAILING_TERMS: tuple[FlakyTerm, ...] = (
    # Not Nix flakes, nor a tool that finds flaky tests ("Early Flake Detection requires v2
    # of the plugin", dd-trace-py); "flakes", "flaked" and "a flake" are flaky.
    FlakyTerm(
        "flak",
        r"(?<!nix )"
        + _word("flak(?:y|ey|ier|iest|iness|ily|e|es|ed|ing)")
        + r"(?! (?:detection|detector|finder)(?![a-z0-9]))",
    ),
    FlakyTerm("intermitten", _word("intermitten(?:t|tly|cy)")),
    # "nondeterministic failures", "PE generation is non-deterministic on CPU"; not a kind
    # of algorithm or a mode ("non-deterministic bprop", "performs non-deterministic
    # operations", "Test non-determinism only"; see ``_DETERMINISM_SETTING``).
    *(
        FlakyTerm(
            stem,
            _word(f"{stem}(?:ism|istic|istically|acy)")
            + r"(?![ _-](?:operations?|ops|algorithms?|algos?|kernels?|bprop|backward|"
            r"mode|path|only)(?![a-z0-9]))",
        )
        for stem in ("nondetermin", "non-determin", "non determin")
    ),
    FlakyTerm("sporadic", _word("sporadic(?:ally)?")),
    FlakyTerm("racy", _word("racy")),  # "accuracy" is not racy
    # "race condition", "races with the NCCL cache", "a data race", "known race in
    # teardown", "windows has logging race issues" (ray): a race is intermittent by nature.
    # Not a race track, nor a test of one that needs hardware ("CUDA codegen path race
    # needs a CUDA device", warp) or "racing-stream test".
    # Not one a sanitizer reports ("Known race condition that TSAN identifies", CPython):
    # the sanitizer finds it on every run, so the skip is a gate on the sanitizer build.
    FlakyTerm("race condition", _word("race[- ]conditions?") + _NOT_SANITIZED),
    FlakyTerm(
        "race",
        _word(
            "races? (?:with|between|against|in|on|from|during|when|issues?|problems?)|data races?"
        )
        + r"|(?<![\s\S])races?[.!]?(?![\s\S])",
    ),
    FlakyTerm("timing", _word("timing[- ](?:dependent|sensitive)")),
    # "Probabilistic failure, need fix" (vllm-ascend, six skips).
    FlakyTerm("probabilistic", _word("probabilistic failures?|fails? probabilistically")),
    # Numerics are unstable deterministically ("Clipping by norm with 16-mixed is
    # numerically unstable", pytorch-lightning; "std with window == 1 is unstable in
    # bottleneck", xarray), and so are APIs, versions and sort orders ("unstable with
    # earlier versions of the api"); "unstable in CI" is flaky.
    FlakyTerm(
        "unstable",
        r"(?<!numerically[ _])(?<!numerical[ _])"
        + _word("unstable")
        + r"(?! (?:apis?|interfaces?|features?|releases?|versions?|branch(?:es)?|channels?|"
        r"builds?|abi|sort(?:ing)?)(?![a-z0-9]))"
        + _NOT_A_VERSION
        + r"(?! in (?!(?:the )?ci(?![a-z0-9])))",
    ),
    # "unreliable" is flaky when the test is: "the tests are unreliable" (fastmcp), "test too
    # slow and unreliable on Lightning CI" (torchmetrics), "unreliable on CI", or a reason
    # that opens with it, the test being its subject ("unreliable on MacOS and Firefox",
    # bokeh), or is that word alone. When something else is ("asyncio.wait_for is
    # unreliable on 3.10 and below", distributed; "h5py data_ptr behavior is unreliable on
    # free-threaded Python", tensordict) the skip is a gate, and "unreliable due to
    # python's behaviour" blames the language, not luck.
    FlakyTerm(
        "unreliable",
        _word(r"tests? (?:\w+ ){0,3}unreliable|unreliable(?= tests?\b| (?:on|in) (?:the )?ci\b)")
        + r"|(?<![\s\S])unreliable(?= (?:on|in)\b|[.!]?(?![\s\S]))",
    ),
    # Not reliably so: "tests not working yet reliably on CI", "test doesn't reliably
    # reproduce subprocess output capture" (ipykernel); not where a version decides it
    # ("IAST terminal summary is not reliable with pytest<7", dd-trace-py), nor where an
    # environment does: "This test can't be run reliably as root" (pypy), "... under
    # xdist", "... on PyPy" limit it to where it can run; CI is where it runs.
    FlakyTerm(
        "reliabl",
        r"(?:(?<![a-z0-9])(?:not|never)|n't) (?:\w+ ){0,2}reliabl[ey](?![a-z0-9])"
        + _NOT_A_VERSION
        + r"(?! (?:as|under|with|without)(?![a-z0-9]))"
        + r"(?! on (?!(?:the )?ci(?![a-z0-9])))",
    ),
    *(_next_to_failing(stem, adverb) for stem, adverb in _NEXT_TO_FAILING.items()),
    # "it often makes the client hang up" (dd-trace-py): a way of failing after "often".
    FlakyTerm("often", _word(r"often (?:\w+ ){0,4}(?:fail|hang|crash|segfault)\w*")),
    # "can fail to overflow on PyPy" (pypy) says what the code may not do there, a
    # behaviour, not a test that fails now and then.
    *(
        FlakyTerm(
            f"{modal} {stem}",
            _word(f"{modal} (?:{words})") + _DECIDED + (_NOT_TO if stem == "fail" else ""),
        )
        for modal in _MODALS
        for stem, words in _FAILING_WORDS.items()
    ),
    # Nouns: "occasional failures", "random failures", "spurious JSON Decode errors".
    FlakyTerm("occasional", _word(rf"occasional {_OUTCOMES}")),
    # "spurious" failures come and go; "spurious results" are wrong ones, every time
    # ("rpmlint returns spurious results on Ubuntu"), so only ways of failing count.
    FlakyTerm("spurious", _word(rf"spurious (?:\S+ ){{0,2}}{_SPURIOUS_OUTCOMES}")),
    FlakyTerm("inconsistent", _word(rf"inconsistent (?:\S+ ){{0,2}}{_OUTCOMES}")),
    *(
        FlakyTerm(f"random {stem}", _word(f"random (?:{words})"))
        for stem, words in _RANDOM_OUTCOMES.items()
    ),
)
# Frequency words alone are the weakest of the terms: a reason's, but beside an explicit
# reason, a comment on the call's line is read only for a word of failing (says_flaky).
ALONE_TERMS: tuple[FlakyTerm, ...] = tuple(
    FlakyTerm(stem, _word(words) + _NOT_SPEED) for stem, words in _ALONE.items()
)
FLAKY_TERMS: tuple[FlakyTerm, ...] = (*_FAILING_TERMS, *ALONE_TERMS)
# What the byte prefilter looks for near a ``skip``: every text ``says_flaky`` accepts
# holds one of these once lowercased.
FLAKY_STEMS: tuple[str, ...] = tuple(dict.fromkeys(term.stem for term in FLAKY_TERMS))

# What makes "unstable" (or "inconsistent") numerics or a difference between
# implementations rather than chance, anywhere in the reason or its comment: "Too
# unstable across LAPACKs." (scipy), "Test unstable on some platforms; see gh-17839"
# (scipy: a failure on i386), "unstable in float32", "ill-conditioned". A platform named
# alone keeps it flaky: "unstable on Windows" (testplan: a race), "Unstable on Apple
# Mobile" (CPython: fds of background threads), "unstable on architectures other than
# x86_64" (sssd).
_DIFFERS = re.compile(
    r"(?<![a-z0-9])(?:numeric(?:al|ally)?|precision|float(?:16|32|64|128)|"
    r"tolerances?|rtol|atol|ill[- ]conditioned|condition numbers?|round(?:ing|-?off)|"
    r"across(?! (?:\w+ )?(?:runs?|reruns?|executions?|invocations?|attempts?|ci|jobs?)\b)|"
    r"lapacks?|blas|openblas|mkl|i[36]86|32[- ]?bits?|"
    # a system that "became unstable" blew up (a simulation, a solver): its dynamics
    r"(?:bec(?:ame|omes?|oming)|goes|went|gone|turn(?:s|ed)?) unstable|"
    r"on (?:some|certain|various|different|several|many|most|a few) (?:\w+ )?"
    r"(?:platforms?|architectures?|arch(?:e?s)?|machines?|systems?|compilers?|cpus?))"
    r"(?![a-z0-9])",
    re.IGNORECASE,
)

# A word of the vocabulary that a negation just before takes back: "not flaky anymore",
# "no longer flaky", "isn't racy", "non-flaky".
_NEGATED = re.compile(r"(?:\bnot|\bno longer|\bno more|n't|\bnever|\bnon)[ -](?:\w+ )?$", re.I)
# A reason that speaks of support gates the test on a capability, and its nondeterminism
# words name the feature: "Nondeterministic expressions are supported from Spark 3.3.1",
# "Generate supports nondeterministic inputs from Spark 3.5.1" (spark-rapids).
_SUPPORT = re.compile(r"(?<![a-z0-9])(?:un)?support(?:s|ed)?(?![a-z0-9])", re.I)
# A reason that speaks of a determinism setting gates the test on it, and its
# nondeterminism words describe the code ("Skipped when NVTE_ALLOW_NONDETERMINISTIC_ALGO=0
# due to atomic_add nondeterminism", TransformerEngine).
_DETERMINISM_SETTING = re.compile(
    r"allow_nondeterministic|deterministic[ _-](?:mode|algo)|use_deterministic_algorithms",
    re.I,
)


@functools.cache
def _flaky_pattern(alone: bool = True) -> re.Pattern[str]:
    """Compiled on first use: the command line imports this module on every run; without
    ``alone``, the frequency words alone (``ALONE_TERMS``) are left out.

    ASCII-only case folding keeps the stems' promise: under Unicode folding the Kelvin
    sign would match "k" while ``bytes.lower()`` leaves it as it is.
    """
    terms = FLAKY_TERMS if alone else _FAILING_TERMS
    alternatives = "|".join(f"(?:{term.pattern})" for term in terms)
    return re.compile(alternatives, re.IGNORECASE | re.ASCII)


# Not issue keys: standards, encodings, digests and architectures ("RFC-3339", "SHA-256",
# "ISO-8601", "UTF-8", "ARM-64", "X86-64", "PY-3").
_NOT_KEYS = "PEP|RFC|ISO|IEEE|UTF|UCS|SHA|CVE|MD|CRC|ARM|AMD|X86|PY|PYTHON|WIN|GPT|INT|UINT|FLOAT"
# Words after which a key of one digit is one ("blocked by API-7"), and after the first
# two of them, a lowercase key ("see proj-12").
_CUES = r"(?i:tracked (?:in|by|at)|see|blocked by|fixed by|fixed in|ticket|issue|bug|jira)"
_LOWER_CUES = r"(?i:tracked (?:in|by|at)|see)"  # "see proj-12", not "bug numpy-2"
# An issue reference (the leftmost in the text):
# - a URL, trailing punctuation left out (GitHub, GitLab, Jira, Linear, any tracker), or
#   a tracker's own URI scheme with a number in it (Apple's "rdar://124260627",
#   "radar://problem/1");
# - an issue or pull request path, with or without a scheme ("see distributed/issues/4543",
#   "github.com/org/repo/issues/12", "gitlab.com/g/p/-/merge_requests/3"), a Jira
#   "browse/PROJ-1", "bugs.python.org/issue123", "crbug.com/1", Google's "b/123456";
# - "owner/repo#123" or "repo#123" ("distributed#5723"; a name of two characters or more,
#   so that "C#9" is not one); "GH-123", "gh#123", "bpo-123", Shortcut's "sc-101770";
# - a bare "#123", not an HTML entity ("&#123;");
# - a tracker key such as "PROJ-123": two capitals first, so that "X86-64" is not one, two
#   digits or more, so that product names are not ("GPT-2", "MODFLOW-6", "PEP-8"), and no
#   version ("LICENSE-2.0"); after a cue word ("tracked in", "see", "blocked by") one digit
#   will do, and a lowercase key counts ("see proj-12").
DEFAULT_TRACKING_PATTERN = (
    r"https?://[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]}]"
    r"|\b(?!file:)[a-z][a-z0-9+.-]*://[^\s<>\"'`]*\d[^\s<>\"'`.,;:!?)\]}]*"
    r"|(?<![\w.-])(?:[\w.-]+/)*(?:issues|pulls?|merge_requests)/\d+\b"
    r"|(?<![\w.-])(?:[\w.-]+/)*browse/[A-Z][A-Z0-9_]*-\d+\b"
    r"|(?<![\w./-])(?:bugs\.python\.org/issue|crbug(?:\.com)?/|b/)\d+\b"
    r"|(?<![\w.-])[A-Za-z][\w.-]+(?:/[\w.-]+)?#\d+\b"
    r"|\b(?i:gh|bpo)[-#]\d+\b"
    r"|\bsc-\d+\b"
    r"|(?<![\w&])#\d+\b"
    rf"|\b(?!(?:{_NOT_KEYS})-)[A-Z][A-Z_]+[A-Z0-9_]*-\d{{2,}}\b(?!\.\d)"
    rf"|\b(?:{_CUES} (?=[A-Z])|{_LOWER_CUES} )"
    rf"(?P<key>(?!(?i:{_NOT_KEYS})-)[A-Za-z][A-Za-z_]+[A-Za-z0-9_]*-\d+\b(?![.-]\d))"
)


def says_flaky(reason: str, comment: str = "", subjects: tuple[str, ...] = ()) -> str | None:
    """The first phrase that says the test fails only sometimes, as written in a skip or
    xfail's ``reason`` or else in the ``comment`` on the first line of its call
    ("Flaky", "nondeterministic", "hangs too often"), or None.

    A phrase a negation takes back ("not flaky anymore") does not count, nor does a word
    of nondeterminism in a reason about a determinism setting. Beside a reason that says
    nothing of the kind, the comment counts only for a word of failing: in
    ``self.skipTest(  # test is also sometimes slow`` then ``"sensitive to random key"``
    (jax), the reason says why and the comment speaks of something else; a ``# flaky``
    on a bare marker, or on a call with no reason, is the reason.

    "unstable" and "inconsistent" are numerics or a difference between implementations
    where the reason or comment says so (``_DIFFERS``: "inconsistent results at high
    precision"), and "unstable" names the case a test checks when every test
    it marks (``subjects``, their names) is named for it: ``xfail(reason='unstable')``
    on scipy's ``test_cubic_deriv_unstable``, a fit that goes wrong every time.
    """
    differs = bool(subjects) and all("unstabl" in subject.lower() for subject in subjects)
    differs = differs or _DIFFERS.search(f"{reason}\n{comment}") is not None
    found = _said(reason, _flaky_pattern(), differs)
    if found is not None or not comment:
        return found
    return _said(comment, _flaky_pattern(alone=not reason.strip()), differs)


def _said(text: str, pattern: re.Pattern[str], differs: bool) -> str | None:
    """The first phrase of ``text`` that says flaky; ``differs``: an "unstable" there is
    numerics, an implementation or the test's own subject (``says_flaky``)."""
    if text:
        for match in pattern.finditer(text):
            if _NEGATED.search(text, max(0, match.start() - 30), match.start()):
                continue
            word = match.group(0).lower()
            if "determin" in word and (_DETERMINISM_SETTING.search(text) or _SUPPORT.search(text)):
                continue
            if word.startswith(("unstabl", "inconsisten")) and differs:
                continue
            return match.group(0)
    return None


def tracking_reference(text: str, pattern: str = DEFAULT_TRACKING_PATTERN) -> str | None:
    """The issue reference in ``text`` (URL, issues path, repo#123, #123, PROJ-123), or None.

    ``pattern`` is the configured ``tracking-issue-pattern``; ``re`` caches its compilation.
    """
    match = re.search(pattern, text)
    if match is None:
        return None
    # A key found after its cue word ("see proj-12") is the key alone.
    return (
        match.group("key")
        if match.re.groupindex.get("key") and match.group("key")
        else match.group(0)
    )
