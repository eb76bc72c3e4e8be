"""Loops over cases written out in the code, nested loops and loops in functions the
test calls: each named with the count of cases detlint reads, never "no trial loop".

Distilled from mxnet's operator tests (``for dtype in ['float16', 'float32']`` around
``for shape in shapes`` with fresh random data and a check in each iteration, and
``check_sequence_func``, a function of the module with such a loop, called twice) and
raiden's ``test_recovery_happy_case`` (a loop of transfers, each checked by a function
it calls). The figures stay those of one case checked; loops that only build inputs,
collect values for one aggregate, retry or poll stay silent.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, check, only

HEADER = "import itertools\nimport time\n\nimport numpy as np\nimport pytest\n"
NO_LOOP = "1 attempt, no trial loop recognised"
PER_CASE = "the figures are per case checked"


def _trials(tmp_path, body: str, helpers: str = "") -> str:
    """The trial phrase DET101 quotes for a rerun-marked test with ``body`` (its first
    line is line 11); ``helpers`` are written after the test (from line 10 + len(body))."""
    lines = body.strip("\n").split("\n")
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_cases.py": HEADER
            + "\nSHAPES = [(2,), (3, 4), (5, 6, 7)]\n\n@pytest.mark.flaky(reruns=1)\n"
            + "def test_cases(items):\n"
            + "".join(f"    {line}\n" for line in lines)
            + helpers,
        },
    )
    message = only(document, "DET101")["message"]
    phrase = message.split("requirements-test.txt:1; ", 1)[1]
    return phrase[: phrase.rindex(")")]


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        # A module list of shapes, each drawn afresh and checked.
        (
            "for shape in SHAPES:\n    x = np.random.uniform(size=shape)\n"
            "    np.testing.assert_allclose(op(x), ref(x))",
            f"the loop over `SHAPES` (line 11) checks each of its 3 cases; {PER_CASE}",
        ),
        # A local list, and a loop over shapes nested in the loop over dtypes.
        (
            "dtypes = ['float16', 'float32']\nfor dtype in dtypes:\n    for shape in SHAPES:\n"
            "        x = np.random.uniform(size=shape).astype(dtype)\n"
            "        assert op(x).shape == shape",
            "the loops over `dtypes` (line 12) and `SHAPES` (line 13) check each of their"
            f" 2 \u00d7 3 cases; {PER_CASE}",
        ),
        # itertools.product of written lists, as mxnet's optimizer tests loop.
        (
            "for a, b in itertools.product([True, False], [1, 2, 3]):\n    assert run(a, b) == 1",
            "the loop over `itertools.product([True, False], [1, ...` (line 11) checks"
            f" each of its 6 cases; {PER_CASE}",
        ),
        # A range with bounds detlint reads but no trial count: iterations, counted.
        (
            "for n in range(1, 5):\n    assert run(n) == 1",
            "the loop over `range(1, 5)` (line 11) checks each of its 4 iterations; the"
            " figures are per iteration checked",
        ),
        # The outer loop written out, the inner one not: only the outer loop is counted.
        (
            "for dtype in ('float16', 'float32'):\n    for x in items:\n"
            "        assert run(x, dtype) == 1",
            f"the loop over `('float16', 'float32')` (line 11) checks each of its 2 cases;"
            f" {PER_CASE}",
        ),
        # Two loops in one loop: the outer loop's cases, not a product.
        (
            "for dtype in ('float16', 'float32'):\n    for a in (1, 2):\n"
            "        assert run(a) == 1\n    for b in (1, 2, 3):\n        assert run(b) == 2",
            f"the loop over `('float16', 'float32')` (line 11) checks each of its 2 cases;"
            f" {PER_CASE}",
        ),
        # A range bounded by a literal stays a counted trial loop.
        ("for _ in range(7):\n    assert run() == 1", "7 trials (literal loop bound)"),
    ],
)
def test_loops_over_cases_are_named_with_their_count(tmp_path, body, trials):
    assert _trials(tmp_path, body) == trials


HELPER = """

def check_sequence(axis):
    for dtype in ('float32', 'float64'):
        for size in range(1, 4):
            data = np.random.uniform(size=(size, 2)).astype(dtype)
            np.testing.assert_allclose(last(data, axis), data.take(-1, axis))
