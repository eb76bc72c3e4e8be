"""Files pytest collects whatever ``python_files`` says: one a CI step names on its
pytest command line, one that runs ``pytest.main([__file__])``.

Distilled from real suites: torchrl's CI runs ``pytest test/smoke_test_deps.py``
(which also ends in ``pytest.main([__file__, ...])``), and a ``check_*.py`` file
run as ``pytest tests/check_foo.py``; detlint read neither, since their names are
not test module names, so the knobs in them were never judged.
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, check, findings
from repo_expectations import github_workflow

CHECK_FOO = """\
    import pytest


    @pytest.mark.flaky(reruns=2)
    def test_foo():
        assert run() == 1
    """


def _lines(document: dict) -> list[tuple[str, str, int]]:
    return [(f["code"], f["path"], f["line"]) for f in findings(document)]


def test_a_file_a_workflow_names_is_collected(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            ".github/workflows/ci.yml": github_workflow("pytest tests/check_foo.py"),
            "tests/check_foo.py": CHECK_FOO,
            # Named like a test module by no config, and named by no run: not collected.
            "tests/check_bar.py": CHECK_FOO,
        },
    )
    assert _lines(document) == [("DET101", "tests/check_foo.py", 4)]
    message = findings(document)[0]["message"]
    assert "reported 0.10% of the time instead of 10.0% (reruns=2;" in message


def test_a_named_file_gets_the_run_s_own_knobs(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            ".github/workflows/ci.yml": github_workflow(
                "pytest tests/check_foo.py || pytest tests/check_foo.py"
            ),
            "tests/check_foo.py": CHECK_FOO,
        },
    )
    codes = {f["code"] for f in findings(document) if f["path"] == "tests/check_foo.py"}
    assert "DET101" in codes
    # The shell retry of the step covers the file's test too.
    ci = [f for f in findings(document) if f["code"].startswith("DET4")]
    assert ci, document["findings"]
    assert any("check_foo.py" in f["message"] for f in ci)


def test_a_file_that_runs_pytest_on_itself_is_collected(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "test/smoke_test_deps.py": """\
                import argparse

                import pytest


                @pytest.mark.flaky(reruns=3)
                def test_gym():
                    assert run() == 1


                if __name__ == "__main__":
                    args, unknown = argparse.ArgumentParser().parse_known_args()
                    pytest.main([__file__, "--capture", "no", "--exitfirst"] + unknown)
                """,
            "test/helpers.py": """\
                import pytest


                @pytest.mark.flaky(reruns=3)
                def test_not_collected():
                    assert run() == 1


                def main():
                    pytest.main(["test"])
                """,
        },
    )
    assert _lines(document) == [("DET101", "test/smoke_test_deps.py", 6)]
    message = findings(document)[0]["message"]
    assert "reported 0.010% of the time instead of 10.0% (reruns=3;" in message
