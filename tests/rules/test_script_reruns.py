"""A test module's own ``pytest.main`` options, which act when the file is run as a script.

Distilled from ray (python/ray/tune/tests/test_cluster.py:347 and
execution/test_controller_resources_integration.py:278), whose test files end with
``sys.exit(pytest.main(["-v", "--reruns", "3", __file__]))``: Bazel's ``py_test`` runs each
such file as a script, so every test of the file runs under pytest-rerunfailures'
``--reruns 3`` (pinned in its test requirements), and detlint reported nothing.

What the numbers rest on was run (pytest 9.2.0, pytest-rerunfailures 16.7, the other rerun
plugins disabled with ``-p no:flaky -p no:pytest-retry``), with ``python test_x.py``
running ``pytest.main([..., __file__])`` on tests failing every time: under
``--reruns 3`` (or ``--reruns=3``) an unmarked test ran 4 times and one marked
``flaky(reruns=1)`` 2 times (the marker's count replaces the option's); under ``--reruns
3 --reruns-mode append`` the marked one ran 5 times; ``-p no:rerunfailures`` made the
marked test run once, and with ``--reruns 3`` beside it pytest stopped with exit status 4
before running any test; ``--only-rerun ValueError`` and ``--rerun-except AssertionError``
left an assertion failure with 1 run; ``--retries 2`` (pytest-retry) gave an unmarked test
3 runs, and ``--force-flaky --max-runs 3`` (flaky) 3 runs.
"""

from __future__ import annotations

import pytest
from realworld_cases import FLAKY, RERUNFAILURES, RETRY, check, findings, only
from repo_expectations import github_workflow

CONDITION = "when the file is run as a script (`python <file>`, as a Bazel py_test does)"
STRICT = "every failing test of the file without a `flaky` marker of its own"

TESTS = """\
import os
import sys

import pytest

RERUNS = int(os.environ.get("RERUNS", "2"))


def test_unmarked():
    assert run() == 1


@pytest.mark.flaky(reruns=1)
def test_marked():
    assert run() == 2


def test_other():
    assert run() == 3

"""


def _script(tail: str, requirements: dict[str, str] = RERUNFAILURES) -> dict:
    return {**requirements, "tests/test_script.py": TESTS + "\n" + tail}


def _main(call: str) -> str:
    return f'if __name__ == "__main__":\n    {call}\n'


def _codes(document: dict) -> list[tuple[str, int]]:
    return [(f["code"], f["line"]) for f in findings(document)]


def test_reruns_in_the_main_block_rerun_every_unmarked_test(tmp_path):
    document = check(
        tmp_path, _script(_main('sys.exit(pytest.main(["-v", "--reruns", "3", __file__]))'))
    )
    found = only(document, "DET104")
    assert (found["path"], found["line"], found["column"]) == ("tests/test_script.py", 23, 14)
    # 0.1 ** 4: the unmarked tests run four times; the marked one keeps its own count.
    assert found["message"] == (
        f"`--reruns 3` in the file's own pytest.main reruns {STRICT}, {CONDITION}: a 10% "
        "violation is reported 0.010% of the time instead of 10.0% in "
        "tests/test_script.py::test_other; covers 2 tests, 2 test instances"
    )
    assert found["numbers"]["reported"] == pytest.approx(0.1**4)
    # The marker's own finding is unchanged: its count wins over the option.
    assert "reported 1.0% of the time" in only(document, "DET101")["message"]


def test_the_equals_form_and_a_trial_loop(tmp_path):
    test = """\
        import os
        import sys

        import pytest

        TRIALS = int(os.getenv("KERNEL_TRIALS", "5"))


        def test_batch_invariance():
            for seed in range(TRIALS):
                assert run_batched(seed) == run_single(seed)


        if __name__ == "__main__":
            sys.exit(pytest.main(["--reruns=3", __file__]))
        """
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_kernel.py": test})
    found = only(document, "DET104")
    assert found["line"] == 15
    # The seed table's row for q = 10%, T = 5, reruns = 3.
    assert found["message"] == (
        f"`--reruns 3` in the file's own pytest.main reruns {STRICT}, {CONDITION}: a 10% "
        "violation is reported 2.8% of the time instead of 41.0% in "
        "tests/test_kernel.py::test_batch_invariance"
    )


