"""A checking function mapped over a range runs one trial per call.

Distilled from cudf's ``test_disable_pandas_accelerator_multi_threaded``: ``for _ in
executor.map(per_thread_work, range(num_threads * 10)): pass`` with
``per_thread_work`` a function of the module that asserts: 200 trials per attempt.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, check, only

WORK = """

def work(_):
    assert run(draw()) == 1


def build(_):
    return draw()
"""
NO_LOOP = "1 attempt, no trial loop recognised"


def _finding(tmp_path, body: str) -> dict:
    """DET101 for a rerun-marked test with ``body`` (its first line is line 8)."""
    lines = body.strip("\n").split("\n")
    module = (
        "from concurrent.futures import ThreadPoolExecutor\n\nimport pytest\n\n"
        "@pytest.mark.flaky(reruns=1)\ndef test_mapped(items):\n    num_threads = 20\n"
        + "".join(f"    {line}\n" for line in lines)
        + WORK
    )
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_mapped.py": module})
    return only(document, "DET101")


def _trials(finding: dict) -> str:
    phrase = finding["message"].split("requirements-test.txt:1; ", 1)[1]
    return phrase[: phrase.rindex(")")]


def test_an_executor_map_walked_by_a_loop_runs_a_trial_per_call(tmp_path):
    """cudf: 20 x 10 calls, each asserting; one attempt detects 1 - 0.9^200."""
    finding = _finding(
        tmp_path,
        "with ThreadPoolExecutor(max_workers=num_threads) as executor:\n"
        "    for _ in executor.map(work, range(num_threads * 10)):\n        pass",
    )
    assert _trials(finding) == (
        "200 trials (`work` mapped over `range(num_threads * 10)` at line 9)"
    )
    assert finding["numbers"]["reported_without"] == pytest.approx(1 - 0.9**200)


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        ("list(map(work, range(7)))", "7 trials (`work` mapped over `range(7)` at line 8)"),
        (
            "with Pool(4) as pool:\n    tuple(pool.map(work, range(6)))",
            "6 trials (`work` mapped over `range(6)` at line 9)",
        ),
        # A map nothing reads runs nothing (the builtin) or raises nothing (an executor's).
        ("map(work, range(7))", NO_LOOP),
        # A function that builds values checks nothing.
        ("assert list(map(build, range(7)))", NO_LOOP),
        # A range detlint cannot count: the map is named, the figures are per call.
        (
            "list(map(work, range(items)))",
            "the loop over `map(work, range(items))` (line 8) checks each iteration; detlint"
            " cannot count them, so the figures are per iteration checked",
        ),
    ],
)
def test_maps_read_and_unread(tmp_path, body, trials):
    assert _trials(_finding(tmp_path, body)) == trials


def test_the_help_raises_the_mapped_range(tmp_path):
    """3 calls detect 27.1%; 29 reach 95%."""
    finding = _finding(tmp_path, "list(map(work, range(3)))")
    assert finding["help"].startswith(
        "drop the marker and raise the range `work` is mapped over from 3 to 29"
    )


@pytest.mark.parametrize(
    ("body", "count", "alone"),
    [
        ("for _ in range(200):\n    assert run(draw()) == 1", 200, "100%"),
        ("for _ in range(29):\n    assert run(draw()) == 1", 29, "95.3%"),
    ],
)
def test_a_test_with_enough_trials_is_told_to_keep_them_not_to_raise_them(
    tmp_path, body, count, alone
):
    """29 trials reach 95% at 10%: the advice never says "raise … from 200 to 29"."""
    found = _finding(tmp_path, body)
    assert found["help"].startswith(
        f"drop the marker and keep its {count} trials per attempt, which alone report a 10% "
        f"violation {alone} of the time, or quarantine it visibly"
    )
    assert "raise" not in found["help"]
