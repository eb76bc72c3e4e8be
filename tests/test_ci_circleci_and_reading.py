"""CircleCI's automatic reruns are job retries, and a file is a pipeline of the system
its content names, not the one its name suggests: a GitLab pipeline called
``pipeline.yml`` is GitLab's, a CircleCI config is not a GitHub workflow, a conda
recipe is not a pipeline, and nothing inside a YAML comment is read."""

from __future__ import annotations

from repo_expectations import run_audit, run_check, written_repository

TEST = "def test_a():\n    assert True\n"

CIRCLECI = """\
version: 2.1
commands:
  unit:
    steps:
      - run:
          name: unit tests
          command: python -m pytest tests
          max_auto_reruns: 3
jobs:
  test:
    docker:
      - image: cimg/python:3.12
    steps:
      - checkout
      - unit
  lint:
    docker:
      - image: cimg/python:3.12
    steps:
      - run: ruff check .
workflows:
  main:
    max_auto_reruns: 2
    jobs:
      - test
      - lint
"""


def _ci_findings(tmp_path, files: dict[str, str]) -> list[dict]:
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    _, document = run_check(repo)
    return [f for f in document["findings"] if f["code"].startswith(("DET4", "DET5"))]


def test_circleci_step_and_workflow_reruns_are_job_retries(tmp_path):
    found = _ci_findings(tmp_path, {".circleci/config.yml": CIRCLECI})
    by_line = {f["line"]: f for f in found}
    step, workflow = by_line[8], by_line[23]
    assert step["code"] == workflow["code"] == "DET411"
    assert "up to 4 times" in step["message"]
    assert "tests/test_a.py" in step["message"]
    assert "up to 3 times" in workflow["message"]
    assert len(found) == 2


def test_the_audit_lists_both_circleci_reruns_as_findings(tmp_path):
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, ".circleci/config.yml": CIRCLECI})
    knobs = run_audit(repo)["ci"]["knobs"]
    assert {(k["system"], k["kind"], k["line"], k["verdict"]) for k in knobs} == {
        ("circleci", "job-retry", 8, "finding"),
        ("circleci", "job-retry", 23, "finding"),
    }


def test_a_gitlab_pipeline_named_pipeline_yml_is_read_as_gitlab(tmp_path):
    files = {
        ".gitlab/tioga/pipeline.yml": """\
            stages: [test]
            unit:
              stage: test
              script:
                - python -m pytest tests
              allow_failure: true
        """
    }
    (one,) = _ci_findings(tmp_path, files)
    assert one["code"] == "DET401"
    assert "allow_failure" in one["message"]


def test_a_conda_recipe_is_not_a_pipeline(tmp_path):
    files = {
        "packages/foo/meta.yaml": """\
            package:
              name: foo
            build:
              script: python -m pip install . && pytest tests || true
        """
    }
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    assert run_audit(repo)["ci"]["pipelines"] == []


def test_knobs_in_yaml_comments_are_not_read(tmp_path):
    files = {
        ".gitlab-ci.yml": """\
            unit:
              script:
                - python -m pytest tests
              # allow_failure: true
              # retry: 2
        """
    }
    assert _ci_findings(tmp_path, files) == []


def test_a_circleci_step_named_like_a_test_without_a_known_runner_is_not_judged(tmp_path):
    config = """\
version: 2.1
jobs:
  build:
    docker:
      - image: cimg/python:3.12
    steps:
      - run:
          name: smoke tests
          command: ./bin/app --self-check
          max_auto_reruns: 2
workflows:
  main:
    jobs:
      - build
"""
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, ".circleci/config.yml": config})
    (knob,) = run_audit(repo)["ci"]["knobs"]
    assert (knob["verdict"], knob["cause"]) == ("not-judged", "named-like-tests")
    assert "'smoke tests'" in knob["reason"]