def test_append_mode_reaches_the_marked_test_too(tmp_path):
    call = 'sys.exit(pytest.main(["--reruns", "3", "--reruns-mode", "append", __file__]))'
    found = only(check(tmp_path, _script(_main(call))), "DET104")
    assert found["message"] == (
        "`--reruns 3` in the file's own pytest.main reruns every failing test of the file, "
        "and adds to each `flaky` marker's own count (--reruns-mode append), "
        f"{CONDITION}: a 10% violation is reported 0.010% of the time instead of 10.0% in "
        "tests/test_script.py::test_other; covers 3 tests, 3 test instances"
    )


def test_a_file_whose_tests_all_have_their_own_marker_gets_nothing(tmp_path):
    test = """\
        import pytest


        @pytest.mark.flaky(reruns=1)
        def test_marked():
            assert run() == 2


        if __name__ == "__main__":
            pytest.main(["--reruns", "3", __file__])
        """
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_marked.py": test})
    assert _codes(document) == [("DET101", 4)]


def test_the_list_bound_to_a_name_in_a_function_the_block_calls(tmp_path):
    tail = """\
def main():
    args = ["--reruns", "2"]
    args.append(__file__)
    return pytest.main(args)


if __name__ == "__main__":
    sys.exit(main())
"""
    found = only(check(tmp_path, _script(tail)), "DET104")
    assert found["line"] == 25
    assert found["message"] == (
        f"`--reruns 2` in the file's own pytest.main reruns {STRICT}, {CONDITION}: a 10% "
        "violation is reported 0.10% of the time instead of 10.0% in "
        "tests/test_script.py::test_other; covers 2 tests, 2 test instances; detlint cannot "
        "read `args.append(__file__)`, which may add to these options or override them"
    )


def test_a_module_list_passed_as_args_and_sys_argv_joined(tmp_path):
    tail = 'ARGS = ["-v", "--reruns", "2", __file__]\n\n' + _main(
        "raise SystemExit(pytest.main(args=ARGS + sys.argv[1:]))"
    )
    found = only(check(tmp_path, _script(tail)), "DET104")
    assert found["line"] == 25
    assert found["message"].endswith(
        "a 10% violation is reported 0.10% of the time instead of 10.0% in "
        "tests/test_script.py::test_other; covers 2 tests, 2 test instances; detlint cannot "
        "read `sys.argv[1:]`, which may add to these options or override them"
    )


def test_a_count_the_file_computes_is_named_not_guessed(tmp_path):
    for call, value in (
        ('sys.exit(pytest.main(["--reruns", str(RERUNS), __file__]))', "str(RERUNS)"),
        ('sys.exit(pytest.main([f"--reruns={RERUNS}", __file__]))', "{RERUNS}"),
    ):
        found = only(check(tmp_path / value[:3], _script(_main(call))), "DET104")
        assert found["line"] == 23
        assert found["message"] == (
            f"`--reruns {value}` in the file's own pytest.main reruns {STRICT}, {CONDITION}, "
            f"with a count detlint cannot read (`{value}`): a violation in a rerun test is "
            "reported only when every attempt fails"
        )
        assert found.get("numbers") is None


def test_pytest_retry_and_flaky_options(tmp_path):
    retries = check(
        tmp_path / "retry",
        _script(_main('sys.exit(pytest.main(["--retries", "2", __file__]))'), RETRY),
    )
    message = only(retries, "DET104")["message"]
    # pytest-retry ignores `reruns=`: the marked test is a bare marker and gets --retries.
    assert message == (
        "`--retries 2` in the file's own pytest.main reruns every failing test of the file, "
        f"and those with a bare `flaky` marker too, {CONDITION}: a 10% violation is reported "
        "0.10% of the time instead of 10.0% in tests/test_script.py::test_other; covers 3 "
        "tests, 3 test instances"
    )
    call = 'sys.exit(pytest.main(["--force-flaky", "--max-runs", "3", __file__]))'
    flaky = check(tmp_path / "flaky", _script(_main(call), FLAKY))
    assert only(flaky, "DET104")["message"] == (
        "`--force-flaky` in the file's own pytest.main reruns every failing test of the file "
        "(max_runs=3, min_passes=1) without a flaky marker or decorator of its own, "
        f"{CONDITION}: a 10% violation is reported 0.10% of the time instead of 10.0% in "
        "tests/test_script.py::test_other; covers 2 tests, 2 test instances"
    )


