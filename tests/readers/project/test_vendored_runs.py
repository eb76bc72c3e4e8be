"""A vendored-named directory whose subtree the repository's own configuration runs
tests in (a pipeline's pytest target, a script's ``cd`` before pytest, ``testpaths``)
is read there, and only there; every other vendored directory stays skipped."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from repo_expectations import github_workflow, run_audit, run_check, written_repository

import detlint.readers.project.vendored_runs as vendored_runs
from detlint.readers.project.discovery import clear_cache
from detlint.readers.project.vendored_runs import NamedSubtree, named_subtrees

FLAKY_SKIP = (
    'import pytest\n\n\n@pytest.mark.skip(reason="flaky")\ndef test_a():\n    assert True\n'
)
SKIP_MESSAGE = (
    "test skipped as 'flaky': it never runs, so a 10% violation is never reported "
    "(was 10.0%) and nothing shows it (1 attempt, no trial loop recognised)"
)
BASE = {
    "requirements.txt": "pytest\n",
    "tests/test_own.py": FLAKY_SKIP,
    # Knobs of a vendored copy nobody's configuration names: still skipped.
    "third_party/other/tests/test_other.py": FLAKY_SKIP,
    # Beside the named subtree, in the same vendored directory: not run, not read.
    "third_party/foo/benchmarks/test_bench.py": FLAKY_SKIP,
    "third_party/foo/tests/test_foo.py": FLAKY_SKIP,
}


@pytest.fixture(autouse=True)
def _fresh_listing():
    clear_cache()
    yield
    clear_cache()


def _findings(document: dict) -> list[tuple[str, int, str, str]]:
    return sorted((f["path"], f["line"], f["code"], f["message"]) for f in document["findings"])


def _own_and(*paths: str) -> list[tuple[str, int, str, str]]:
    return sorted((path, 4, "DET202", SKIP_MESSAGE) for path in ("tests/test_own.py", *paths))


def test_a_workflows_pytest_target_in_a_vendored_directory_is_read(tmp_path):
    workflow = github_workflow("python -m pytest -v third_party/foo/tests", "pytest tests")
    repo = written_repository(tmp_path, {**BASE, ".github/workflows/ci.yml": workflow})
    _, document = run_check(repo)
    assert _findings(document) == _own_and("third_party/foo/tests/test_foo.py")
    audit = run_audit(repo)
    assert audit["skipped"] == [{"path": "third_party", "why": "vendored"}]
    [read] = audit["vendored_read"]
    assert read["path"] == "third_party/foo/tests"
    assert read["read"] is True
    assert read["named_by"]["path"] == ".github/workflows/ci.yml"
    assert read["named_by"]["text"] == "python -m pytest -v third_party/foo/tests"
    lines = (repo / ".github/workflows/ci.yml").read_text().splitlines()
    assert lines[read["named_by"]["line"] - 1].strip() == read["named_by"]["text"]


def test_a_scripts_cd_into_a_vendored_test_directory_before_pytest_is_read(tmp_path):
    script = "#!/bin/sh\nset -e\ncd $PROJECT_ROOT/third_party/foo/tests\n\nrun_pytest -x .\n"
    repo = written_repository(tmp_path, {**BASE, "scripts/test.sh": script})
    _, document = run_check(repo)
    assert _findings(document) == _own_and("third_party/foo/tests/test_foo.py")
    [read] = run_audit(repo)["vendored_read"]
    assert read["named_by"] == {
        "path": "scripts/test.sh",
        "line": 3,
        "text": "cd $PROJECT_ROOT/third_party/foo/tests",
    }


def test_a_cd_not_followed_by_pytest_names_no_test_directory(tmp_path):
    script = "cd third_party/foo/tests && make\ncd ../../..\npytest tests\n"
    repo = written_repository(tmp_path, {**BASE, "scripts/build.sh": script})
    _, document = run_check(repo)
    assert _findings(document) == _own_and()
    assert run_audit(repo)["vendored_read"] == []


def test_testpaths_pointing_into_a_vendored_directory_is_read(tmp_path):
    files = {
        **BASE,
        "vendor/x/tests/test_x.py": FLAKY_SKIP,
        "vendor/x/src/test_src.py": FLAKY_SKIP,
        "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests", "vendor/x/tests"]\n',
    }
    repo = written_repository(tmp_path, files)
    _, document = run_check(repo)
    assert _findings(document) == _own_and("vendor/x/tests/test_x.py")
    [read] = run_audit(repo)["vendored_read"]
    assert read["path"] == "vendor/x/tests"
    assert read["named_by"]["path"] == "pyproject.toml"
    assert read["named_by"]["line"] == 2


def test_ini_testpaths_on_continuation_lines_are_read(tmp_path):
    files = {**BASE, "pytest.ini": "[pytest]\ntestpaths =\n    tests\n    third_party/foo/tests\n"}
    repo = written_repository(tmp_path, files)
    _, document = run_check(repo)
    assert _findings(document) == _own_and("third_party/foo/tests/test_foo.py")


def test_only_the_conftests_on_the_way_down_are_read_with_the_subtree(tmp_path):
    workflow = github_workflow("pytest third_party/foo/tests/test_foo.py::test_a")
    files = {
        **BASE,
        ".github/workflows/ci.yml": workflow,
        "third_party/conftest.py": "",
        "third_party/foo/conftest.py": "",
        "third_party/foo/benchmarks/conftest.py": "",
        "third_party/foo/tests/test_unnamed.py": FLAKY_SKIP,
    }
    repo = written_repository(tmp_path, files)
    _, document = run_check(repo)
    assert _findings(document) == _own_and("third_party/foo/tests/test_foo.py")
    read = run_audit(repo)["vendored_read"]
    assert [item["path"] for item in read] == ["third_party/foo/tests/test_foo.py"]


def test_the_files_read_are_the_named_subtree_and_its_conftests(tmp_path):
    files = {
        **BASE,
        "third_party/conftest.py": "",
        "third_party/foo/conftest.py": "",
        "third_party/foo/benchmarks/conftest.py": "",
        "third_party/foo/tests/conftest.py": "",
    }
    repo = written_repository(tmp_path, files)
    (repo / "tox.ini").write_text("[testenv]\ncommands = pytest {posargs} third_party/foo/tests\n")
    listed = sorted(
        os.path.relpath(path, repo) for path in _subtree_files(repo, files_named="tox.ini")
    )
    assert listed == [
        "third_party/conftest.py",
        "third_party/foo/conftest.py",
        "third_party/foo/tests/conftest.py",
        "third_party/foo/tests/test_foo.py",
    ]


def _subtree_files(repo: Path, files_named: str) -> frozenset[str]:
    from detlint.readers.project.discovery import vendored_reads
    from detlint.readers.project.exclusions import DEFAULT_EXCLUDES, DEFAULT_VENDORED

    reads = vendored_reads(str(repo), (), True, DEFAULT_VENDORED, DEFAULT_EXCLUDES)
    assert [subtree.source for subtree in reads.named] == [files_named]
    return reads.files


def test_a_submodule_named_by_ci_stays_unread_and_the_audit_says_why(tmp_path):
    workflow = github_workflow("pytest third_party/sub/tests")
    files = {**BASE, ".github/workflows/ci.yml": workflow, "third_party/sub/tests/t.py": ""}
    repo = written_repository(tmp_path, files)
    (repo / "third_party/sub/tests/test_sub.py").write_text(FLAKY_SKIP)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", "init", "-q"], cwd=repo / "third_party/sub", check=True, env=env)
    _, document = run_check(repo)
    assert _findings(document) == _own_and()
    [read] = run_audit(repo)["vendored_read"]
    assert read["path"] == "third_party/sub/tests"
    assert read["read"] is False
    assert read["not_read"] == "a submodule or nested repository: another repository's"


def test_a_one_file_run_reads_no_configuration_for_vendored_directories(tmp_path, monkeypatch):
    workflow = github_workflow("pytest third_party/foo/tests")
    repo = written_repository(tmp_path, {**BASE, ".github/workflows/ci.yml": workflow})

    def unexpected(*args: object) -> tuple[NamedSubtree, ...]:
        raise AssertionError("a one-file run looked for vendored test runs")

    monkeypatch.setattr(vendored_runs, "named_subtrees", unexpected)
    _, document = run_check(repo, "tests/test_own.py")
    assert _findings(document) == _own_and()


def test_a_pre_commit_run_on_a_file_of_a_named_subtree_keeps_it(tmp_path):
    workflow = github_workflow("pytest third_party/foo/tests")
    repo = written_repository(tmp_path, {**BASE, ".github/workflows/ci.yml": workflow})
    named, unnamed = "third_party/foo/tests/test_foo.py", "third_party/other/tests/test_other.py"
    _, document = run_check(repo, "--force-exclude", named, unnamed)
    assert [f["path"] for f in document["findings"]] == [named]


def test_an_explicit_vendored_dirs_list_wins_over_the_configuration(tmp_path):
    workflow = github_workflow("pytest third_party/foo/tests")
    files = {
        **BASE,
        ".github/workflows/ci.yml": workflow,
        "pyproject.toml": '[tool.detlint]\nvendored-dirs = ["third_party"]\n',
    }
    _, document = run_check(written_repository(tmp_path, files))
    assert _findings(document) == _own_and()


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("pytest --ignore=third_party/foo/tests tests", []),
        ("pytest --ignore third_party/foo/tests tests", []),
        ("# pytest third_party/foo/tests", []),
        ("pytest third_party/*/tests", []),
        ("pytest ./third_party/foo/tests/missing_dir", ["third_party/foo/tests"]),
        ("$(PYTEST) -n 8 third_party/foo/tests", ["third_party/foo/tests"]),
        ('session.run("pytest", "third_party/foo/tests")', ["third_party/foo/tests"]),
        ("cp third_party/foo/tests/x.py . && pytest tests", []),
    ],
)
def test_which_words_of_a_line_name_a_test_run(tmp_path, line, named):
    repo = written_repository(tmp_path, {**BASE, "run.sh": line + "\n"})
    found = named_subtrees(str(repo), [str(repo / "run.sh")], ["third_party"])
    assert [subtree.path for subtree in found] == named


@pytest.mark.parametrize(
    ("name", "text", "named"),
    [
        # Each recipe line runs in a shell of its own: the cd is over before pytest runs.
        ("Makefile", "gen:\n\tcd third_party/foo/tests; npm ci\n\tpytest tests\n", []),
        ("Makefile", "t:\n\tcd third_party/foo/tests && $(PYTEST) .\n", ["third_party/foo/tests"]),
        # A later step of a workflow runs in a shell of its own too.
        (
            ".github/workflows/ci.yml",
            "jobs:\n  t:\n    steps:\n      - run: cd third_party/foo/tests\n      - run: pytest\n",
            [],
        ),
        (
            ".github/workflows/ci.yml",
            "jobs:\n  t:\n    steps:\n      - run: |\n          cd third_party/foo/tests\n"
            "          python -m pytest .\n",
            ["third_party/foo/tests"],
        ),
    ],
)
def test_a_cd_counts_when_pytest_runs_in_the_same_shell(tmp_path, name, text, named):
    repo = written_repository(tmp_path, {**BASE, name: text})
    found = named_subtrees(str(repo), [str(repo / name)], ["third_party"])
    assert [subtree.path for subtree in found] == named


def test_a_submodule_gitmodules_declares_is_another_repositorys(tmp_path):
    gitmodules = '[submodule "foo"]\n    path = third_party/foo\n    url = https://x/foo.git\n'
    repo = written_repository(tmp_path, {**BASE, ".gitmodules": gitmodules})
    (repo / "run.sh").write_text("pytest third_party/foo/tests\n")
    [found] = named_subtrees(str(repo), [str(repo / "run.sh")], ["third_party"])
    assert found.submodule
    _, document = run_check(repo)
    assert _findings(document) == _own_and()
