"""DET103 on a retry loop written in a test body: ``for attempt in range(3): try:
<checks>; break; except AssertionError: if attempt == 2: raise`` runs the checks again
after they failed and stops at the first pass that succeeds, so a violation among them
is reported only if all three passes show it (0.1^3 at 10%; the truth harness measured
0/1000). Only the shape whose count is plain gets a finding: a literal ``range`` bound,
a ``try`` that breaks after its checks, and a handler that re-raises on the last pass.
"""

from __future__ import annotations

import pytest
from realworld_cases import check, findings, only

from detlint.readers.python.prefilter import retry_loop

LOOP = """\
import random


def test_x():
    for attempt in range({bound}):
        try:
            assert random.random() >= 0.1
            break
        except {caught}:
            if {last}:
                raise
"""


def _test(bound: str = "3", caught: str = "AssertionError", last: str = "attempt == 2") -> dict:
    return {"tests/test_x.py": LOOP.format(bound=bound, caught=caught, last=last)}


def test_a_loop_that_reraises_on_the_last_pass_is_a_retry_of_three(tmp_path):
    finding = only(check(tmp_path, _test()), "DET103")
    assert (finding["line"], finding["column"]) == (5, 5)
    assert finding["message"] == (
        "the retry loop `for attempt in range(3)` in the test body hides intermittent "
        "failures: a 10% violation is reported 0.10% of the time instead of 10.0% (3 "
        "attempts; it retries the checks the loop holds (the test's other checks run once), "
        "and the figure is for a violation among them; 1 attempt, no trial loop recognised)"
    )
    assert abs(finding["numbers"]["reported"] - 0.1**3) < 1e-15
    assert finding["numbers"]["trials"] == 1


@pytest.mark.parametrize(
    ("bound", "caught", "last", "attempts"),
    [
        ("5", "AssertionError", "attempt == 4", 5),
        ("0, 4", "Exception", "attempt + 1 == 4", 4),
        ("2", "(AssertionError, TimeoutError)", "attempt >= 1", 2),
        ("1, 3", "AssertionError", "attempt > 1", 2),
    ],
)
def test_other_spellings_of_the_same_loop(tmp_path, bound, caught, last, attempts):
    finding = only(check(tmp_path, _test(bound, caught, last)), "DET103")
    assert f"({attempts} attempts; it retries the checks the loop holds" in finding["message"]
    assert abs(finding["numbers"]["reported"] - 0.1**attempts) < 1e-15


@pytest.mark.parametrize(
    ("bound", "caught", "last"),
    [
        ("3", "AssertionError", "attempt == 1"),  # re-raises before the last pass
        ("n", "AssertionError", "attempt == 2"),  # a bound detlint does not read
        ("3", "ValueError", "attempt == 2"),  # an assertion is not caught
        ("1", "AssertionError", "attempt == 0"),  # one pass: no retry
        ("1, 11", "AssertionError", "attempt == 11"),  # never re-raises: swallows all
    ],
)
def test_loops_whose_count_is_not_plain_get_no_figure(tmp_path, bound, caught, last):
    assert findings(check(tmp_path, _test(bound, caught, last)), "DET103") == []


# distributed's test_profile_server: the loop breaks in the ``try``'s ``else:`` and the
# handler's ``if`` has an ``else: pass``.
ELSE_BREAK = """\
import random


def test_x():
    for i in range(5):
        try:
            assert random.random() >= 0.1
        except AssertionError:
            if i == 4:
                raise
            else:
                pass
        else:
            break
"""


def test_a_break_in_the_else_of_the_try_is_the_same_loop(tmp_path):
    finding = only(check(tmp_path, {"tests/test_x.py": ELSE_BREAK}), "DET103")
    assert finding["message"].startswith(
        "the retry loop `for i in range(5)` in the test body hides intermittent failures: a "
        "10% violation is reported <0.001% of the time instead of 10.0% (5 attempts;"
    )
    assert abs(finding["numbers"]["reported"] - 0.1**5) < 1e-15


def test_a_loop_inside_another_loop_is_not_read(tmp_path):
    nested = LOOP.format(bound="3", caught="AssertionError", last="attempt == 2").replace(
        "    for attempt", "    for case in range(4):\n        for attempt"
    )
    nested = nested.replace("\n        ", "\n            ").replace(
        "            for attempt", "        for attempt"
    )
    assert "for case in range(4):\n        for attempt in range(3):" in nested
    assert findings(check(tmp_path, {"tests/test_x.py": nested}), "DET103") == []


def test_the_prefilter_keeps_a_file_whose_only_knob_is_the_loop():
    text = LOOP.format(bound="3", caught="AssertionError", last="attempt == 2").encode()
    assert retry_loop(text)
    assert not retry_loop(b"for case in range(3):\n    assert case >= 0\n")