def test_options_that_rerun_no_assertion_failure_or_stop_pytest(tmp_path):
    for name, call in (
        ("only", 'pytest.main(["--reruns", "3", "--only-rerun", "ConnectionError", __file__])'),
        ("except", 'pytest.main(["--reruns", "3", "--rerun-except", "AssertionError", __file__])'),
        ("visible", 'pytest.main(["--reruns", "3", "--fail-on-flaky", __file__])'),
        ("zero", 'pytest.main(["--reruns", "0", __file__])'),
        # Without the plugin `--reruns` is an unknown option: exit 4, no test runs.
        ("disabled", 'pytest.main(["-p", "no:rerunfailures", "--reruns", "3", __file__])'),
        ("alone", 'pytest.main(["-p", "no:rerunfailures", __file__])'),
        ("plain", 'sys.exit(pytest.main(["-v", __file__]))'),
    ):
        document = check(tmp_path / name, _script(_main(call)))
        assert _codes(document) == [("DET101", 13)], name


def test_pytest_main_outside_the_main_block_is_another_session(tmp_path):
    # A test (or a helper it calls) that runs pytest starts a session of its own on the
    # tests it names: the options act there, not on this file's tests.
    inner = """\
        import pytest


        def run_inner():
            return pytest.main(["--reruns", "3", __file__])


        def test_inner_session():
            assert run_inner() == 0
        """
    document = check(tmp_path / "inner", {**RERUNFAILURES, "tests/test_inner.py": inner})
    assert _codes(document) == []
    # A main block that runs other tests (no __file__, not the file's own name).
    other = _main('sys.exit(pytest.main(["--reruns", "3", "tests/other"]))')
    assert _codes(check(tmp_path / "other", _script(other))) == [("DET101", 13)]
    # Arguments detlint cannot read at all name no rerun option: nothing is guessed.
    unknown = "def main(args):\n    return pytest.main(args)\n\n\n" + _main(
        "sys.exit(main(sys.argv[1:]))"
    )
    assert _codes(check(tmp_path / "unknown", _script(unknown))) == [("DET101", 13)]


def test_a_module_named_by_its_own_file_name_and_an_alias(tmp_path):
    test = """\
        from pytest import main as run_pytest


        def test_plain():
            assert run() == 1


        if "__main__" == __name__:
            run_pytest(["test_named.py", "--reruns", "1"])
        """
    found = only(check(tmp_path, {**RERUNFAILURES, "tests/test_named.py": test}), "DET104")
    assert found["line"] == 9
    assert (
        "reported 1.0% of the time instead of 10.0% in tests/test_named.py::test_plain"
        in (found["message"])
    )


def test_deselecting_the_flaky_tag_in_the_script(tmp_path):
    call = 'sys.exit(pytest.main(["-m", "not flaky", __file__]))'
    document = check(tmp_path, _script(_main(call)))
    found = only(document, "DET202")
    assert found["line"] == 23
    assert found["message"] == (
        f"`-m 'not flaky'` in the file's own pytest.main deselects the tests marked 'flaky' "
        f"{CONDITION}: a 10% violation in tests/test_script.py::test_marked is never reported "
        "there (was 10.0%) and nothing shows it (1 test)"
    )
    # A deselected test is not the one the reruns are quoted for.
    call = 'sys.exit(pytest.main(["-m", "not flaky", "--reruns", "3", __file__]))'
    both = check(tmp_path / "both", _script(_main(call)))
    assert "covers 2 tests" in only(both, "DET104")["message"]


def test_a_ci_step_that_runs_the_tag_makes_the_deselection_no_finding(tmp_path):
    call = 'sys.exit(pytest.main(["-m", "not flaky", __file__]))'
    files = {**_script(_main(call)), ".github/workflows/ci.yml": github_workflow("pytest tests")}
    assert findings(check(tmp_path, files), "DET202") == []


def test_suppressed_on_the_call_line(tmp_path):
    call = 'sys.exit(pytest.main(["--reruns", "3", __file__]))  # detlint: ignore[DET104]'
    document = check(tmp_path, _script(_main(call)))
    assert _codes(document) == [("DET101", 13)]
