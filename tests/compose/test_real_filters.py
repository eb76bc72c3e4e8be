"""Filters decide what a retry or an xfail masks; arguments the plugin ignores.

Distilled from dask/distributed (`flaky(condition=LINUX, reruns=10)`),
pytorch-lightning (`xfail(raises=TimeoutError)` beside `flaky(reruns=5)`),
CobayaSampler/cobaya (flaky's `rerun_filter=` lambda) and celery (a conftest
alias `pytest.mark.flaky(reruns=5, cause=...)` used by 55 tests).
"""

from __future__ import annotations

import pytest
from realworld_cases import FLAKY, RERUNFAILURES, RETRY, audit, check, findings, one_test, only


def _one_test(marker: str, deps: dict[str, str] = RERUNFAILURES) -> dict[str, str]:
    return {
        **deps,
        "tests/test_filtered.py": f"""\
            import pytest


            {marker}
            def test_scale_up_down():
                assert scale() == 2
            """,
    }


@pytest.mark.parametrize(
    ("marker", "note"),
    [
        (
            '@pytest.mark.flaky(reruns=3, only_rerun="Timed out")',
            "only_rerun='Timed out' reruns only failures that match it",
        ),
        (
            '@pytest.mark.flaky(reruns=3, only_rerun=["ConnectionError", "OSError"])',
            "only_rerun='ConnectionError', 'OSError'",
        ),
        (
            "@pytest.mark.flaky(reruns=3, rerun_except=AssertionError)",
            "rerun_except=`AssertionError`",
        ),
        ("@pytest.mark.flaky(reruns=3, only_rerun=[TimeoutError])", "only_rerun=`[TimeoutError]`"),
    ],
)
def test_a_rerun_filter_that_excludes_assertions_hides_no_violation(tmp_path, marker, note):
    document = audit(tmp_path, _one_test(marker))
    assert [f for f in document["findings"] if f["code"] == "DET101"] == []
    test = one_test(document, "test_scale_up_down")
    assert test["numbers"]["reported"] == pytest.approx(0.1)
    assert any(
        note in text and "an assertion violation is not rerun" in text for text in test["notes"]
    )


def test_a_filter_that_takes_assertions_still_masks(tmp_path):
    document = check(
        tmp_path, _one_test('@pytest.mark.flaky(reruns=3, only_rerun="AssertionError")')
    )
    assert only(document, "DET101")["numbers"]["reported"] == pytest.approx(0.1**4)


def test_the_configured_filter_applies_to_markers_without_their_own(tmp_path):
    files = _one_test("@pytest.mark.flaky(reruns=3)")
    files["pytest.ini"] = "[pytest]\nonly_rerun = ConnectionResetError\n"
    assert findings(check(tmp_path, files), "DET101") == []


def test_pytest_retry_matches_exception_types_exactly(tmp_path):
    """only_on=[Exception] does not retry an AssertionError under pytest-retry: its
    filter compares types, not subclasses."""
    for marker, masks in (
        ("@pytest.mark.flaky(retries=2, only_on=[ConnectionError])", False),
        ("@pytest.mark.flaky(retries=2, only_on=[Exception])", False),
        ("@pytest.mark.flaky(retries=2, only_on=[AssertionError])", True),
        ("@pytest.mark.flaky(retries=2, exclude=[AssertionError])", False),
    ):
        root = tmp_path / marker.split("(")[1][:30].replace(" ", "").replace("=", "")
        document = check(root, _one_test(marker, RETRY))
        assert bool(findings(document, "DET101")) is masks, marker


