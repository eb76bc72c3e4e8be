"""Reading intent from reasons, calibrated on real suites.

The reasons quoted verbatim come from the skip and xfail marks of the repositories named
beside them (numpy and scipy for the older cases). A word that reads as flaky but is not
is a finding a maintainer dismisses, so the negatives matter as much as the positives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from detlint.readers.python.prefilter import FLAKY_TOKENS, Prefilter
from detlint.readers.reasons import says_flaky, tracking_reference

# distributed, test_scheduler.py: a triple-quoted xfail reason, kept as written.
TIMING_SENSITIVE = (
    "Freeing keys and gathering data is using different\n"
    "                   channels (stream vs explicit RPC). Therefore, the\n"
    "                   partial-fail is very timing sensitive and subject to a race\n"
    "                   condition. This test assumes that the data is freed before\n"
    "                   the rebalance get_data requests come in but merely deleting\n"
    "                   the futures is not sufficient to guarantee this"
)

REAL_FLAKY = [
    ("Flaky on CI", "Flaky"),  # ao
    ("very high flakiness; see distributed/issues/4543", "flakiness"),  # distributed
    ("Test is flaky with Redis broker", "flaky"),  # celery
    ("Temporarily skipped due to flaky failures, pending investigation.", "flaky"),  # vllm-ascend
    ("known intermittent failure", "intermittent"),  # distributed
    ("hangs forever intermittently on windows", "intermittently"),  # celery
    ("seeing nondeterministic failures, skipping for now", "nondeterministic"),  # DeepSpeed
    ("Randomly fails", "Randomly fails"),  # celery
    ("TODO: unstable test", "unstable"),  # celery
    ("unstable in CI on macOS", "unstable"),
    # A platform named alone: the test is unstable there.
    ("ProcPool start/stop is unstable on Windows", "unstable"),  # testplan
    ("Test is unstable on architectures other than x86_64.", "unstable"),  # sssd
    ("Unstable on Apple Mobile", "Unstable"),  # CPython
    ("rendering unstable on osx, skipping (mujoco.FatalError: gladLoadGL error)", "unstable"),
    ("test is unstable across runs", "unstable"),
    ("test hangs too often", "hangs too often"),  # pytorch-lightning
    (
        "This test is occasionally failing on CI because the tables aren't being restored after "
        "the downgrade, which makes the DB cleanup fixture error for the rest of the test suite",
        "occasionally failing",
    ),  # prefect
    ("Probabilistic failure, need zengtian after fix", "Probabilistic failure"),  # vllm-ascend
    ("unreliable on MacOS and Firefox", "unreliable"),  # bokeh
    # fastmcp: the second sentence of "Timeout tests are flaky on Windows. Timeouts ...".
    ("Timeouts *are* supported but the tests are unreliable.", "tests are unreliable"),
    (TIMING_SENSITIVE, "timing sensitive"),  # distributed ("race\ncondition" is split)
    ("Intermittent failure acceptable.", "Intermittent"),  # scipy
    # flopy: non-strict xfails whose outcome varies from run to run.
    ("sometimes get LineCollections instead of PatchCollections", "sometimes"),
    ("occasional Unexpected collection type", "occasional"),
    ("GH#5409 Dask-Default-Threads are frequently detected", "frequently"),  # distributed
    ("Occasionally hits the timeout. Should refactor", "Occasionally"),  # composer
    ("Fails on Linux sometimes", "sometimes"),  # spyder
    ("It segfaults too much on Linux", "segfaults too much"),  # spyder
    ("Intel CL regularly crashes on this test case", "regularly crashes"),  # pyopencl
    ("cos_similarity unittest is failing stochastically", "failing stochastically"),  # coremltools
    ("Two tests are random failing on CI", "random failing"),  # coremltools
    ("spurious JSON Decode errors in Ipython launch", "spurious JSON Decode errors"),  # pymor
    ("inconsistent ci test runs resulting in NCCL errors", "inconsistent ci test runs"),
    ("Disabled: causes OOM too often in CI", "OOM too often"),  # FastVideo
    ("Pool execution in osx can hang forever.", "can hang"),  # tensordict
    ("test doesn't reliably reproduce subprocess output capture", "n't reliably"),  # ipykernel
    ("Flaky on Windows. Timing out.", "Flaky"),  # ray
    ("windows has logging race issues.", "race issues"),  # ray
    ("Non deterministic sort/join on nulls", "Non deterministic"),  # cudf
    ("it often makes the client hang up", "often makes the client hang"),  # dd-trace-py
    ("test too slow and unreliable on Lightning CI", "test too slow and unreliable"),
    ("PE generation is non-deterministic on CPU", "non-deterministic"),  # diffusers
]
# The vocabulary's other spellings, one case each.
WORD_FORMS = [
    ("flakey on the arm64 runners", "flakey"),
    ("flakes about once a week", "flakes"),
    ("flaked twice on main", "flaked"),
    ("a flake, see the CI dashboard", "flake"),
    ("non-deterministic order of results", "non-deterministic"),
    ("nondeterminism in the reduction", "nondeterminism"),
    ("fails sporadically on macOS", "sporadically"),
    ("racy under free-threading", "racy"),
    ("race condition in the cache warm-up", "race condition"),
    ("races with the NCCL cache", "races with"),
    ("a data race in the allocator", "data race"),
    ("timing-dependent", "timing-dependent"),
    ("fails sometimes on ARM", "fails sometimes"),
    ("sometimes times out on Windows", "sometimes times out"),
    ("hangs sometimes", "hangs sometimes"),
    ("fails occasionally under load", "fails occasionally"),
    ("occasional failures on 3.12", "occasional failures"),
    ("unreliable on CI", "unreliable"),
    ("RUN_FLAKY_TESTS is not set", "FLAKY"),  # snake_case: "_" separates words
    ("known race in teardown", "race in"),
    ("can time out", "can time out"),
    ("unreliable", "unreliable"),
    ("fails randomly at start-up", "fails randomly"),
    ("hangs every now and then", "every now and then"),
    ("TODO: RUSTPYTHON; occasionally crash (malloc corruption)", "occasionally crash"),
    ("race condition in the teardown, seen by users", "race condition"),
]
NOT_FLAKY = [
    "trace the race track",  # "race" alone is not a race condition
    # A race a sanitizer reports on every run: a gate on the sanitizer build.
    "https://github.com/python/cpython/issues/124878 - Known race condition that TSAN identifies.",
    "race condition reported by ThreadSanitizer",
    # The substring "flak" that a word match no longer takes for flaky.
    "separate ifs because flake8 is outsmarting me",  # ao, the comment above a pytest.skip
    "Snowflake connector not installed",
    "flakehell is not installed",
    "requires nix flakes",
    "Early Flake Detection requires v2 of the plugin and pytest >=7.0",  # dd-trace-py
    # "racy" inside a word.
    "WindowsTime doesn't work with high accuracy base timer",  # distributed
    "low accuracy on ppc64le",  # numpy
    # Numerics are unstable every time.
    "Clipping by norm with 16-mixed is numerically unstable.",  # pytorch-lightning
    "Align vectors near inf is numerically unstable in float32",  # scipy
    "std with window == 1 is unstable in bottleneck",  # xarray
    # Results that differ between implementations or platforms, every time.
    "Too unstable across LAPACKs.",  # scipy
    "Test unstable on some platforms; see gh-17839, 17859",  # scipy: i386
    "unstable on 32-bit platforms",
    "unstable with OpenBLAS",
    "unstable: ill-conditioned matrix",
    "unstable on certain architectures",
    "meta tensors only became stable after torch 1.10",  # DeepSpeed
    # Unreliable, but not the test: a version gate, and the language's behaviour.
    "asyncio.wait_for is unreliable on 3.10 and below",  # distributed
    "unreliable due to python's behaviour",  # numpy
    # A hang or a time-out with no word of how often.
    "This test hangs and should be rewritten",  # prefect
    "atomic_or operator hangs in current npu_ir version",  # vllm-ascend
    "times out",  # distributed
    "Windows asyncio networking timeouts.",  # fastmcp
    # An outcome that varies, not a failure said to come and go.
    "Use fast random selection now",  # distributed
    "randomly initialized models happened to match",  # rl: a property of the inputs
    "Failing in CI",  # ao
    # Negations take the word back.
    "not flaky anymore",
    "no longer flaky since the fix",
    "isn't racy",
    "non-flaky rewrite of test_a",
    # Versions, kinds of algorithm and determinism settings.
    "unstable with earlier versions of the api",
    "For sm100+, non-deterministic bprop (cuDNN 9.7+) does not support bias with dropout",
    "Test non-determinism only",  # TransformerEngine
    "Skipped when NVTE_ALLOW_NONDETERMINISTIC_ALGO=0 due to atomic_add nondeterminism "
    "introducing too much error across multiple ops.",  # TransformerEngine
    # Where it works, what decides a failure, and versions.
    "Works reliably on Linux and CIs",  # spyder
    "can not fail once the lock is held",
    "compilers may fail without correct setup",  # setuptools
    "Not reliable with Spyder-kernels 2",  # spyder
    "IAST terminal summary is not reliable with pytest<7",  # dd-trace-py
    # A tool that finds flaky tests, and a test of a race that needs hardware.
    "Early Flake Detection requires v2 of the plugin and pytest >=7.0",  # dd-trace-py
    "CUDA codegen path race needs a CUDA device",  # warp
    "Requires at least 4 GPUs for TP=4 racing-stream test",  # Megatron-LM
    # Time, not failure, after a frequency word.
    "test is also sometimes slow, with (300, ...)-shape draws",  # jax, a comment
    "occasionally very expensive on the emulator",
    "sometimes very slow under valgrind",
    # A limit of one environment, and a behaviour the code may show there.
    "This test can't be run reliably as root (issue #1076467).",  # pypy
    "can't be run reliably under xdist",
    "cannot run reliably on PyPy",
    "can fail to overflow on PyPy",  # pypy
    "could fail to detect the cycle on 32-bit builds",
]
# Time-outs and CI stay intermittent failures.
STILL_FLAKY = [
    ("sometimes times out", "sometimes times out"),
    (
        "watcher sometimes takes a long time to pick up file change to an import block on CI",
        "sometimes",
    ),  # marimo: an xfail, the test gives up waiting
    ("not reliable on the CI", "not reliable"),
    ("can fail on Windows", "can fail"),
]


@pytest.mark.parametrize(("text", "word"), REAL_FLAKY + WORD_FORMS)
def test_says_flaky(text, word):
    assert says_flaky(text) == word


@pytest.mark.parametrize("text", NOT_FLAKY)
def test_does_not_say_flaky(text):
    assert says_flaky(text) is None


@pytest.mark.parametrize(("text", "word"), STILL_FLAKY)
def test_time_outs_and_ci_stay_flaky(text, word):
    assert says_flaky(text) == word


def test_the_reason_is_read_before_the_comment():
    assert says_flaky("Flaky on CI", "racy") == "Flaky"
    assert says_flaky("posix only", "racy") == "racy"


def test_beside_a_reason_a_comment_counts_only_for_a_word_of_failing():
    """jax: ``self.skipTest(  # test is also sometimes slow`` then its reason."""
    reason = "sensitive to random key - https://github.com/jax-ml/jax/issues/18941"
    assert says_flaky(reason, "sometimes gets the wrong shape") is None
    assert says_flaky(reason, "also fails sometimes") == "fails sometimes"
    assert says_flaky(reason, "flaky") == "flaky"
    # No reason: the comment is the reason, frequency words alone included.
    assert says_flaky("", "sometimes gets the wrong shape") == "sometimes"
    assert says_flaky("   ", "occasional bad collection") == "occasional"


@pytest.mark.parametrize(("text", "word"), REAL_FLAKY + WORD_FORMS)
def test_the_prefilter_keeps_every_flaky_reason(text, word):
    """A file whose skip reason says flaky must reach the parser: each text that
    ``says_flaky`` accepts holds one of the prefilter's tokens once lowercased."""
    lowered = text.lower().encode()
    assert any(token in lowered for token in FLAKY_TOKENS), word
    source = f"@pytest.mark.skip(reason={text!r})\ndef test_a(): ...\n".encode()
    assert Prefilter().wants(source)


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("very high flakiness; see distributed/issues/4543", "distributed/issues/4543"),
        ("GH#5409 Dask-Default-Threads are frequently detected", "GH#5409"),  # distributed
        ("distributed#5723", "distributed#5723"),
        ("dask/distributed#8075", "dask/distributed#8075"),
        ("Issue #5269", "#5269"),  # celery
        ("broken (see PR #9426)", "#9426"),  # bokeh
        ("skipped due to deepspeed/#2449, keep track @rohitgr7", "#2449"),  # pytorch-lightning
        (
            "Dataset doesn't exist yet at the tagged commit. Fix in #/renku-python/issues/2210",
            "renku-python/issues/2210",
        ),  # renku-python
        (
            "Flaky due to https://github.com/dask/distributed/issues/5915",
            "https://github.com/dask/distributed/issues/5915",
        ),  # distributed
        (
            "https://github.com/pytorch/ao/issues/4048: 'FakeTensor' object has no attribute "
            "'__tensor_flatten__'",
            "https://github.com/pytorch/ao/issues/4048",
        ),  # ao
        ("see github.com/org/repo/issues/12", "github.com/org/repo/issues/12"),
        ("reverted in org/repo/pull/77", "org/repo/pull/77"),
        ("(see https://example.org/bugs/12).", "https://example.org/bugs/12"),
        ("tracked in gh-17839", "gh-17839"),
        ("GH-123", "GH-123"),
        ("bpo-46195", "bpo-46195"),
        ("PROJ-77: nondeterministic reduction", "PROJ-77"),
    ],
)
def test_tracking_reference(text, reference):
    assert tracking_reference(text) == reference


