"""Conditional gates on real suites: a policy per environment.

Distilled from vllm-project/vllm (tests/v1/determinism), dask/distributed,
Lightning-AI/pytorch-lightning and modflowpy/flopy: conditional skips and
xfails there used to zero every number of tests that run, and report, on the
platforms CI uses.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, audit, check, findings, one_test, only

# 5 trials at q = 10%: one attempt detects 1 - 0.9**5.
ATTEMPT = 1 - 0.9**5

NEEDLE = {
    **RERUNFAILURES,
    "tests/utils.py": """\
        import pytest

        from vllm.platforms import current_platform

        skip_unsupported = pytest.mark.skipif(
            not (current_platform.is_cuda() and current_platform.has_device_capability(90)),
            reason="Requires CUDA and >= Hopper (SM90)",
        )
        """,
    "tests/test_batch_invariance.py": """\
        import os

        import pytest

        from tests.utils import skip_unsupported
        from vllm.platforms import current_platform


        @skip_unsupported
        @pytest.mark.flaky(reruns=3)
        def test_generation_is_deterministic_across_batch_sizes():
            if current_platform.is_xpu():
                pytest.xfail("batch invariance is not implemented on XPU yet")
            num_trials = int(os.getenv("VLLM_NEEDLE_TRIALS", "5"))
            baseline = generate([NEEDLE])[0]
            for _ in range(num_trials):
                outputs = generate(batch_with(NEEDLE))
                assert outputs[position(NEEDLE)] == baseline
        """,
}


def test_the_needle_test_is_reported_where_it_runs(tmp_path):
    """vllm's needle test: a skip alias and an imperative xfail under `if` used to give
    "reported 0% of the time"; where the test runs it is 2.8% instead of 41.0%."""
    found = only(check(tmp_path, NEEDLE), "DET101")
    assert found["numbers"]["reported"] == pytest.approx(ATTEMPT**4)
    assert found["numbers"]["reported_without"] == pytest.approx(ATTEMPT)
    message = found["message"]
    assert "reported 2.8% of the time instead of 41.0% where the test runs" in message
    assert "5 trials from VLLM_NEEDLE_TRIALS" in message
    # The xfail comes before the trial loop: on XPU the checks never run.
    assert "XFAIL before every check where `current_platform.is_xpu()`" in message
    assert (
        "skipped where `not (current_platform.is_cuda() and "
        "current_platform.has_device_capability(90))`" in message
    )


def test_the_audit_lists_each_environment_with_its_gate_and_numbers(tmp_path):
    test = one_test(audit(tmp_path, NEEDLE), "test_generation_is_deterministic_across_batch_sizes")
    assert test["gate"]["kind"] == "blocking"
    assert test["numbers"]["reported"] == pytest.approx(ATTEMPT**4)
    by_effect = {env["effect"].split(":")[0]: env for env in test["environments"]}
    assert set(by_effect) == {"skipped", "XFAIL before every check"}
    xfail = by_effect["XFAIL before every check"]
    assert xfail["condition"] == "`current_platform.is_xpu()`"
    assert (xfail["gate"]["kind"], xfail["reported"]) == ("xfail before its checks", 0.0)
    # pytest.xfail() is called before the trial loop: on XPU no trial runs, so a
    # violation is never seen (the report shows XFAIL whatever the code does).
    assert xfail["visible"] == 0.0
    assert by_effect["skipped"]["gate"]["kind"] == "skip"
    conditions = {knob["kind"]: knob["condition"] for knob in test["knobs"]}
    assert conditions["rerun-marker"] is None
    assert conditions["xfail"] == "`current_platform.is_xpu()`"


@pytest.mark.parametrize(
    "gate",
    [
        '@pytest.mark.skipif(sys.version_info.minor == 11, reason="Profiler disabled")',
        '@pytest.mark.skipif(condition=sys.platform == "win32", reason="posix only")',
        "@pytest.mark.xfail(sys.platform == 'win32', reason='no fork', strict=True)",
        '@pytest.mark.skipif("sys.platform == \'win32\'", reason="evaluated by pytest")',
    ],
)
def test_a_conditional_gate_leaves_the_headline_alone(tmp_path, gate):
    """distributed test_worker.py:1152 and its kin: reruns=10 under a version skip."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_profile.py": f"""\
                import sys

                import pytest


                {gate}
                @pytest.mark.flaky(reruns=10, reruns_delay=5)
                def test_statistical_profiling():
                    assert profile_keys()
                """,
        },
    )
    found = only(document, "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**11)
    assert "where the test runs" in found["message"]
    assert "; elsewhere: " in found["message"]


def test_a_conditional_strict_xfail_never_raises_the_numbers_above_the_test(tmp_path):
    """pytorch-lightning's `_xfail_gloo_windows` (strict, Windows only) used to print
    "reported 65.6% of the time instead of 10.0%"."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/helpers.py": """\
                import pytest

                _xfail_gloo_windows = pytest.mark.xfail(
                    RuntimeError,
                    strict=True,
                    condition=(_IS_WINDOWS and _TORCH_GREATER_EQUAL_2_8),
                    reason="makeDeviceForHostname(): unsupported gloo device",
                )
                """,
            "tests/test_validator.py": """\
                import pytest

                from tests.helpers import _xfail_gloo_windows


                @_xfail_gloo_windows
                @pytest.mark.flaky(reruns=3)
                def test_servable_module_validator_with_trainer():
                    assert validate()
                """,
        },
    )
    found = only(document, "DET101")
    assert found["numbers"]["reported"] == pytest.approx(0.1**4)
    assert found["numbers"]["reported"] <= found["numbers"]["reported_without"]
    assert "0.010% of the time instead of 10.0%" in found["message"]
    assert "XFAIL(strict) where `(_IS_WINDOWS and _TORCH_GREATER_EQUAL_2_8)`" in found["message"]


def test_an_unconditional_strict_xfail_is_no_retry_finding(tmp_path):
    """A test that is expected to fail everywhere reports no violation by failing."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_known_bug.py": """\
                import pytest


                @pytest.mark.xfail(strict=True, reason="fp16 accumulation drops a bit")
                @pytest.mark.flaky(reruns=3)
                def test_fp16_sum():
                    assert fp16_sum() == 6.0
                """,
        },
    )
    assert findings(document) == []