"""


def test_a_loop_in_a_function_the_test_calls_twice_is_named(tmp_path):
    """mxnet's test_sequence_last: two calls of a function with a 2 x 3 loop. (A function
    the test calls is read when its code names ``range``, as trial loops' helpers are.)"""
    assert _trials(tmp_path, "check_sequence(0)\ncheck_sequence(1)", HELPER) == (
        "the loops over `('float32', 'float64')` (line 16) and `range(1, 4)` (line 17) in"
        f" `check_sequence`, which the test calls 2 times, check each of their 2 \u00d7 3"
        f" cases; {PER_CASE}"
    )


def test_a_loop_in_a_function_the_test_calls_once_is_named(tmp_path):
    assert _trials(tmp_path, "check_sequence(0)", HELPER) == (
        "the loops over `('float32', 'float64')` (line 15) and `range(1, 4)` (line 16) in"
        f" `check_sequence` check each of their 2 \u00d7 3 cases; {PER_CASE}"
    )


def test_a_loop_of_calls_to_a_checking_function_is_named(tmp_path):
    """raiden's test_recovery: each transfer is checked by a function of the module."""
    helper = "\n\ndef transfer_and_check(path, identifier):\n    assert path.send(identifier)\n"
    body = (
        "spent = items - 2\nfor identifier in range(spent):\n"
        "    transfer_and_check(items, identifier)"
    )
    assert _trials(tmp_path, body, helper) == (
        "the loop over `range(spent)` (line 12) checks each iteration; detlint cannot count"
        " them, so the figures are per iteration checked"
    )


def test_collected_results_checked_one_by_one_are_named(tmp_path):
    """raiden's test_max_locks_reached: statuses collected in a loop over a bound
    imported from elsewhere, then each asserted after the loop."""
    body = (
        "statuses = []\nfor i in range(MAXIMUM_PENDING):\n    statuses.append(pay(i))\n"
        "for status in statuses:\n    assert status.ok"
    )
    assert _trials(tmp_path, body) == (
        "the loop over `range(MAXIMUM_PENDING)` (line 12) checks each iteration; detlint"
        " cannot count them, so the figures are per iteration checked"
    )


@pytest.mark.parametrize(
    "body",
    [
        # Collected for one aggregate: one check.
        "losses = []\nfor lr in (0.1, 0.01):\n    losses.append(train(lr))\nassert min(losses) < 1",
        # Inputs built in a loop over written cases, one check after it.
        "xs = []\nfor shape in SHAPES:\n    xs.append(np.zeros(shape))\nassert run(xs) == 1",
        # A retry over written delays, a poll that sleeps.
        "for delay in (1, 2, 4):\n    try:\n        assert run() == 1\n        break\n"
        "    except AssertionError:\n        pass",
        "for host in ('a', 'b'):\n    time.sleep(0.1)\n    assert ping(host)",
        # A loop over nothing checks nothing.
        "for shape in []:\n    assert run(shape) == 1",
        # A function the test calls whose loop only builds inputs.
        "data = build()\nassert run(data) == 1",
    ],
)
def test_loops_that_do_not_check_each_case_stay_unnamed(tmp_path, body):
    helper = (
        "\n\ndef build():\n    out = []\n    for shape in SHAPES:\n"
        "        out.append(shape)\n    return out\n"
    )
    assert _trials(tmp_path, body, helper) == NO_LOOP


def test_the_quarantine_message_keeps_the_figures_per_case(tmp_path):
    """A skipped test with a loop over five dtypes: 'was 10.0%' per case checked."""
    document = check(
        tmp_path,
        {
            "tests/test_skip.py": """import numpy as np
import pytest


@pytest.mark.skip(reason="test fails intermittently")
def test_scatter():
    for dtype in ['int32', 'int64', 'float16', 'float32', 'float64']:
        data = np.random.randint(0, 10, size=5).astype(dtype)
        assert scatter(data).sum() == data.sum()
""",
        },
    )
    (finding,) = [f for f in document["findings"] if f["code"] == "DET202"]
    assert finding["line"] == 5
    assert finding["message"].endswith(
        "(was 10.0%) and nothing shows it (the loop over `['int32', 'int64', 'float16',"
        " 'float3...` (line 7) checks each of its 5 cases; the figures are per case"
        " checked)"
    )