@pytest.mark.parametrize(
    "text",
    [
        "Very flaky on Windows CI",  # distributed
        "requires python3.10 or higher for `|` unions",  # prefect
        "Some UTs are only supported on x86_64 CPUs",  # ao
        "PEP 649 deferred annotations require Python 3.14+",  # celery
        "PEP-8 names only",  # a style guide, not an issue
        "needs a UTF-8 locale",
        "SHA-256 of the wheel differs, sha256 of the sdist too",
        "x86-64 only",
        "GPT-2 weights are not cached",  # a product, not a ticket
        "float64 vs float32",
        "C#9 interop",
        "&#123; is an entity",
    ],
)
def test_no_tracking_reference(text):
    assert tracking_reference(text) is None


VERDICTS = Path(__file__).parent.parent / "fixtures" / "reasons" / "verdicts.jsonl"


def _verdicts() -> list[dict[str, object]]:
    with VERDICTS.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def test_the_classifier_agrees_with_every_judged_reason():
    """Skip and xfail reasons of real suites, each judged by hand: does it say the test
    fails only some of the time? ``source`` is where it is written (repository, path,
    line); rows without one are the vocabulary's short forms."""
    rows = _verdicts()
    flaky = [row for row in rows if row["flaky"]]
    assert len(rows) >= 300
    assert len(flaky) >= 100
    assert len(rows) - len(flaky) >= 100
    wrong = [
        (row["reason"], says_flaky(str(row["reason"])))
        for row in rows
        if (says_flaky(str(row["reason"])) is not None) != row["flaky"]
    ]
    assert wrong == []


