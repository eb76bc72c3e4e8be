"""A loop over the parts of one result is one check, whatever way its check is written.

Distilled from modflowpy/flopy autotest/test_specific_discharge.py (two loops over
``ax.collections`` of one plot: the one written ``if not isinstance(col, Quiver):
raise AssertionError(...)`` was named as checking each item, the same loop with
``assert`` rightly not) and scaleapi/nucleus-python-client tests/test_slice.py
(``for row in exported: assert row[KEY] == get_expected_item(row.ref)``, where the
test's own ``get_expected_item`` only looks the row up: no fresh trial).
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, check, only

NO_LOOP = "1 attempt, no trial loop recognised"
HEADER = "import pytest\n"


def _trials(tmp_path, body: str, before: str = "") -> str:
    """The trial phrase DET101 quotes for a rerun-marked test with ``body`` (its first
    line is line 6 when ``before`` is empty)."""
    source = (
        HEADER
        + before
        + "\n\n@pytest.mark.flaky(reruns=1)\ndef test_plot(model):\n"
        + "".join(f"    {line}\n" for line in body.strip("\n").split("\n"))
    )
    message = only(check(tmp_path, {**RERUNFAILURES, "tests/test_plot.py": source}), "DET101")[
        "message"
    ]
    phrase = message.split("requirements-test.txt:1; ", 1)[1]
    return phrase[: phrase.rindex(")")]


@pytest.mark.parametrize(
    "check_line",
    [
        "assert isinstance(col, Quiver), f'Unexpected collection type: {type(col)}'",
        "if not isinstance(col, Quiver):\n"
        "        raise AssertionError(f'Unexpected collection type: {describe(col)}')",
        "if not isinstance(col, Quiver):\n        pytest.fail(f'unexpected {describe(col)}')",
        "if isinstance(col, Quiver):\n        pass\n    else:\n"
        "        raise AssertionError(describe(col))",
    ],
)
def test_the_parts_of_one_plot_are_one_check_however_checked(tmp_path, check_line):
    body = f"ax = plot(model).ax\nfor col in ax.collections:\n    {check_line}"
    assert _trials(tmp_path, body) == NO_LOOP


@pytest.mark.parametrize(
    "check_line",
    [
        "assert run(col) == 1",
        "if run(col) != 1:\n        raise AssertionError('run failed')",
        "if not run(col):\n        pytest.fail('run failed')",
    ],
)
def test_a_raise_under_a_test_that_computes_checks_each_item(tmp_path, check_line):
    body = f"for col in model.items:\n    {check_line}"
    assert _trials(tmp_path, body) == (
        "the loop over `model.items` (line 6) checks each item; detlint cannot count them,"
        " so the figures are per item checked"
    )


NUCLEUS = """
exported = model.export_predictions()

def get_expected_item(reference_id):
    if reference_id not in slice_reference_ids:
        raise ValueError("Got results outside the slice")
    for item in ds_items:
        if item.reference_id == reference_id:
            return item

for row in exported:
    reference_id = row["item"].reference_id
    assert row["item"] == get_expected_item(reference_id)
"""


def test_a_function_of_the_test_that_only_looks_up_makes_no_trial(tmp_path):
    assert _trials(tmp_path, NUCLEUS) == NO_LOOP


def test_a_module_function_that_only_looks_up_makes_no_trial(tmp_path):
    """A module read whole (it seeds): its functions are there to be read."""
    before = "\n\nEXPECTED = {'a': 1}\n\n\ndef expected(key):\n    return EXPECTED[key.name]\n"
    body = (
        "random.seed(0)\nrows = model.export()\nfor row in rows:\n"
        "    assert row.value == expected(row)"
    )
    # The seed's own clause follows the trial phrase.
    assert _trials(tmp_path, body, "import random\n" + before).startswith(NO_LOOP + ")")
    changed = body.replace("expected(row)", "model.expected(row)")
    assert _trials(tmp_path, changed, "import random\n" + before).startswith(
        "the loop over `rows` (line 16) checks each item"
    )


def test_a_module_function_that_computes_by_arithmetic_runs_a_trial(tmp_path):
    """``run_kernel(seed)`` computes from its argument: a trial per seed, counted."""
    before = "\n\ndef run_kernel(seed):\n    return seed % 7 != 3\n"
    body = "random.seed(0)\nfor seed in range(20):\n    assert run_kernel(seed)"
    assert _trials(tmp_path, body, "import random\n" + before).startswith(
        "20 trials (literal loop bound)"
    )


def test_a_function_of_the_test_that_calls_code_runs_a_trial(tmp_path):
    body = NUCLEUS.replace("return item", "return model.fetch(item)")
    assert _trials(tmp_path, body) == (
        "the loop over `exported` (line 15) checks each item; detlint cannot count them,"
        " so the figures are per item checked"
    )
