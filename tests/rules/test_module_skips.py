"""A test module that skips itself from its top level, as pytest imports it:
``pytest.skip(..., allow_module_level=True)`` or ``raise unittest.SkipTest(...)`` skips
every test the module holds, under the ``if``/``else``/``except`` around it, and is read
as a module ``pytestmark = pytest.mark.skip(...)`` is. Without ``allow_module_level`` pytest
reports a collection error (a visible failure), and ``pytest.importorskip`` is no knob."""

from __future__ import annotations

from pathlib import Path

from repo_expectations import run_audit, run_check

TESTS = """

def test_one():
    assert 1


@pytest.mark.parametrize("x", [1, 2, 3])
def test_two(x):
    assert x


class TestC:
    def test_m(self):
        assert 1
"""
NEVER = "there it never runs, so a 10% violation is never reported (was 10.0%)"
COVERS = "(1 attempt, no trial loop recognised; covers 3 tests, 5 test instances)"


def _check(root: Path, head: str, tests: str = TESTS) -> list[tuple[str, int, int, str]]:
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests/test_mod.py").write_text(head + tests)
    _, document = run_check(root)
    assert all(found["fix"] is None for found in document["findings"])
    return [(f["code"], f["line"], f["column"], f["message"]) for f in document["findings"]]


def _knobs(root: Path) -> list[tuple[int, str, str, list[str], int]]:
    return [
        (knob["line"], knob["name"], knob["scope"], knob["guards"], len(knob["tests"]))
        for knob in run_audit(root)["knobs"]
    ]


def test_an_unconditional_flaky_module_skip_covers_every_test(repository):
    head = 'import pytest\n\npytest.skip("flaky: times out", allow_module_level=True)\n'
    assert _check(repository, head) == [
        (
            "DET202",
            3,
            1,
            "test skipped as 'flaky': it never runs, so a 10% violation is never reported "
            f"(was 10.0%) and nothing shows it {COVERS}",
        )
    ]


def test_the_if_around_it_is_its_condition(repository):
    head = (
        "import sys\nimport pytest\n\n"
        'if sys.platform in ("darwin", "linux"):\n'
        '    pytest.skip("TODO: flaky on macOS and Linux", allow_module_level=True)\n'
    )
    assert _check(repository, head) == [
        (
            "DET202",
            5,
            5,
            f'test skipped as \'flaky\' where `sys.platform in ("darwin", "linux")`: {NEVER} '
            f"and nothing shows it {COVERS}",
        )
    ]


def test_an_else_branch_negates_the_condition_and_aliases_resolve(repository):
    head = (
        "import sys\nfrom pytest import skip\nimport pytest\n\n"
        'if sys.platform == "darwin":\n    pass\nelse:\n'
        '    skip(msg="flaky off macOS", allow_module_level=True)\n'
    )
    assert _check(repository, head) == [
        (
            "DET202",
            8,
            5,
            f"test skipped as 'flaky' where not `sys.platform == \"darwin\"`: {NEVER} "
            f"and nothing shows it {COVERS}",
        )
    ]


def test_a_reason_that_is_no_flakiness_is_no_finding_but_a_knob(repository):
    head = 'import pytest as pt\nimport pytest\n\npt.skip("needs a GPU", allow_module_level=True)\n'
    assert _check(repository, head) == []
    assert _knobs(repository) == [(4, "pytest.skip", "module", [], 3)]


def test_a_missing_dependency_skip_is_conditional_on_the_import_error(repository):
    head = (
        "import pytest\n\ntry:\n    import foo\nexcept ImportError:\n"
        '    pytest.skip("foo is not installed", allow_module_level=True)\n'
    )
    assert _check(repository, head) == []
    assert _knobs(repository) == [(6, "pytest.skip", "module", ["`ImportError` is raised"], 3)]


def test_importorskip_is_no_knob(repository):
    head = 'import pytest\n\nnp = pytest.importorskip("numpy")  # flaky\n'
    assert _check(repository, head) == []


def test_raising_unittest_skiptest_at_the_top_level_skips_the_module(repository):
    head = 'import unittest\nimport pytest\n\nraise unittest.SkipTest("flaky on CI")\n'
    assert _check(repository, head) == [
        (
            "DET202",
            4,
            7,
            "test skipped as 'flaky': it never runs, so a 10% violation is never reported "
            f"(was 10.0%) and nothing shows it {COVERS}",
        )
    ]


def test_without_allow_module_level_pytest_errors_at_collection(repository):
    # pytest: "Using pytest.skip outside of a test will skip the entire module. If that's
    # your intention, pass `allow_module_level=True`." The run fails, visibly: no skip.
    head = 'import pytest\n\npytest.skip("flaky")\n'
    assert _check(repository, head) == []
    assert _knobs(repository) == []


def test_a_skip_under_the_main_guard_never_runs_under_pytest(repository):
    head = (
        'import pytest\n\nif __name__ == "__main__":\n'
        '    pytest.skip("flaky", allow_module_level=True)\n'
    )
    assert _check(repository, head) == []


def test_a_skip_in_a_test_body_skips_that_test_alone(repository):
    tests = (
        "\n\ndef test_one():\n"
        '    pytest.skip("flaky", allow_module_level=True)\n'
        "\n\ndef test_two():\n    assert 1\n"
    )
    assert _check(repository, "import pytest\n", tests) == [
        (
            "DET202",
            5,
            5,
            "test skipped as 'flaky': it never runs, so a 10% violation is never reported "
            "(was 10.0%) and nothing shows it (1 attempt, no trial loop recognised)",
        )
    ]
    assert _knobs(repository) == [(5, "pytest.skip", "body", [], 1)]