def test_the_prefilter_keeps_every_judged_flaky_reason():
    for row in _verdicts():
        if row["flaky"]:
            lowered = str(row["reason"]).lower().encode()
            assert any(token in lowered for token in FLAKY_TOKENS), row["reason"]


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("Flaky test -- tracked in QDB-14766 in shortcut", "QDB-14766"),  # qdb-api-python
        ("tracked in sc-101770", "sc-101770"),
        ("tracked in PROJ-1", "PROJ-1"),
        ("flaky, see PROJ-1", "PROJ-1"),
        ("blocked by API-7", "API-7"),
        ("see proj-12", "proj-12"),
        ("Tracked in ops-3", "ops-3"),
        (
            "https://linear.app/acme/issue/ENG-12/flaky-upload",
            "https://linear.app/acme/issue/ENG-12/flaky-upload",
        ),
        ("https://gitlab.com/g/p/-/issues/4", "https://gitlab.com/g/p/-/issues/4"),
        ("gitlab.com/g/p/-/merge_requests/3", "gitlab.com/g/p/-/merge_requests/3"),
        ("https://acme.atlassian.net/browse/X-1", "https://acme.atlassian.net/browse/X-1"),
        ("jira.acme.com/browse/X-1", "jira.acme.com/browse/X-1"),
        ("flaky (b/123456)", "b/123456"),
        ("crbug.com/1 on the bots", "crbug.com/1"),
        ("bpo: bugs.python.org/issue123", "bugs.python.org/issue123"),
        ("acme/repo#12", "acme/repo#12"),
        (  # coremltools
            "rdar://124260627 ([CI] Two tests are random failing on CI)",
            "rdar://124260627",
        ),
        ("see radar://problem/42.", "radar://problem/42"),
    ],
)
def test_tracking_reference_as_projects_write_it(text, reference):
    assert tracking_reference(text) == reference


