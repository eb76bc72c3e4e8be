"""Trial loops that follow each other add up; loops that only decide a skip check nothing.

Distilled from pyopencl's ``test_slice`` (three ``for _i in range(20):`` loops one
after another, each on fresh random slices with an assert: 60 trials per attempt)
and pymor's ``_skip_if_no_solver`` (a loop over nine solvers that only calls
``pytest.skip`` when one is missing: no check, so no loop to name).
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, check, only

HEADER = "import random\nimport unittest\n\nimport numpy as np\nimport pytest\n"
NO_LOOP = "1 attempt, no trial loop recognised"
PER_CASE = "the figures are per case checked"
TRIAL = "    x = np.random.rand(3)\n    assert run(x) == 1\n"


def _finding(tmp_path, body: str, helpers: str = "") -> dict:
    """DET101 for a rerun-marked test with ``body`` (its first line is line 11);
    ``helpers`` are written after the test."""
    lines = body.strip("\n").split("\n")
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_loops.py": HEADER
            + "\nSHAPES = [(2,), (3, 4), (5, 6, 7)]\n\n@pytest.mark.flaky(reruns=1)\n"
            + "def test_loops(items):\n"
            + "".join(f"    {line}\n" for line in lines)
            + helpers,
        },
    )
    return only(document, "DET101")


def _trials(tmp_path, body: str, helpers: str = "") -> str:
    """The trial phrase DET101 quotes for the test."""
    message = _finding(tmp_path, body, helpers)["message"]
    phrase = message.split("requirements-test.txt:1; ", 1)[1].split("); elsewhere: ")[0]
    return phrase[: phrase.rindex(")")] if phrase.endswith(")") else phrase


def _loop(bound: str) -> str:
    return f"for _ in range({bound}):\n{TRIAL}"


def test_three_loops_one_after_another_run_their_trials_added_up(tmp_path):
    """pyopencl's test_slice: 3 x 20 trials, 1 - 0.9^60 = 99.8% per attempt, and with
    a rerun both attempts must fail: (1 - 0.9^60)^2."""
    body = _loop(20) + _loop(20) + _loop(20)
    finding = _finding(tmp_path, body)
    assert "60 trials (3 loops of 20 at lines 11, 14 and 17)" in finding["message"]
    assert finding["numbers"]["reported_without"] == pytest.approx(1 - 0.9**60)
    assert finding["numbers"]["reported"] == pytest.approx((1 - 0.9**60) ** 2)


def test_loops_of_different_bounds_are_each_named(tmp_path):
    body = _loop(2) + "n = 3\n" + _loop("n")
    assert _trials(tmp_path, body) == "5 trials (2 loops, of 2 and 3, at lines 11 and 15)"


def test_the_help_raises_the_loops_together(tmp_path):
    """Two loops of 2: 4 trials detect 34.4%; 29 trials in all reach 95%."""
    finding = _finding(tmp_path, _loop(2) + _loop(2))
    assert finding["numbers"]["reported_without"] == pytest.approx(1 - 0.9**4)
    assert finding["help"].startswith(
        "drop the marker and raise the 2 trial loops from 4 to 29 iterations in all"
    )


def test_trial_loops_in_a_function_the_test_calls_add_up(tmp_path):
    helper = "\n\ndef run_twice():\n" + "".join(
        f"    {line}\n" for line in (_loop(10) + _loop(10)).strip("\n").split("\n")
    )
    assert _trials(tmp_path, "run_twice()", helper) == (
        "20 trials (2 loops of 10 at lines 15 and 18)"
    )


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        # A loop nested in another is not one that follows it: no sum (their counts
        # multiply instead, see below).
        (
            "for _ in range(5):\n    for _ in range(4):\n        x = np.random.rand(3)\n"
            "        assert run(x) == 1\n",
            "20 trials (nested loops of 5 x 4 at lines 11 and 12)",
        ),
        # Loops in two branches: one of them runs, not both.
        (
            "if items:\n    for _ in range(5):\n        assert run(np.random.rand(3)) == 1\n"
            "else:\n    for _ in range(7):\n        assert run(np.random.rand(3)) == 1\n",
            "5 trials (literal loop bound)",
        ),
        # A loop after the trial loop that checks nothing adds no trials.
        (_loop(5) + "for _ in range(3):\n    items.append(1)\n", "5 trials (literal loop bound)"),
        # A loop whose passes are counted against a threshold is not added to.
        (
            "passes = 0\nfor _ in range(5):\n    if run(np.random.rand(3)) == 1:\n"
            "        passes += 1\nassert passes >= 4\n" + _loop(3),
            "5 trials (literal loop bound), the test failing only when 2 of them fail",
        ),
    ],
)
def test_loops_that_do_not_follow_each_other_keep_one_count(tmp_path, body, trials):
    assert _trials(tmp_path, body) == trials


def test_a_following_loop_detlint_cannot_count_makes_no_total(tmp_path):
    """20 trials, then a loop over ``range(items)``: the total is not known, so the
    finding names the loop it cannot count and keeps the figures of one check."""
    body = _loop(20) + _loop("items")
    finding = _finding(tmp_path, body)
    assert _trials(tmp_path, body) == (
        "the loop over `range(items)` (line 14) checks each iteration; detlint cannot"
        " count them, so the figures are per iteration checked"
    )
    assert finding["numbers"]["reported_without"] == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        # Two loops over written cases, one after the other: 3 + 2 cases.
        (
            "for shape in SHAPES:\n    assert run(np.zeros(shape)) == 1\n"
            "for dtype in ('float32', 'int8'):\n    assert run(np.zeros(3, dtype)) == 1\n",
            "the loops over `SHAPES` (line 11) and `('float32', 'int8')` (line 13) check each"
            f" of their 3 + 2 = 5 cases; {PER_CASE}",
        ),
        # One of them with a loop nested in it: 2 x 3 + 2.
        (
            "for dtype in ('a', 'b'):\n    for shape in SHAPES:\n"
            "        assert run(shape, dtype) == 1\n"
            "for order in ('C', 'F'):\n    assert run(order) == 1\n",
            "the loops over `('a', 'b')` (line 11), `SHAPES` (line 12) and `('C', 'F')`"
            f" (line 14) check each of their 2 \u00d7 3 + 2 = 8 cases; {PER_CASE}",
        ),
        # A following loop over items detlint cannot count: no total.
        (
            "for shape in SHAPES:\n    assert run(np.zeros(shape)) == 1\n"
            "for x in items:\n    assert run(x) == 1\n",
            f"the loop over `SHAPES` (line 11) checks each of its 3 cases; {PER_CASE}",
        ),
    ],
)
def test_loops_over_cases_one_after_another(tmp_path, body, trials):
    assert _trials(tmp_path, body) == trials


SKIP_HELPER = """