def test_a_function_the_test_calls_is_read_for_its_loop_without_a_range(tmp_path):
    """A function whose loops walk written lists only (no ``range``) is read too."""
    helper = (
        "\n\ndef check_dtypes(axis):\n    for dtype in ('float32', 'float64', 'int8'):\n"
        "        data = np.random.uniform(size=(3, 2)).astype(dtype)\n"
        "        np.testing.assert_allclose(last(data, axis), data.take(-1, axis))\n"
    )
    assert _trials(tmp_path, "check_dtypes(0)", helper) == (
        f"the loop over `('float32', 'float64', 'int8')` (line 15) in `check_dtypes` checks"
        f" each of its 3 cases; {PER_CASE}"
    )


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        # mxnet: check_consistency, imported, on what each iteration builds.
        (
            "for fix_gamma in (True, False):\n    sym = batch_norm(fix_gamma=fix_gamma)\n"
            "    check_consistency(sym, items)",
            "the loop over `(True, False)` (line 11) checks each of its 2 cases; " + PER_CASE,
        ),
        (
            "for opt in (sgd, adam):\n    mx.test_utils.compare_optimizer(opt(), opt(), items)",
            "the loop over `(sgd, adam)` (line 11) checks each of its 2 cases; " + PER_CASE,
        ),
        # raiden: transfer_and_assert_path, imported, in a loop detlint cannot count.
        (
            "for identifier in range(items - 2):\n    transfer_and_assert_path(items, identifier)",
            "the loop over `range(items - 2)` (line 11) checks each iteration; detlint cannot"
            " count them, so the figures are per iteration checked",
        ),
        # A command run for its output checks nothing by its name.
        ("for arg in ('a', 'b'):\n    outs = check_output(arg)\nassert outs", NO_LOOP),
        # A list the test fills in a loop and walks after it: not written out.
        (
            "cases = []\nfor _ in items:\n    cases.append(draw())\nfor case in cases:\n"
            "    assert run(case) == 1",
            "the loop over `cases` (line 14) checks each item; detlint cannot count them, so"
            " the figures are per item checked",
        ),
    ],
)
def test_calls_named_as_checks_make_a_loop_named(tmp_path, body, trials):
    assert _trials(tmp_path, body) == trials


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        # mxnet's test_adamax: float16 keeps only some options, so the count is not known.
        (
            "for dtype in ('float16', 'float32'):\n    for opt in ('a', 'b', 'c'):\n"
            "        if dtype == 'float16' and opt == 'a':\n            continue\n"
            "        compare_optimizer(opt, dtype)",
            "the loops over `('float16', 'float32')` (line 11) and `('a', 'b', 'c')` (line 12)"
            " check each case; detlint cannot count them, so the figures are per case checked",
        ),
        # mxnet's test_np_standard_binary_funcs: a try around building a case catches no
        # check, so the loop is named.
        (
            "for ltype in ('float16', 'float32'):\n    try:\n"
            "        promoted = np.result_type(ltype)\n    except TypeError:\n"
            "        continue\n    assert run(promoted) == 1",
            "the loop over `('float16', 'float32')` (line 11) checks each case; detlint cannot"
            " count them, so the figures are per case checked",
        ),
        # A try around the check itself catches the failure: a retry, not named.
        (
            "for delay in (1, 2):\n    try:\n        assert run(delay) == 1\n"
            "    except AssertionError:\n        pass",
            NO_LOOP,
        ),
    ],
)
def test_skipped_and_caught_cases(tmp_path, body, trials):
    assert _trials(tmp_path, body) == trials


def test_a_function_that_returns_what_it_computes_is_not_named(tmp_path):
    """gluonts' maximum_likelihood_estimate_sgd: a training loop that guards each epoch
    against NaN returns the estimate the test checks once."""
    helper = (
        "\n\ndef estimate(samples, epochs):\n    for _ in range(epochs):\n"
        "        loss = step(samples)\n        assert not np.isnan(loss)\n    return params()\n"
    )
    body = "found = estimate(items, 10 * items)\nassert abs(found - 1.0) < 0.1"
    assert _trials(tmp_path, body, helper) == NO_LOOP


def test_a_loop_over_one_case_says_so(tmp_path):
    """artemis' test_simple: a list of one entry, looped over and checked."""
    body = (
        "data = [('cert.pl', 'ci.cert.pl')]\nfor domain, sub in data:\n"
        "    assert sub in scan(domain)"
    )
    assert _trials(tmp_path, body) == (
        "the loop over `data` (line 12) checks one case; the figures are those of that case"
    )