@pytest.mark.parametrize(
    "text",
    [
        "PROJ-1 alone could be a product name",  # one digit with no cue word
        "see utf-8 docs",
        "see py-3 notes",
        "arm-64 only",
        "ARM-64 only",
        "see x86-64 wheels",
        "see release-1.2",
        "bug numpy-2",  # a lowercase key counts after "see" and "tracked in" only
        "blocked by api-7",
        "needs a/b/1234 path",
    ],
)
def test_no_tracking_reference_in_versions_and_names(text):
    assert tracking_reference(text) is None


def test_unstable_beside_a_comment_of_numerics():
    """The comment read with the reason says what "unstable" is about."""
    assert says_flaky("unstable", "# numerically unstable for large n") is None
    assert says_flaky("unstable", "# tolerance too tight") is None
    assert says_flaky("unstable", "# fails on CI") == "unstable"


def test_unstable_as_the_subject_of_every_test_it_marks():
    """scipy's `xfail(reason='unstable')` on `test_cubic_deriv_unstable`: the test checks
    an unstable case; a mark covering another test keeps the word flaky."""
    assert says_flaky("unstable", "", ("test_cubic_deriv_unstable",)) is None
    assert says_flaky("unstable", "", ("test_cubic_deriv_unstable", "test_fit")) == "unstable"
    assert says_flaky("unstable", "", ("test_fit",)) == "unstable"
