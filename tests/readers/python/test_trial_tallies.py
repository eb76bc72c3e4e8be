"""Loops whose checks come after them: what the loop keeps decides what it counts.

A loop that only accumulates (``losses.append(...)``, then ``assert mean(losses) <
x``) is one check of an aggregate: one trial. A check that fails when any iteration
failed (``assert not failures``, ``assert mismatches == 0``, ``assert all(ok)``,
``assert max(errors) < tol``, a loop after it over what it kept) keeps the count. A
loop that re-checks values computed before it is one trial however often it turns;
one that computes afresh each iteration is a trial loop.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, audit, check, one_test, only

HEADER = "import os\nimport statistics\n\nimport numpy as np\nimport pytest\nimport torch\n"


def _trials(tmp_path, body: str, header: str = HEADER) -> str:
    """The trial phrase DET101 quotes for a rerun-marked test with ``body``."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_loop.py": header
            + "\n\n@pytest.mark.flaky(reruns=1)\ndef test_loop():\n"
            + "".join(f"    {line}\n" for line in body.strip("\n").split("\n")),
        },
    )
    message = only(document, "DET101")["message"]
    phrase = message.split("requirements-test.txt:1; ", 1)[1]
    return phrase[: phrase.rindex(")")]


NO_LOOP = "1 attempt, no trial loop recognised"


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        # An aggregate of the values: one check, one trial.
        (
            "losses = []\nfor _ in range(50):\n    losses.append(train_step())\n"
            "assert statistics.mean(losses) < 0.1",
            NO_LOOP,
        ),
        (
            "values = []\nfor _ in range(20):\n    values.append(measure())\n"
            "assert np.std(values) < 1e-3",
            NO_LOOP,
        ),
        ("total = 0.0\nfor _ in range(10):\n    total += measure()\nassert total > 3.0", NO_LOOP),
        # A helper given the list checks it once.
        (
            "outs = []\nfor _ in range(8):\n    outs.append(run())\n"
            "assert_trajectories_match(outs, REFERENCE)",
            NO_LOOP,
        ),
        # Diversity of the outputs is one property of all of them.
        (
            "seen = set()\nfor _ in range(5):\n    seen.add(sample())\nassert len(seen) > 1",
            NO_LOOP,
        ),
        # Every item the loop kept must be the same: any iteration can fail it.
        (
            "seen = set()\nfor _ in range(6):\n    seen.add(sample())\nassert len(seen) == 1",
            "6 trials (literal loop bound)",
        ),
        # Failures collected, then required to be none.
        (
            "failures = []\nfor seed in range(7):\n    if run(seed) != EXPECTED:\n"
            "        failures.append(seed)\nassert not failures",
            "7 trials (literal loop bound)",
        ),
        (
            "bad = []\nfor seed in range(7):\n    if run(seed) != EXPECTED:\n"
            "        bad.append(seed)\nassert len(bad) == 0",
            "7 trials (literal loop bound)",
        ),
        (
            "failures = []\nfor seed in range(7):\n    if run(seed) != EXPECTED:\n"
            "        failures.append(seed)\nassert failures == []",
            "7 trials (literal loop bound)",
        ),
        (
            "mismatches = 0\nfor _ in range(9):\n    mismatches += int(run() != EXPECTED)\n"
            "assert mismatches == 0",
            "9 trials (literal loop bound)",
        ),
        # A sum of per-iteration error counts required to be zero.
        (
            "errors = 0\nfor _ in range(4):\n    errors += count_errors(run())\nassert errors == 0",
            "4 trials (literal loop bound)",
        ),
        (
            "ok = []\nfor _ in range(6):\n    ok.append(run() == EXPECTED)\nassert all(ok)",
            "6 trials (literal loop bound)",
        ),
        (
            "errors = []\nfor _ in range(6):\n    errors.append(abs(run() - EXPECTED))\n"
            "assert all(e < 1e-6 for e in errors)",
            "6 trials (literal loop bound)",
        ),
        (
            "errors = []\nfor _ in range(6):\n    errors.append(abs(run() - EXPECTED))\n"
            "assert max(errors) < 1e-6",
            "6 trials (literal loop bound)",
        ),
        # Run-to-run determinism: each run against the first, in a loop after the runs.
        (
            "outs = []\nfor _ in range(3):\n    outs.append(kernel(x))\n"
            "for i in range(1, len(outs)):\n    assert torch.equal(outs[0], outs[i])",
            "3 trials (literal loop bound)",
        ),
        # A loop after it that computes what it checks: the first loop only built inputs,
        # the second checks each of them, and detlint does not count a list's items.
        (
            "cases = []\nfor _ in range(500):\n    cases.append(random_input())\n"
            "for case in cases:\n    assert func(case) == expected(case)",
            "the loop over `cases` (line 14) checks each item; detlint cannot count them,"
            " so the figures are per item checked",
        ),
        # Parts of one result computed before the loop: one check of one result.
        (
            "out = model(x)\nreloaded = reload(model)(x)\nfor i in range(2):\n"
            "    assert out[i] == reloaded[i]",
            NO_LOOP,
        ),
        ("out = kernel(x)\nfor _ in range(3):\n    assert torch.equal(out, REFERENCE)", NO_LOOP),
        (
            "out = kernel(x)\nfor _ in range(3):\n    host = out.cpu()\n"
            "    assert torch.equal(host, REFERENCE)",
            NO_LOOP,
        ),
        (
            "model = train()\nfor _ in range(2):\n    for name, p in model.named_parameters():\n"
            "        assert torch.isfinite(p).all(), name",
            NO_LOOP,
        ),
        # ... but one that calls the code under test again each iteration is a trial loop.
        (
            "for _ in range(3):\n    out = kernel(x)\n    assert torch.equal(out, REFERENCE)",
            "3 trials (literal loop bound)",
        ),
        # The needle pattern: mismatches counted, the test failed once after the loop.
        (
            "mismatches = 0\nfor _ in range(int(os.getenv('NEEDLE_TRIALS', '3'))):\n"
            "    if generate() != BASELINE:\n        mismatches += 1\n"
            "if mismatches > 0:\n    pytest.fail(f'{mismatches} mismatches')",
            "3 trials from NEEDLE_TRIALS",
        ),
        (
            "bad = []\nslow = []\nfor seed in range(4):\n    out = run(seed)\n"
            "    if out != EXPECTED:\n        bad.append(seed)\n"
            "if bad or len(slow) > 0:\n    raise AssertionError(bad)",
            "4 trials (literal loop bound)",
        ),
        # A count kept afresh in each trial, by a loop inside it, is checked by the trial.
        (
            "for _ in range(int(os.getenv('TRIALS', '6'))):\n    fails = 0\n"
            "    for i in range(64):\n        if run(i) != EXPECTED:\n            fails += 1\n"
            "    assert fails == 0",
            "6 trials from TRIALS",
        ),
        # A comprehension that builds an input is no loop of trials.
        ("assert shard_size([b'12' * n for n in range(1000)]) == 9", NO_LOOP),
        ("assert all(out[i] == ref[i] for i in range(5))", NO_LOOP),
    ],
)
def test_what_a_loop_keeps_decides_its_trials(tmp_path, body, trials):
    assert _trials(tmp_path, body) == trials