def test_an_xfail_for_another_exception_does_not_mask_a_violation(tmp_path):
    """pytorch-lightning test_two_groups: reruns=5 under xfail(raises=TimeoutError)."""
    document = check(
        tmp_path,
        _one_test(
            "@pytest.mark.flaky(reruns=5)\n"
            "            @pytest.mark.xfail(raises=TimeoutError, strict=False)"
        ),
    )
    found = only(document, "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**6)
    assert "elsewhere" not in found["message"]


def test_a_rerun_filter_detlint_cannot_evaluate_gives_both_outcomes(tmp_path):
    """cobaya: `rerun_filter=(lambda err, *args: issubclass(err[0], AssertionError))`."""
    document = check(
        tmp_path,
        {
            **FLAKY,
            "tests/test_mcmc.py": """\
                from flaky import flaky


                @flaky(max_runs=3, min_passes=1, rerun_filter=lambda err, *a: worth_it(err))
                def test_mcmc_dragging():
                    assert chain_mean() == 0.0
                """,
        },
    )
    found = only(document, "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**3)
    message = found["message"]
    assert message.startswith(
        "flaky decorator hides intermittent failures: a 10% violation is reported 0.10% of "
        "the time instead of 10.0% if rerun_filter=`lambda err, *a: worth_it(err)` lets an "
        "assertion failure be retried ("
    )
    assert "decides what is rerun (detlint does not evaluate it)" in message
    assert "elsewhere: not rerun where rerun_filter=" in message
    assert "rejects the failure (reported 10.0% there)" in message


def test_a_rerun_condition_is_quoted_with_the_other_environment(tmp_path):
    """distributed: `@pytest.mark.flaky(condition=LINUX, reruns=10, reruns_delay=5)`."""
    document = check(
        tmp_path, _one_test("@pytest.mark.flaky(condition=LINUX, reruns=10, reruns_delay=5)")
    )
    found = only(document, "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**11)
    assert "(reruns=10 where `LINUX`;" in found["message"]
    assert "elsewhere: not rerun where not `LINUX` (reported 10.0% there)" in found["message"]


@pytest.mark.parametrize("condition", ["False", "0", "None", '""'])
def test_a_literal_false_rerun_condition_never_reruns(tmp_path, condition):
    document = check(tmp_path, _one_test(f"@pytest.mark.flaky(reruns=3, condition={condition})"))
    assert findings(document, "DET101") == []


def test_an_unknown_keyword_is_reported_once_where_the_alias_is_written(tmp_path):
    """celery: `_flaky = pytest.mark.flaky(reruns=5, reruns_delay=1, cause=...)` in
    conftest.py, applied through `def flaky(fn): return _timeout(_flaky(fn))`."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "t/integration/conftest.py": """\
                import pytest

                _flaky = pytest.mark.flaky(reruns=5, reruns_delay=1, cause=is_retryable_exception)
                _timeout = pytest.mark.timeout(timeout=300)


                def flaky(fn):
                    return _timeout(_flaky(fn))
                """,
            "t/integration/test_canvas.py": """\
                from .conftest import flaky


                class test_chain:
                    @flaky
                    def test_simple_chain(self, manager):
                        assert chain().get() == 7

                    @flaky
                    def test_complex_chain(self, manager):
                        assert chain().get() == 8
                """,
            "pyproject.toml": '[tool.pytest.ini_options]\npython_classes = "test_*"\n',
        },
    )
    mismatch = only(document, "DET102")
    assert (mismatch["path"], mismatch["line"]) == ("t/integration/conftest.py", 3)
    assert "pytest-rerunfailures ignores `cause=`: it reruns every failure" in mismatch["message"]
    assert "2 tests use it" in mismatch["message"]
    reruns = findings(document, "DET101")
    assert [f["line"] for f in reruns] == [5, 9]
    assert all("through flaky (.conftest.flaky) -> _flaky" in f["message"] for f in reruns)
    assert all(f["numbers"]["reported"] == pytest.approx(0.1**6) for f in reruns)


@pytest.mark.parametrize(
    ("marker", "phrase"),
    [
        (
            "@pytest.mark.flaky(reruns=2, reruns_delays=5)",
            "ignores `reruns_delays=` (did you mean `reruns_delay=`?)",
        ),
        (
            "@pytest.mark.flaky(max_runs=4)",
            "ignores `max_runs=`: the marker reruns once, like a bare one",
        ),
    ],
)
def test_keywords_pytest_rerunfailures_ignores(tmp_path, marker, phrase):
    assert phrase in only(check(tmp_path, _one_test(marker)), "DET102")["message"]


def test_a_reason_keyword_is_no_mismatch(tmp_path):
    """dask: `@pytest.mark.flaky(reruns=10, reason="https://github.com/dask/dask/issues/3696")`."""
    document = check(tmp_path, _one_test('@pytest.mark.flaky(reruns=2, reason="see #3696")'))
    assert findings(document, "DET102") == []


def test_any_keyword_but_its_own_is_a_type_error_under_the_flaky_package(tmp_path):
    document = check(tmp_path, _one_test('@pytest.mark.flaky(max_runs=3, reason="slow CI")', FLAKY))
    found = only(document, "DET102")
    assert "`reason=` is not an argument of the flaky package's marker" in found["message"]
    assert "TypeError" in found["message"]


def test_a_positional_condition_is_read_as_the_rerun_count(tmp_path):
    document = check(tmp_path, _one_test("@pytest.mark.flaky(LINUX and PY39)"))
    mismatch = only(document, "DET102")
    assert "a positional `LINUX and PY39` is read as the rerun count" in mismatch["message"]
    assert "one rerun where it is true, none where it is false" in mismatch["message"]
    reruns = only(document, "DET101")
    assert reruns["numbers"]["reported"] == pytest.approx(0.1**2)
    assert "(reruns=1 where `LINUX and PY39`;" in reruns["message"]


def test_a_module_constant_count_is_read(tmp_path):
    """cobaya: `max_runs = 3` at the top, then `@flaky(max_runs=max_runs, min_passes=1)`."""
    document = check(
        tmp_path,
        {
            **FLAKY,
            "tests/test_mcmc.py": """\
                from flaky import flaky

                max_runs = 3


                @flaky(max_runs=max_runs, min_passes=1)
                def test_mcmc():
                    assert sample() > 0
                """,
        },
    )
    assert only(document, "DET101")["numbers"]["reported"] == pytest.approx(0.1**3)


def _flaky_filtered(rerun_filter: str) -> dict[str, str]:
    return {
        **FLAKY,
        "tests/test_mcmc.py": f"""\
            from flaky import flaky


            @flaky(max_runs=3, min_passes=1, rerun_filter={rerun_filter})
            def test_mcmc_dragging():
                assert chain_mean() == 0.0
            """,
    }


@pytest.mark.parametrize(
    "rerun_filter",
    [
        "lambda err, *args: issubclass(err[0], RetryTestError)",
        "lambda err, *args: isinstance(err[1], (TimeoutError, OSError))",
        "lambda err, name, test, plugin: err[0] in (ConnectionError, TimeoutError)",
        "lambda err, *a: not issubclass(err[0], AssertionError)",
        "lambda err, *a: err[0] is not AssertionError and issubclass(err[0], Exception)",
        "lambda err, *a: issubclass(err[0], OSError) or err[0] == TimeoutError",
    ],
)
def test_a_lambda_filter_that_turns_assertions_away_hides_no_violation(tmp_path, rerun_filter):
    """raiden: a hook adds `flaky(max_runs=3, rerun_filter=lambda err, *args:
    issubclass(err[0], RetryTestError))`; flaky calls the filter with err = (type, value,
    traceback), and an AssertionError is no RetryTestError."""
    document = audit(tmp_path, _flaky_filtered(rerun_filter))
    assert [f for f in document["findings"] if f["code"] == "DET101"] == []
    test = one_test(document, "test_mcmc_dragging")
    assert test["numbers"]["reported"] == pytest.approx(0.1)
    assert f"rerun_filter=`{rerun_filter}` reruns only the failures it accepts" in " ".join(
        test["notes"]
    )


@pytest.mark.parametrize(
    "rerun_filter",
    [
        "lambda err, *args: issubclass(err[0], AssertionError)",
        "lambda err, *args: isinstance(err[1], Exception)",
        "lambda err, *a: err[0] in (AssertionError, TimeoutError)",
        "lambda err, *a: not issubclass(err[0], KeyboardInterrupt)",
        "lambda err, *a: True",
    ],
)
def test_a_lambda_filter_that_reruns_assertions_keeps_the_numbers(tmp_path, rerun_filter):
    found = only(check(tmp_path, _flaky_filtered(rerun_filter)), "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**3)
    assert found["message"].startswith(
        "flaky decorator hides intermittent failures: a 10% violation is reported 0.10% of "
        "the time instead of 10.0% (max_runs=3, min_passes=1;"
    )
    assert "rerun_filter" not in found["message"]


@pytest.mark.parametrize(
    "rerun_filter",
    [
        "only_timeouts",
        "lambda err, *a: issubclass(err[0], RetryTestError) or flaky_enough()",
        "lambda err, *a: err[0] in RETRIED",
        "lambda err, *a: err[0] is Retried",
    ],
)
def test_a_filter_detlint_cannot_decide_conditions_the_headline(tmp_path, rerun_filter):
    found = only(check(tmp_path, _flaky_filtered(rerun_filter)), "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**3)
    assert (
        "reported 0.10% of the time instead of 10.0% if "
        f"rerun_filter=`{rerun_filter}` lets an assertion failure be retried ("
    ) in found["message"]


def _flaky_named_filter(definition: str) -> dict[str, str]:
    return {
        **FLAKY,
        "tests/test_mcmc.py": "import time\n\nfrom flaky import flaky\n\n\n"
        + definition
        + """


@flaky(max_runs=3, min_passes=1, rerun_filter=rerun_when)
def test_mcmc_dragging():
    assert chain_mean() == 0.0
""",
    }


def test_a_named_filter_that_turns_assertions_away_hides_no_violation(tmp_path):
    """A filter is as often a module function as a lambda: it is read the same way."""
    definition = (
        "def rerun_when(err, name, test, plugin):\n"
        '    """Network hiccups only."""\n'
        "    return issubclass(err[0], (ConnectionError, TimeoutError))"
    )
    document = audit(tmp_path, _flaky_named_filter(definition))
    assert [f for f in document["findings"] if f["code"] == "DET101"] == []
    test = one_test(document, "test_mcmc_dragging")
    assert test["numbers"]["reported"] == pytest.approx(0.1)
    assert "rerun_filter=`rerun_when` reruns only the failures it accepts" in " ".join(
        test["notes"]
    )


def test_a_named_filter_that_sleeps_and_reruns_keeps_the_numbers(tmp_path):
    """flaky's documented `delay_rerun`: sleep, then rerun whatever failed."""
    definition = "def rerun_when(*args):\n    time.sleep(1)\n    return True"
    found = only(check(tmp_path, _flaky_named_filter(definition)), "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**3)
    assert "rerun_filter" not in found["message"]


@pytest.mark.parametrize(
    "definition",
    [
        # a branch before the return: not one expression
        "def rerun_when(err, *args):\n    if err:\n        return True\n    return False",
        # defined twice in branches: which one is not known
        "if FAST:\n    def rerun_when(err, *a):\n        return True\n"
        "else:\n    def rerun_when(err, *a):\n        return False",
    ],
)
def test_a_named_filter_of_another_shape_stays_undecided(tmp_path, definition):
    found = only(check(tmp_path, _flaky_named_filter(definition)), "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**3)
    assert (
        "if rerun_filter=`rerun_when` lets an assertion failure be retried (" in (found["message"])
    )
