"""``detlint check`` on fixture repositories: plugin semantics, config, quarantines,
retry decorators, trial knobs and broken files. Each repository declares its
expected findings in ``# expect:`` comments."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_expectations import expected_findings, reported_findings, run_check

REPOS = Path(__file__).parent / "fixtures" / "repos"


def find(document, path, line, code):
    (match,) = [
        f
        for f in document["findings"]
        if f["path"] == path and f["line"] == line and f["code"] == code
    ]
    return match


@pytest.mark.parametrize(
    ("repo", "args"),
    [
        ("flaky_pkg", ()),
        ("retry_plugin", ()),
        ("conflict", ()),
        ("global_reruns", ()),
        ("quarantine", ()),
        ("strict_ini", ()),
        ("retry_decorators", ()),
        ("trials", ("--extend-select", "DET301")),
        ("broken", ()),
        ("hooks_inert", ()),
        ("force_flaky", ()),
    ],
)
def test_repository_findings_match_expectations(repo, args):
    code, document = run_check(REPOS / repo, *args)
    assert reported_findings(document) == expected_findings(REPOS / repo)
    assert code == (1 if document["findings"] else 0)


def test_registered_flaky_marker_without_plugin_is_a_tag():
    code, document = run_check(REPOS / "tag_only")
    assert (code, document["findings"]) == (0, [])


def test_flaky_package_semantics():
    _, document = run_check(REPOS / "flaky_pkg")
    decorator = find(document, "tests/test_flaky_package.py", 6, "DET101")
    assert "max_runs=3, min_passes=1" in decorator["message"]
    assert decorator["numbers"]["reported"] == pytest.approx(0.1**3)
    marker = find(document, "tests/test_flaky_package.py", 16, "DET101")
    assert "flaky>=3.8 from pyproject.toml:4" in marker["message"]
    type_error = find(document, "tests/test_flaky_package.py", 21, "DET102")
    assert "TypeError" in type_error["message"]
    assert type_error["severity"] == "error"


def test_pytest_retry_semantics():
    _, document = run_check(REPOS / "retry_plugin")
    positional = find(document, "tests/test_retry.py", 9, "DET101")
    assert positional["numbers"]["reported"] == pytest.approx(0.1**2)  # flaky(3) retries once
    assert (
        "ignores positional arguments"
        in find(document, "tests/test_retry.py", 9, "DET102")["message"]
    )
    ignored = find(document, "tests/test_retry.py", 14, "DET102")
    assert "pytest-retry ignores `reruns=` (did you mean `retries=`?)" in ignored["message"]
    assert "pytest-retry==1.7.0 from setup.cfg:8" in ignored["message"]


TWO_CLAIM = (
    "both flaky and pytest-rerunfailures are declared and claim `flaky`: which one reads this "
    "marker depends on install order, and the other's arguments are ignored or rejected"
)
THREE_CLAIM = (
    "flaky, pytest-rerunfailures and pytest-retry are all declared and each claims `flaky`: "
    "which one reads this marker depends on install order, and the others' arguments are "
    "ignored or rejected"
)


def test_conflict_names_both_plugins():
    _, document = run_check(REPOS / "conflict")
    conflict = find(document, "tests/test_conflict.py", 4, "DET102")
    assert conflict["message"] == TWO_CLAIM


@pytest.mark.parametrize(
    ("requirements", "message", "evidence", "disable"),
    [
        (
            "pytest-rerunfailures==16.7\nflaky==3.8.1\n",
            TWO_CLAIM,
            "both flaky and pytest-rerunfailures are declared; they fight over `flaky`",
            "disable the other with",
        ),
        (
            "pytest-retry==1.7.0\npytest-rerunfailures==16.7\nflaky==3.8.1\n",
            THREE_CLAIM,
            "flaky, pytest-rerunfailures and pytest-retry are all declared; they fight over "
            "`flaky`",
            "disable the others with",
        ),
    ],
    ids=["two", "three"],
)
def test_a_conflict_is_worded_for_the_number_of_plugins(
    tmp_path, requirements, message, evidence, disable
):
    (tmp_path / "requirements.txt").write_text(requirements)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        "import pytest\n\n\n@pytest.mark.flaky(max_runs=3)\ndef test_x():\n    assert True\n"
    )
    code, document = run_check(tmp_path)
    assert code == 1
    conflict = find(document, "tests/test_x.py", 4, "DET102")
    assert conflict["message"] == message
    assert disable in conflict["help"]
    # The rerun finding names the same plugins as the evidence for how it read the marker.
    assert evidence in find(document, "tests/test_x.py", 4, "DET101")["message"]


def test_global_reruns_numbers():
    _, document = run_check(REPOS / "global_reruns")
    finding = find(document, "pyproject.toml", 7, "DET104")
    assert finding["message"].endswith(
        "a 10% violation is reported 0.10% of the time instead of 10.0% in "
        "tests/test_plain.py::test_plain (1 attempt, no trial loop recognised)"
    )
    assert finding["numbers"]["reported"] == pytest.approx(0.1**3)


def test_quarantine_messages():
    _, document = run_check(REPOS / "quarantine")
    untracked = find(document, "tests/test_quarantine.py", 7, "DET201")
    assert 'reason "flaky on the A100 nodes"' in untracked["message"]
    assert untracked["numbers"]["reported"] == 0.0
    assert untracked["numbers"]["visible"] == pytest.approx(0.1)
    skipped = find(document, "tests/test_quarantine.py", 32, "DET202")
    assert "never reported (was 10.0%)" in skipped["message"]
    assert skipped["numbers"]["visible"] == 0.0


def test_retry_decorator_attempts():
    _, document = run_check(REPOS / "retry_decorators")
    tenacity = find(document, "tests/test_decorated.py", 7, "DET103")
    assert "(3 attempts;" in tenacity["message"]
    assert tenacity["numbers"]["reported"] == pytest.approx(0.1**3)
    unbounded = find(document, "tests/test_decorated.py", 12, "DET103")
    assert "no literal attempt limit" in unbounded["message"]
    backoff = find(document, "tests/test_decorated.py", 17, "DET103")
    assert backoff["numbers"]["reported"] == pytest.approx(0.1**4)


@pytest.mark.parametrize(
    ("line", "phrase"),
    [
        (21, "4 trials from MODULE_TRIALS"),
        (27, "3 trials from LOCAL_TRIALS"),
        (34, "8 trials from FIXTURE_TRIALS"),
        (40, "2 trials from HELPER_TRIALS"),
        (45, "40 trials from DIRECT_TRIALS"),
        (51, "1 attempt, no trial loop"),
        (57, "10 trials (literal loop bound)"),
    ],
)
def test_trial_sources(line, phrase):
    _, document = run_check(REPOS / "trials")
    assert phrase in find(document, "tests/test_trials.py", line, "DET101")["message"]


def test_low_trial_count_is_opt_in():
    _, document = run_check(REPOS / "trials")
    assert not [f for f in document["findings"] if f["code"] == "DET301"]
    _, selected = run_check(REPOS / "trials", "--select", "DET301")
    assert {f["code"] for f in selected["findings"]} == {"DET301"}
    module = find(selected, "tests/test_trials.py", 6, "DET301")
    assert "raise MODULE_TRIALS to 29" in module["help"]


def test_broken_files_are_reported_and_the_run_goes_on():
    _, document = run_check(REPOS / "broken")
    problems = {f["path"]: f["message"] for f in document["findings"] if f["code"] == "DET901"}
    assert "invalid Python" in problems["tests/test_invalid_syntax.py"]
    assert "binary" in problems["tests/test_binary.py"]
    assert "utf-8" in problems["tests/test_latin1_no_cookie.py"]


def test_hook_marker_reaches_every_marked_test():
    _, document = run_check(REPOS / "hooks_inert")
    hook = find(document, "tests/conftest.py", 7, "DET101")
    assert "reaches every test the hook marks" in hook["message"]
    assert hook["numbers"]["reported"] == pytest.approx(0.1**3)
    inert = find(document, "tests/test_inert.py", 4, "DET102")
    assert inert["severity"] == "warning"
    assert "does nothing" in inert["message"]


def test_force_flaky_numbers():
    _, document = run_check(REPOS / "force_flaky")
    finding = find(document, "pyproject.toml", 2, "DET104")
    assert "max_runs=3, min_passes=1" in finding["message"]
    assert finding["numbers"]["reported"] == pytest.approx(0.1**3)
    assert finding["numbers"]["visible"] == pytest.approx(0.1**3)


def test_linting_the_config_file_alone_reports_global_reruns():
    _, document = run_check(REPOS / "global_reruns", "pyproject.toml")
    assert [(f["path"], f["code"]) for f in document["findings"]] == [("pyproject.toml", "DET104")]


def test_linting_a_test_file_without_knobs_still_reports_global_reruns():
    _, document = run_check(REPOS / "global_reruns", "tests/test_plain.py")
    assert [(f["path"], f["code"]) for f in document["findings"]] == [("pyproject.toml", "DET104")]