def test_unittest_assertions_after_the_loop(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_case.py": """import unittest

import pytest


class TestRuns(unittest.TestCase):
    @pytest.mark.flaky(reruns=1)
    def test_no_errors(self):
        errors = []
        for seed in range(8):
            if run(seed) != EXPECTED:
                errors.append(seed)
        self.assertEqual(errors, [])

    @pytest.mark.flaky(reruns=1)
    def test_false(self):
        errors = []
        for seed in range(6):
            if run(seed) != EXPECTED:
                errors.append(seed)
        self.assertFalse(errors)

    @pytest.mark.flaky(reruns=1)
    def test_mean(self):
        times = []
        for _ in range(6):
            times.append(measure())
        self.assertLess(sum(times) / len(times), 0.1)
""",
        },
    )
    messages = {f["line"]: f["message"] for f in document["findings"] if f["code"] == "DET101"}
    assert "; 8 trials (literal loop bound))" in messages[7]
    assert "; 6 trials (literal loop bound))" in messages[15]
    assert f"; {NO_LOOP})" in messages[23]


def test_the_audit_says_why_a_loop_is_no_trial_loop(tmp_path):
    document = audit(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_mean.py": """import statistics

import pytest


@pytest.mark.flaky(reruns=1)
def test_mean():
    losses = []
    for _ in range(50):
        losses.append(train_step())
    assert statistics.mean(losses) < 0.1
""",
        },
    )
    trials = one_test(document, "test_mean")["trials"]
    assert trials["count"] == 1
    assert trials["origin"] == (
        "no trial loop recognised: the loop collects values that one check after it reads (line 9)"
    )
