"""pytest-retry's ``condition=``: only a value that ``is False`` stops the retries.

Measured with pytest-retry 1.7.0, ``retries=2`` and a test that always fails:
``condition=False`` and ``condition=False == True`` ran once; ``condition=""`` and
``condition=os.getenv("UNSET")`` (None) ran 3 times, as an unconditioned marker does.
"""

from __future__ import annotations

import pytest
from realworld_cases import RETRY, check, findings, only

from detlint.compose.retry_condition import never_false

HEAD = "import os\nimport sys\n\nimport pytest\n\n\n"
BODY = "def test_x():\n    assert run()\n"
PLAIN = (
    "rerun marker hides intermittent failures: a 10% violation is reported 0.10% of the "
    "time instead of 10.0% (retries=2; pytest-retry==1.7.0 from requirements-test.txt:1; "
)


def _test(condition: str) -> dict[str, str]:
    marker = f"@pytest.mark.flaky(retries=2, condition={condition})\n"
    return {**RETRY, "tests/test_x.py": HEAD + marker + BODY}


@pytest.mark.parametrize(
    "condition", ['os.getenv("CI")', 'os.environ.get("CI", "")', "sys.platform", 'os.environ["CI"]']
)
def test_a_value_that_is_never_false_retries_everywhere_and_says_so(tmp_path, condition):
    finding = only(check(tmp_path, _test(condition)), "DET101")
    assert finding["line"] == 7
    assert finding["message"] == (
        PLAIN + "pytest-retry stops retrying only where `condition` is False, and "
        f"`{condition}` never is (a string or None): it retries everywhere; 1 attempt, no "
        "trial loop recognised)"
    )
    assert "elsewhere" not in finding["message"]


def test_a_string_literal_retries_everywhere(tmp_path):
    finding = only(check(tmp_path, _test('"win32"')), "DET101")
    assert finding["message"] == PLAIN + "1 attempt, no trial loop recognised)"


def test_a_comparison_retries_where_it_holds(tmp_path):
    finding = only(check(tmp_path, _test('sys.platform == "win32"')), "DET101")
    assert '(retries=2 where `sys.platform == "win32"`;' in finding["message"]
    assert (
        'not rerun where not `sys.platform == "win32"` (reported 10.0% there)'
        in (finding["message"])
    )
    assert "retries everywhere" not in finding["message"]


def test_a_literal_false_stops_every_retry(tmp_path):
    assert findings(check(tmp_path, _test("False")), "DET101") == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('os.getenv("X")', True),
        ('os.environ["X"]', True),
        ('os.getenv("X") or "no"', True),
        ("platform.system()", True),
        ('os.getenv("X") == "1"', False),
        ('not os.getenv("X")', False),
        ("bool(os.getenv('X'))", False),
        ("IS_CI", False),
        ("is_ci()", False),
        ('os.getenv("X") or False', False),
        ("(", False),
    ],
)
def test_which_code_is_never_false(source, expected):
    assert never_false(source) is expected