def test_imperative_skips_under_if_are_conditional_and_those_on_every_path_are_not(tmp_path):
    """distributed test_nvml.py (skip where no GPU) against a skip every path reaches."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_gpu.py": """\
                import pytest


                @pytest.mark.flaky(reruns=5)
                def test_gpu_monitoring():
                    if nvml.device_get_count() < 1:
                        pytest.skip("No GPUs available")
                    assert monitor()


                @pytest.mark.flaky(reruns=5)
                def test_after_an_early_return():
                    if not has_gpu():
                        return
                    pytest.skip("not ported yet")


                @pytest.mark.flaky(reruns=5)
                def test_in_a_nested_function_only():
                    def later():
                        pytest.skip("never called here")

                    assert run(later)


                @pytest.mark.flaky(reruns=5)
                def test_always_skipped():
                    pytest.skip("not ported yet")
                """,
        },
    )
    lines = {f["line"]: f["message"] for f in findings(document, "DET101")}
    assert set(lines) == {4, 11, 18}
    assert "elsewhere: skipped where `nvml.device_get_count() < 1`" in lines[4]
    assert "elsewhere: skipped where not `not has_gpu()`" in lines[11]
    assert "elsewhere" not in lines[18]


def test_a_skip_in_a_loop_else_or_try_else_is_conditional(tmp_path):
    """distributed cli/tests/test_dask_scheduler.py::test_interface: `pytest.skip()` in
    the `else:` of a `for` that breaks once it finds the interface runs only when the
    loop finds none; a `try:` body's `else:` only when it raised nothing caught."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_loops.py": """\
                import pytest


                @pytest.mark.flaky(reruns=2)
                def test_interface():
                    for name in interfaces():
                        if address(name) == "127.0.0.1":
                            break
                    else:
                        pytest.skip("Could not find loopback interface")
                    assert run(name)


                @pytest.mark.flaky(reruns=2)
                def test_loop_without_break():
                    for name in interfaces():
                        check(name)
                    else:
                        pytest.skip("not ported yet")


                @pytest.mark.flaky(reruns=2)
                def test_try_else():
                    try:
                        import gpu
                    except ImportError:
                        gpu = None
                    else:
                        pytest.skip("gpu variant runs elsewhere")
                    assert run(gpu)
                """,
        },
    )
    lines = {f["line"]: f["message"] for f in findings(document, "DET101")}
    # No `break`: that loop's `else:` always runs, the test never does (no DET101 on 14).
    assert set(lines) == {4, 22}
    assert "elsewhere: skipped where `for name in interfaces():` ends without `break`" in (lines[4])
    assert "elsewhere: skipped where the `try:` on line 24 raises nothing" in lines[22]


def test_an_alias_defined_in_two_branches_applies_in_each(tmp_path):
    """A skip alias that is the identity on the other branch (`lambda f: f`)."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_rocm.py": """\
                import pytest

                if current_platform.is_rocm():
                    skip_on_rocm = pytest.mark.skip(reason="not on ROCm")
                else:
                    skip_on_rocm = lambda f: f  # noqa: E731

                skip_on_xpu = pytest.mark.skip(reason="no XPU") if is_xpu() else (lambda f: f)


                @skip_on_rocm
                @skip_on_xpu
                @pytest.mark.flaky(reruns=2)
                def test_allreduce():
                    assert allreduce([1.0, 2.0]) == 3.0
                """,
        },
    )
    message = only(document, "DET101")["message"]
    assert "0.10% of the time instead of 10.0% where the test runs" in message
    assert "skipped where `current_platform.is_rocm()`" in message
    assert "skipped where `is_xpu()`" in message


