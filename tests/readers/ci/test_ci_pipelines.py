"""Which files are pipelines: by path, by content, and never a YAML file that is not one."""

from __future__ import annotations

from pathlib import Path

import pytest

from detlint.readers.ci.pipeline_files import system_by_content, system_by_path
from detlint.readers.ci.pipelines import read_pipelines
from detlint.readers.yaml.load import read_yaml


@pytest.mark.parametrize(
    ("path", "system"),
    [
        (".buildkite/pipeline.yml", "buildkite"),
        (".buildkite/nightly/gpu.yaml", "buildkite"),
        ("buildkite.yml", "buildkite"),
        ("ci/pipeline-nightly.yml", "buildkite"),
        (".github/workflows/ci.yml", "github"),
        ("tools/lint/action.yml", "github"),
        (".gitlab-ci.yml", "gitlab"),
        ("config/settings.yml", None),
        ("buildkite/test-template.j2", None),  # decided by content
        ("docs/workflows/ci.yml", None),
    ],
)
def test_system_by_path(path, system):
    assert system_by_path(path) == system


@pytest.mark.parametrize(
    ("text", "system"),
    [
        ("steps:\n  - command: pytest\n", "buildkite"),
        ("- command: pytest\n  soft_fail: true\n", "buildkite"),
        ("jobs:\n  test:\n    steps:\n      - run: pytest\n", "github"),
        ("unit:\n  script:\n    - pytest\n", "gitlab"),
        (".base:\n  retry: 2\nunit:\n  extends: .base\n", "gitlab"),
        ("name: x\nversion: 2\nretry: 3\n", None),
        ("- a\n- b\n", None),
        ("jobs: 4\n", None),
    ],
)
def test_system_by_content(text, system):
    assert system_by_content(read_yaml(text, "f.yml").documents) == system


def _write(root: Path, files: dict[str, str]) -> list[Path]:
    paths = []
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(path)
    return paths


def test_content_detection_finds_pipelines_outside_the_usual_places(tmp_path):
    paths = _write(
        tmp_path,
        {
            "ci/gpu/steps.yml.j2": (
                "steps:\n"
                "  - label: {{ name }}\n"
                "    command: pytest tests/gpu\n"
                "    soft_fail: true\n"
            ),
            "deploy/values.yaml": "replicas: 3\nretry: true\n",
            "docs/mkdocs.yml": "site_name: x\n",
        },
    )
    read = read_pipelines(paths, tmp_path, tmp_path)
    assert [(p.path, p.system) for p in read.pipelines] == [("ci/gpu/steps.yml.j2", "buildkite")]
    (step,) = read.pipelines[0].steps
    assert [k.kind for k in step.knobs] == ["soft-fail"]


def test_pipelines_without_a_knob_token_are_not_parsed(tmp_path):
    paths = _write(tmp_path, {".buildkite/pipeline.yml": "steps:\n  - command: [broken\n"})
    read = read_pipelines(paths, tmp_path, tmp_path)
    assert read.pipelines == ()
    assert read.problems == ()


def test_an_invalid_pipeline_with_a_knob_is_a_problem_not_a_crash(tmp_path):
    paths = _write(
        tmp_path,
        {".buildkite/pipeline.yml": "steps:\n  - command: pytest\n    soft_fail: [true\n"},
    )
    read = read_pipelines(paths, tmp_path, tmp_path)
    assert [p.span.path for p in read.problems] == [".buildkite/pipeline.yml"]


def test_invalid_yaml_that_is_not_a_pipeline_is_not_reported(tmp_path):
    paths = _write(tmp_path, {"config/app.yml": "retry: [unclosed\n"})
    read = read_pipelines(paths, tmp_path, tmp_path)
    assert read.pipelines == ()
    assert read.problems == ()


def test_gitlab_included_files_are_read_once_as_part_of_the_main_file(tmp_path):
    paths = _write(
        tmp_path,
        {
            ".gitlab-ci.yml": "include:\n  - local: ci/tests.yml\n",
            "ci/tests.yml": "unit:\n  script:\n    - pytest\n  retry: 2\n",
        },
    )
    read = read_pipelines(paths, tmp_path, tmp_path)
    assert [p.path for p in read.pipelines] == [".gitlab-ci.yml"]
    knobs = [k for step in read.pipelines[0].steps for k in step.knobs]
    assert [(k.kind, k.span.path, k.span.line) for k in knobs] == [("job-retry", "ci/tests.yml", 4)]
