"""Quarantines judged by what their reasons say, and the numbers beside them.

Distilled from numpyro, fastmcp, DeepSpeed and vllm-ascend (xfails for known
limitations were taken for untracked quarantines), dask/distributed (issue
references written `GH#5409`, `distributed#5723`, `distributed/issues/4543`),
spyder (`@flaky(max_runs=20)` on an xfailed test) and celery's conftest hooks.
"""

from __future__ import annotations

import pytest
from realworld_cases import FLAKY, RERUNFAILURES, check, findings, only


def _xfail(tmp_path, marker: str, deps: dict[str, str] = RERUNFAILURES) -> dict:
    return check(
        tmp_path,
        {
            **deps,
            "tests/test_q.py": f"""\
                import pytest
                from flaky import flaky


                {marker}
                def test_quarantined():
                    assert run() == 1
                """,
        },
    )


@pytest.mark.parametrize(
    "reason",
    [
        "jit+pmap does not work in CPU yet",  # numpyro
        "Elicitation is not supported in stateless HTTP mode",  # fastmcp
        "known limit: select_num_idx=0 does not initialize all output",  # vllm-ascend
        "Only checks 0th element for now.",  # distributed
    ],
)
def test_an_xfail_for_a_known_limitation_is_no_quarantine(tmp_path, reason):
    assert findings(_xfail(tmp_path, f'@pytest.mark.xfail(reason="{reason}")')) == []


@pytest.mark.parametrize(
    "reason",
    [
        "very high flakiness; see distributed/issues/4543",
        "GH#5409 Dask-Default-Threads are frequently detected",
        "distributed#5723: flaky on the scheduler",
        "flaky, https://github.com/org/repo/issues/12.",
    ],
)
def test_a_tracked_quarantine_is_fine(tmp_path, reason):
    assert findings(_xfail(tmp_path, f'@pytest.mark.xfail(reason="{reason}")')) == []


def test_an_untracked_flaky_xfail_is_reported_with_its_reason_on_one_line(tmp_path):
    document = _xfail(
        tmp_path,
        '@pytest.mark.xfail(reason="""Freeing keys is very timing sensitive\n'
        '                   and subject to a race condition""")',
    )
    found = only(document, "DET201")
    assert "quarantines a test as 'timing sensitive' with no tracking issue" in found["message"]
    assert (
        'reason "Freeing keys is very timing sensitive and subject to a race condition"'
        in (found["message"])
    )
    assert "\n" not in found["message"]


def test_an_xfailed_failure_shows_once_whatever_the_reruns(tmp_path):
    """spyder: `@flaky(max_runs=20)` over `@pytest.mark.xfail(reason="Test is too flaky")`
    used to say the violation "shows as XFAIL <0.001% of the time"."""
    document = _xfail(
        tmp_path,
        '@flaky(max_runs=20)\n                @pytest.mark.xfail(reason="Test is too flaky")',
        FLAKY,
    )
    found = only(document, "DET201")
    assert found["numbers"]["visible"] == pytest.approx(0.1)
    assert "shows as XFAIL 10.0% of the time" in found["message"]
    assert findings(document, "DET101") == []


def test_a_hook_that_skips_flaky_tests_is_reported_where_it_applies(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/conftest.py": """\
                import pytest


                def pytest_collection_modifyitems(config, items):
                    for item in items:
                        if "gpu" in item.keywords:
                            item.add_marker(pytest.mark.skip(reason="flaky on shared GPUs"))
                """,
            "tests/test_kernels.py": """\
                def test_kernel():
                    assert run() == 1
                """,
        },
    )
    found = only(document, "DET202")
    assert (found["path"], found["line"]) == ("tests/conftest.py", 7)
    assert 'where `"gpu" in item.keywords`' in found["message"]
    assert "reaches every test the hook marks" in found["message"]


def test_a_long_trial_loop_does_not_print_x_instead_of_x(tmp_path):
    """distributed: 256 trials per attempt under reruns=10 printed "100% instead of 100%"."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_long.py": """\
                import pytest


                @pytest.mark.flaky(reruns=10)
                def test_many_trials():
                    for _ in range(256):
                        assert compute() == EXPECTED
                """,
        },
    )
    message = only(document, "DET101")["message"]
    assert "100% of the time instead of 100%" not in message
    assert "with or without it, but a violation is reported half the time only from" in message


def test_an_f_string_reason_is_read_as_its_text(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_f.py": """\
                import sys

                import pytest


                @pytest.mark.skip(reason=f"flaky on {sys.platform}, see the dashboard")
                def test_f():
                    assert run() == 1


                @pytest.mark.xfail(reason=f"intermittent on {sys.platform}, see #4321")
                def test_tracked():
                    assert run() == 1
                """,
        },
    )
    found = only(document, "DET202")
    assert found["line"] == 6
    assert "test skipped as 'flaky'" in found["message"]


@pytest.mark.parametrize(
    "reason",
    [
        "Flaky test -- tracked in QDB-14766 in shortcut",  # qdb-api-python
        "flaky, tracked in sc-101770",
        "flaky, see proj-12",
        "flaky, blocked by OPS-7",
        "flaky on the TPU pods (b/123456)",
        "flaky, crbug.com/1",
        "rdar://124260627 ([CI] Two tests are random failing on CI)",  # coremltools
        "flaky, bugs.python.org/issue123",
        "flaky, https://acme.atlassian.net/browse/X-1",
        "flaky, https://linear.app/acme/issue/ENG-12/upload-times-out",
    ],
)
def test_a_quarantine_tracked_as_projects_write_it_is_fine(tmp_path, reason):
    assert findings(_xfail(tmp_path, f'@pytest.mark.xfail(reason="{reason}")')) == []


def test_a_version_in_the_reason_is_no_tracking_issue(tmp_path):
    document = _xfail(tmp_path, '@pytest.mark.xfail(reason="sometimes counts more tables on py-3")')
    found = only(document, "DET201")
    assert found["line"] == 5
    assert found["message"] == (
        "xfail (non-strict by default) quarantines a test as 'sometimes' with no tracking issue "
        '(reason "sometimes counts more tables on py-3"): a 10% violation shows as XFAIL 10.0% '
        "of the time but never fails the build (was reported 10.0%; 1 attempt, no trial loop "
        "recognised)"
    )


@pytest.mark.parametrize(
    ("reason", "word"),
    [
        ("Fails on Linux sometimes", "sometimes"),  # spyder
        ("Pool execution in osx can hang forever.", "can hang"),  # tensordict
        ("test doesn't reliably reproduce subprocess output capture", "n't reliably"),
        ("Intel CL regularly crashes on this test case", "regularly crashes"),  # pyopencl
    ],
)
def test_a_skip_that_says_flaky_in_other_words_is_reported(tmp_path, reason, word):
    document = _xfail(tmp_path, f'@pytest.mark.skip(reason="{reason}")')
    found = only(document, "DET202")
    assert found["line"] == 5
    assert found["message"] == (
        f"test skipped as {word!r}: it never runs, so a 10% violation is never reported "
        "(was 10.0%) and nothing shows it (1 attempt, no trial loop recognised)"
    )


@pytest.mark.parametrize(
    "reason",
    [
        "not flaky anymore, kept off until the rewrite lands",
        "unstable with earlier versions of the api",
        "Test non-determinism only",  # TransformerEngine
        "Works reliably on Linux and CIs",  # spyder
    ],
)
def test_a_skip_whose_words_take_flaky_back_is_not(tmp_path, reason):
    assert findings(_xfail(tmp_path, f'@pytest.mark.skip(reason="{reason}")')) == []