def test_conditional_pytestmark_and_late_marks_are_conditional(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_module.py": """\
                import sys

                import pytest

                if sys.platform == "win32":
                    pytestmark = pytest.mark.skip(reason="posix only")


                @pytest.mark.flaky(reruns=1)
                def test_late_xfail(request):
                    if request.config.getoption("--gpu"):
                        request.node.add_marker(pytest.mark.xfail(reason="no kernels yet"))
                    assert kernel()
                """,
        },
    )
    message = only(document, "DET101")["message"]
    assert "1.0% of the time instead of 10.0% where the test runs" in message
    assert 'skipped where `sys.platform == "win32"`' in message
    assert 'XFAIL where `request.config.getoption("--gpu")`' in message


def test_a_fixture_that_skips_under_a_condition_is_another_environment(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/conftest.py": """\
                import pytest


                @pytest.fixture
                def gpu():
                    if not cuda_available():
                        pytest.skip("needs a GPU")
                    return "cuda:0"
                """,
            "tests/test_kernels.py": """\
                import pytest


                @pytest.mark.flaky(reruns=2)
                def test_kernel(gpu):
                    assert run(gpu)
                """,
        },
    )
    message = only(document, "DET101")["message"]
    assert "0.10% of the time instead of 10.0% where the test runs" in message
    assert "skipped where `not cuda_available()`" in message


def test_a_factory_condition_is_quoted_as_the_call_that_uses_it(tmp_path):
    """Lightning's `RunIf(...)` returns `skipif(condition=len(reasons) > 0)`: the use
    site says what the condition is, the factory's expression does not."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/helpers/runif.py": """\
                import pytest


                def RunIf(**kwargs):
                    reasons = [name for name, wanted in kwargs.items() if wanted]
                    return pytest.mark.skipif(condition=len(reasons) > 0, reason=str(reasons))
                """,
            "tests/test_ddp.py": """\
                import pytest

                from tests.helpers.runif import RunIf


                @pytest.mark.flaky(reruns=3)
                @RunIf(skip_windows=True)
                def test_result_reduce_ddp():
                    assert reduce_ddp() == 2
                """,
        },
    )
    message = only(document, "DET101")["message"]
    assert "skipped where `RunIf(skip_windows=True)` says so" in message
    assert "len(reasons)" not in message


def test_a_guard_quotes_the_line_of_the_file_not_of_the_parsed_part(tmp_path):
    """celery test_canvas.py: "past line 634" for a `try` on line 1660; only the blocks
    that matter are parsed, and their lines are mapped back."""
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_chord.py": "import pytest\n\n\n"
            + "".join(f"def helper_{n}():\n    return {n}\n\n\n" for n in range(30))
            + """\
@pytest.mark.flaky(reruns=5)
def test_chord(manager):
    try:
        manager.app.backend.ensure_chords_allowed()
    except NotImplementedError as error:
        raise pytest.skip(error.args[0])
    if not redis(manager):
        pytest.skip("requires redis")
    assert chord() == 3
""",
        },
    )
    message = only(document, "DET101")["message"]
    # The `try` is on line 126: 3 lines of imports, 30 helpers of 4 lines, the marker.
    assert "skipped where the test gets past line 126 and `not redis(manager)`" in message
    # The skip in `except NotImplementedError` runs after that error ended the checks:
    # it hides no violation, so it makes no environment of its own.
    assert "`NotImplementedError` is raised" not in message
