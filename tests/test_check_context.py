"""``detlint check`` on some files of a repository (a pre-commit run, ``check tests/``):
the repository's pipelines are read for context, and what they say is reported
only where it involves a linted file."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_expectations import repository_copy, run_check

REPO = Path(__file__).parent / "fixtures" / "repos" / "ci_pipelines"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The CI fixture as a repository of its own (inside this one, its root would be ours)."""
    return repository_copy(REPO, tmp_path / "repo")


def codes(document: dict) -> list[tuple[str, str]]:
    return [(f["path"], f["code"]) for f in document["findings"]]


def test_a_test_file_alone_gets_the_stacked_retry_of_the_job_that_runs_it(repo: Path) -> None:
    status, document = run_check(repo, "tests/gpu/test_kernels.py")
    assert status == 1
    assert codes(document) == [
        (".buildkite/pipeline.yml", "DET501"),
        ("tests/gpu/test_kernels.py", "DET101"),
    ]
    (stacked,) = [f for f in document["findings"] if f["code"] == "DET501"]
    assert "tests/gpu/test_kernels.py::test_batch_invariance" in stacked["message"]
    assert any(related["path"] == "tests/gpu/test_kernels.py" for related in stacked["related"])
    # The same finding, word for word, as on the whole repository.
    _, whole = run_check(repo)
    assert stacked in whole["findings"]


def test_pipeline_findings_that_do_not_involve_the_file_stay_out(repo: Path) -> None:
    _, whole = run_check(repo)
    assert ("tests/unit/test_math.py", "DET431") not in codes(whole)  # located in the pipeline
    status, document = run_check(repo, "tests/unit/test_math.py")
    assert (status, document["findings"]) == (0, [])


def test_a_broken_pipeline_is_not_reported_on_a_run_over_tests(repo: Path) -> None:
    (repo / ".buildkite" / "broken.yml").write_text(
        "steps:\n  - command: pytest\n    soft_fail: [unclosed\n"
    )
    _, whole = run_check(repo)
    assert (".buildkite/broken.yml", "DET901") in codes(whole)
    _, document = run_check(repo, "tests/gpu/test_kernels.py")
    assert all(f["path"] != ".buildkite/broken.yml" for f in document["findings"])
    assert (".buildkite/pipeline.yml", "DET501") in codes(document)


def test_without_a_knob_in_the_linted_files_no_pipeline_is_read(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import detlint.readers.ci.pipelines as pipelines

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("pipelines read for a file without knobs")

    monkeypatch.setattr(pipelines, "read_pipelines", fail)
    status, document = run_check(repo, "tests/unit/test_math.py")
    assert (status, document["findings"]) == (0, [])


def test_findings_in_files_a_pipeline_includes_stay_out_too(repo: Path) -> None:
    (repo / "ci").mkdir()
    (repo / ".gitlab-ci.yml").write_text("include:\n  - local: ci/tests.yml\n")
    (repo / "ci" / "tests.yml").write_text(
        "gpu:\n  script:\n    - pytest tests/gpu\n  allow_failure: true\n"
    )
    _, whole = run_check(repo)
    assert ("ci/tests.yml", "DET401") in codes(whole)
    _, document = run_check(repo, "tests/gpu/test_kernels.py")
    assert {path for path, _ in codes(document)} == {
        ".buildkite/pipeline.yml",
        "tests/gpu/test_kernels.py",
    }


def test_a_pipeline_that_cannot_retry_is_not_read_for_context(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import detlint.readers.ci.pipelines as pipelines

    real = pipelines.read_pipelines
    read: list[str] = []

    def spy(files, *args, **kwargs):
        read.extend(path.name for path in files)
        return real(files, *args, **kwargs)

    monkeypatch.setattr(pipelines, "read_pipelines", spy)
    (repo / ".buildkite" / "lint.yml").write_text("steps:\n  - command: pytest --co tests\n")
    run_check(repo, "tests/gpu/test_kernels.py")
    assert "pipeline.yml" in read  # it retries jobs
    assert "lint.yml" not in read


def test_a_run_over_the_whole_tree_lists_no_context(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`detlint check` from the root read every pipeline already: no second listing."""
    import detlint.readers.ci.context as context

    calls: list[object] = []
    real = context.context_pipelines
    monkeypatch.setattr(
        context, "context_pipelines", lambda *a, **k: calls.append(a) or real(*a, **k)
    )
    (repo / ".buildkite" / "pipeline.yml").unlink()  # no YAML among the linted files
    (repo / ".github" / "workflows" / "ci.yml").unlink()
    (repo / ".gitlab-ci.yml").unlink()
    run_check(repo)
    run_check(repo, ".")
    assert calls == []
    run_check(repo, "tests")
    assert len(calls) == 1