def skip_if_missing(name):
    for check, package in [(lambda s: 'a' in s, 'A'), (lambda s: 'b' in s, 'B')]:
        needs = check(name)
        if needs and not installed(package):
            pytest.skip(f'{package} missing')
"""


@pytest.mark.parametrize(
    ("body", "helpers", "trials"),
    [
        # pymor: a function the test calls whose loop only decides a skip.
        ("skip_if_missing(items)\nassert run(items) == 1", SKIP_HELPER, NO_LOOP),
        # The same loop in the test's body, with self.skipTest and importorskip.
        (
            "for name in ('a', 'b'):\n    if not check_installed(name):\n"
            "        pytest.importorskip(name)\nassert run(items) == 1",
            "",
            NO_LOOP,
        ),
        (
            "for name in items:\n    if compare_version(name):\n        pytest.xfail('old')\n"
            "assert run(items) == 1",
            "",
            NO_LOOP,
        ),
        # raise unittest.SkipTest in a loop of 5 is no check: no trial loop (not 5 trials).
        (
            "for _ in range(5):\n    if missing(np.random.rand(3)):\n"
            "        raise unittest.SkipTest('missing')\nassert run(items) == 1",
            "",
            NO_LOOP,
        ),
        # A loop that skips on some cases and asserts on the others still checks.
        (
            "for name in ('a', 'b'):\n    if not check_installed(name):\n"
            "        pytest.skip(name)\n    assert run(name) == 1",
            "",
            f"the loop over `('a', 'b')` (line 11) checks each of its 2 cases; {PER_CASE}",
        ),
    ],
)
def test_a_loop_that_only_decides_a_skip_is_no_check(tmp_path, body, helpers, trials):
    assert _trials(tmp_path, body, helpers) == trials


def test_a_trial_loop_written_in_another_multiplies_its_count(tmp_path):
    """RustPython's test_parsing: ``for i in range(1000): for j in range(TEST_SIZE):``
    with a check in the inner body runs 1000 x TEST_SIZE trials per attempt."""
    body = "for i in range(4):\n    for j in range(SIZE):\n" + "".join(
        f"    {line}\n" for line in TRIAL.strip("\n").split("\n")
    )
    finding = _finding(tmp_path, body, "\n\nSIZE = 5\n")
    assert "20 trials (nested loops of 4 x 5 at lines 11 and 12)" in finding["message"]
    assert finding["numbers"]["reported_without"] == pytest.approx(1 - 0.9**20)
    assert finding["help"].startswith(
        "drop the marker and raise the 2 nested trial loops from 20 to 29 iterations in all"
    )


def test_a_trial_loop_under_an_if_of_the_outer_body_is_not_multiplied(tmp_path):
    """The inner loop runs on some passes only: the outer count alone is sure."""
    body = "for i in range(4):\n    if i % 2:\n        for j in range(5):\n" + "".join(
        f"        {line}\n" for line in TRIAL.strip("\n").split("\n")
    )
    assert _trials(tmp_path, body) == "4 trials (literal loop bound)"
