"""The cache of pipeline facts: a repeat run reads unchanged pipelines from it and
reports exactly what a fresh run reports; anything changed, unreadable or from
other code is read afresh; nothing is written into the linted tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from repo_expectations import repository_copy, run_check

from detlint.base.facts_cache import MAX_AGE, PRUNE_EVERY, FactsCache, code_fingerprint
from detlint.cli.main import cli

REPO = Path(__file__).parents[1] / "fixtures" / "repos" / "ci_pipelines"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repository_copy(REPO, tmp_path / "repo")


@pytest.fixture
def cache_dir() -> Path:
    return Path(os.environ["DETLINT_CACHE_DIR"])  # the test's own (conftest)


def entries(cache_dir: Path) -> list[Path]:
    """The stored entries (not the file that records when the cache was last pruned)."""
    return sorted(p for p in cache_dir.rglob("*") if p.is_file() and p.name != ".pruned")


def no_yaml_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, any YAML file that is parsed fails the test."""

    def refuse(text: str, path: str, *, pure: bool = False) -> object:
        raise AssertionError(f"{path} was parsed, not read from the cache")

    monkeypatch.setattr("detlint.readers.yaml.load.read_yaml", refuse)


def test_a_repeat_run_reads_unchanged_pipelines_from_the_cache(
    repo: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = run_check(repo)
    assert {f["code"] for f in first[1]["findings"]} >= {"DET401", "DET411", "DET431"}
    assert entries(cache_dir)
    no_yaml_reading(monkeypatch)
    assert run_check(repo) == first


def test_a_changed_pipeline_is_read_again(repo: Path, cache_dir: Path) -> None:
    pipeline = repo / ".buildkite" / "pipeline.yml"
    soft_fail = (".buildkite/pipeline.yml", "DET401")
    _, before = run_check(repo)
    assert soft_fail in {(f["path"], f["code"]) for f in before["findings"]}
    pipeline.write_text(pipeline.read_text().replace("soft_fail:", "soft_fail_not:"))
    _, after = run_check(repo)
    assert soft_fail not in {(f["path"], f["code"]) for f in after["findings"]}


def test_entries_depend_on_where_the_run_starts(repo: Path) -> None:
    """Findings name files relative to the working directory: a run from elsewhere
    must not get the paths cached by a run from the root."""
    _, from_root = run_check(repo)
    _, from_tests = run_check(repo / "tests", "..")
    assert {f["path"] for f in from_root["findings"]} >= {".buildkite/pipeline.yml"}
    paths = {f["path"] for f in from_tests["findings"]}
    assert "../.buildkite/pipeline.yml" in paths  # above the working directory
    assert ".buildkite/pipeline.yml" not in paths


def test_no_cache_reads_and_writes_nothing(
    repo: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, fresh = run_check(repo, "--no-cache")
    assert entries(cache_dir) == []
    run_check(repo)  # fills the cache
    no_yaml_reading(monkeypatch)
    with pytest.raises(AssertionError, match="was parsed"):
        run_check(repo, "--no-cache")
    monkeypatch.undo()
    assert run_check(repo, "--no-cache")[1] == fresh


def test_unreadable_entries_are_read_afresh_and_replaced(repo: Path, cache_dir: Path) -> None:
    first = run_check(repo)
    stored = entries(cache_dir)
    for entry in stored:
        entry.write_bytes(b"not a pickle")
    assert run_check(repo) == first
    assert all(entry.read_bytes() != b"not a pickle" for entry in stored)


def test_a_cache_that_cannot_be_written_costs_nothing_but_time(repo: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    expected = run_check(repo, "--no-cache")
    assert run_check(repo, "--cache-dir", str(blocker / "cache")) == expected


def test_the_linted_tree_gets_no_new_file(repo: Path) -> None:
    before = sorted(p for p in repo.rglob("*") if ".git" not in p.parts)
    run_check(repo)
    run_check(repo)
    assert sorted(p for p in repo.rglob("*") if ".git" not in p.parts) == before


def test_entries_of_other_code_are_dropped(repo: Path, cache_dir: Path) -> None:
    stale = cache_dir / ("0" * 32) / "pipelines" / "ab"
    stale.mkdir(parents=True)
    (stale / "cdef").write_bytes(b"old")
    keep = cache_dir / "notes"  # not a directory detlint made: left alone
    keep.mkdir()
    run_check(repo)
    assert not (cache_dir / ("0" * 32)).exists()
    assert keep.is_dir()
    assert (cache_dir / code_fingerprint() / "pipelines").is_dir()


def test_the_code_fingerprint_follows_the_code(tmp_path: Path) -> None:
    before = code_fingerprint()
    assert before == code_fingerprint()
    # Any module of the package counts, not only those beside the cache's own.
    module = Path(__file__).parents[2] / "detlint" / "model" / "policy.py"
    stat = module.stat()
    try:
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        assert code_fingerprint() != before
    finally:
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_gitlab_pipeline_is_read_again_when_a_file_it_includes_changes(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GitLab pipeline's facts come from the files it includes too: its entry
    holds their digests and counts only while every one of them is unchanged (or
    still absent)."""
    ci = repo / "ci"
    ci.mkdir()
    (ci / "tests.yml").write_text(
        "include:\n  - local: ci/templates.yml\n"
        "unit:\n  extends: .retried\n  script:\n    - pytest tests/unit\n"
    )
    templates = ci / "templates.yml"
    templates.write_text(".retried:\n  retry: 2\n")
    # The retry is reported where it is written: the include's path from the checkout
    # root, not from the directory of the pipeline that includes it.
    retry = ("ci/templates.yml", "DET411")
    first = run_check(repo)
    assert retry in {(f["path"], f["code"]) for f in first[1]["findings"]}
    with monkeypatch.context() as patch:
        no_yaml_reading(patch)
        assert run_check(repo) == first
    templates.write_text(".retried:\n  retry: 0\n")
    _, after = run_check(repo)
    assert retry not in {(f["path"], f["code"]) for f in after["findings"]}
    # An include that was missing and appears is a change too.
    (ci / "tests.yml").write_text(
        "include:\n  - local: ci/templates.yml\n  - local: ci/later.yml\n"
        "unit:\n  extends: .retried\n  script:\n    - pytest tests/unit\n"
    )
    assert retry not in {(f["path"], f["code"]) for f in run_check(repo)[1]["findings"]}
    (ci / "later.yml").write_text(".retried:\n  retry: 1\n")
    assert retry not in {(f["path"], f["code"]) for f in run_check(repo)[1]["findings"]}
    later = ("ci/later.yml", "DET411")
    assert later in {(f["path"], f["code"]) for f in run_check(repo)[1]["findings"]}


def test_keys_differ_by_bytes_and_by_every_part() -> None:
    key = FactsCache.key(b"steps: []\n", "a.yml", "a.yml", "buildkite")
    assert key == FactsCache.key(b"steps: []\n", "a.yml", "a.yml", "buildkite")
    others = {
        FactsCache.key(b"steps: [] \n", "a.yml", "a.yml", "buildkite"),
        FactsCache.key(b"steps: []\n", "b.yml", "a.yml", "buildkite"),
        FactsCache.key(b"steps: []\n", "a.yml", "b.yml", "buildkite"),
        FactsCache.key(b"steps: []\n", "a.yml", "a.yml", ""),
        FactsCache.key(b"steps: []\n", "a.yml", "a.ymlbuildkite", ""),
    }
    assert key not in others
    assert len(others) == 5


def test_a_pipeline_that_a_step_uploads_is_cached_too(
    repo: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file outside the linted paths that a step uploads is read on its own after
    the walk; a repeat run finds it in the cache as well."""
    deploy = repo / "deploy"
    deploy.mkdir()
    (deploy / "tests.yaml").write_text("- command: pytest tests/unit\n  soft_fail: true\n")
    (repo / ".buildkite" / "upload.yml").write_text(
        "steps:\n  - command: buildkite-agent pipeline upload deploy/tests.yaml\n"
    )
    first = run_check(repo, ".buildkite")
    assert ("deploy/tests.yaml", "DET401") in {(f["path"], f["code"]) for f in first[1]["findings"]}
    no_yaml_reading(monkeypatch)
    assert run_check(repo, ".buildkite") == first


def test_one_cache_serves_repeated_reads_in_one_process(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-lived process (an editor integration, a test suite) keeps one cache:
    entries stored by one reading are found by the next."""
    from detlint.readers.ci.pipelines import read_pipelines
    from detlint.readers.project.discovery import repository_files

    cache = FactsCache(tmp_path / "cache", "pipelines")
    files = [Path(name) for name in repository_files(repo)]
    first = read_pipelines(files, repo, repo, jobs=1, cache=cache)
    assert first.pipelines
    no_yaml_reading(monkeypatch)
    assert read_pipelines(files, repo, repo, jobs=1, cache=cache) == first


def test_parallel_runs_share_one_cache(repo: Path, cache_dir: Path) -> None:
    """pre-commit may start several detlint processes at once: each writes an entry
    under a name of its own and renames it, so none reads half an entry."""
    command = [sys.executable, "-m", "detlint", "check", "--output-format", "json"]
    expected = subprocess.run(
        [*command, "--no-cache"], cwd=repo, capture_output=True, text=True, check=False
    ).stdout
    runs = [
        subprocess.Popen(command, cwd=repo, stdout=subprocess.PIPE, text=True) for _ in range(4)
    ]
    outputs = [run.communicate()[0] for run in runs]
    assert all(json.loads(output) == json.loads(expected) for output in outputs)
    assert entries(cache_dir)
    assert not [entry for entry in entries(cache_dir) if entry.name.endswith(".tmp")]


def _aged(path: Path, now: float, age: float) -> None:
    os.utime(path, (now - age, now - age))


def test_entries_no_run_used_for_a_month_are_pruned_once_a_day(tmp_path: Path) -> None:
    cache = FactsCache(tmp_path, "pipelines")
    now = time.time()
    for key in ("old", "recent"):
        cache.put(key, {"facts": key})
    left_over = cache.directory / "partial.123.tmp"  # a writer that died
    left_over.write_bytes(b"")
    _aged(cache.directory / "old", now, MAX_AGE + 60)
    _aged(cache.directory / "recent", now, MAX_AGE - 3600)
    _aged(left_over, now, PRUNE_EVERY + 60)
    cache.prune(now)
    assert sorted(p.name for p in entries(tmp_path)) == ["recent"]
    # Another look within a day does nothing; a look a day later does.
    _aged(cache.directory / "recent", now, MAX_AGE + 60)
    cache.prune(now + PRUNE_EVERY - 60)
    assert [p.name for p in entries(tmp_path)] == ["recent"]
    cache.prune(now + PRUNE_EVERY + 60)
    assert entries(tmp_path) == []


def test_an_entry_a_run_reads_is_kept_another_month(repo: Path, cache_dir: Path) -> None:
    run_check(repo)
    stored = entries(cache_dir)
    assert stored
    now = time.time()
    for entry in stored:
        _aged(entry, now, MAX_AGE - 60)
    run_check(repo)  # reads every entry
    assert all(now - entry.stat().st_mtime < 60 for entry in stored)


def test_clean_removes_the_cache_and_nothing_else_there(repo: Path, cache_dir: Path) -> None:
    run_check(repo)
    stored = entries(cache_dir)
    assert stored
    (cache_dir / "notes").mkdir()  # not detlint's: left alone
    (cache_dir / "notes" / "todo.txt").write_text("keep")
    size = sum(entry.stat().st_size for entry in stored)
    assert size < 100_000  # a small cache is counted in KB
    runner = CliRunner()
    done = runner.invoke(cli, ["clean", "--cache-dir", str(cache_dir)])
    assert done.exit_code == 0
    assert done.output == (
        f"Removed {len(stored)} cache entries ({size / 1e3:.1f} KB) from {cache_dir}\n"
    )
    assert entries(cache_dir) == [cache_dir / "notes" / "todo.txt"]
    again = runner.invoke(cli, ["clean", "--cache-dir", str(cache_dir)])
    assert (again.exit_code, again.output) == (0, f"Nothing to remove in {cache_dir}\n")
