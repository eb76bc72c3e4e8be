"""The census names the knobs a script writes around commands that run no tests:
``|| true`` on an install, ``set +e`` in a script without tests, a retry loop of
``curl``, a masked call that reaches no tests, in the step's text and in the scripts
it calls. Each says what it acts on and that it runs no tests; none is a finding, and
the same constructs around a test run stay findings."""

from __future__ import annotations

from repo_expectations import run_audit, run_check, written_repository

TEST = "def test_a():\n    assert True\n"

WORKFLOW = """\
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: |
          sudo apt-get remove -y foo || true
          for i in 1 2 3; do curl -fsSL https://example.com/x.sh -o x.sh && break; sleep 5; done
          until pg_isready -h localhost; do sleep 1; done
          docker pull img || docker pull img
          pytest tests
      - run: ./ci/upload.sh || echo "upload failed"
      - run: ./ci/setup.sh
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: |
          set +e
          ruff check .
          ruff format --check .
"""

SETUP = """\
#!/bin/bash
which ldconfig && ldconfig || true
for attempt in 1 2 3 4; do
  pip download pkg && break
done
"""

UPLOAD = "#!/bin/bash\naws s3 cp results s3://bucket/\n"


def _knobs(tmp_path, files: dict[str, str]) -> dict[tuple[str, int], dict]:
    repo = written_repository(tmp_path, {"tests/test_a.py": TEST, **files})
    document = run_audit(repo)
    return {(k["path"], k["line"]): k for k in document["ci"]["knobs"]}


def test_each_script_knob_around_a_command_without_tests_is_named_with_its_reason(tmp_path):
    knobs = _knobs(
        tmp_path,
        {
            ".github/workflows/ci.yml": WORKFLOW,
            "ci/setup.sh": SETUP,
            "ci/upload.sh": UPLOAD,
        },
    )
    path = ".github/workflows/ci.yml"
    expected = {
        (path, 7): ("masked-status", "|| true", "`apt-get`"),
        (path, 8): ("shell-retry", "for loop of 3 rounds", "`curl`"),
        (path, 9): ("shell-retry", "until loop", "`pg_isready`"),
        (path, 10): ("shell-retry", "|| docker", "`docker`"),
        (path, 12): ("masked-status", "|| echo ...", "`./ci/upload.sh`"),
        (path, 18): ("masked-status", "set +e", "no command of it runs tests"),
        ("ci/setup.sh", 2): ("masked-status", "|| true", "`ldconfig`"),
        ("ci/setup.sh", 3): ("shell-retry", "for loop of 4 rounds", "`pip`"),
    }
    for place, (kind, value, said) in expected.items():
        knob = knobs[place]
        assert (knob["kind"], knob["value"]) == (kind, value), place
        assert (knob["verdict"], knob["cause"]) == ("no-finding", "runs-no-tests"), place
        assert said in knob["reason"], knob["reason"]
        assert "no tests" in knob["reason"] or "no command of it runs tests" in knob["reason"]
    assert knobs[path, 8]["attempts"] == 3
    assert {knobs[place]["step"] for place in expected} == {"test", "lint"}
    assert knobs[path, 12]["reason"].endswith("not named like a test runner)")


def test_the_same_constructs_around_tests_stay_findings_and_are_not_doubled(tmp_path):
    workflow = """\
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: pytest tests || true
      - run: |
          for i in 1 2 3; do pytest tests && break; done
"""
    repo = written_repository(
        tmp_path, {"tests/test_a.py": TEST, ".github/workflows/ci.yml": workflow}
    )
    codes = {(f["line"], f["code"]) for f in run_check(repo)[1]["findings"]}
    assert (6, "DET431") in codes
    assert (8, "DET411") in codes
    knobs = run_audit(repo)["ci"]["knobs"]
    at_six = [k for k in knobs if k["line"] == 6]
    assert [(k["kind"], k["verdict"]) for k in at_six] == [("masked-status", "finding")]
    assert all(k["cause"] != "runs-no-tests" for k in knobs if k["line"] in (6, 8))


def test_a_script_without_any_such_construct_adds_no_knob(tmp_path):
    workflow = """\
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: |
          pip install -e .
          x=$(git describe --tags)
          while read f; do grep -q needle "$f" && break; done < files.txt
          for f in *.txt; do grep -q needle "$f" && break; done
          pytest tests
"""
    # Loops over input or files that stop at a match are searches, not retries.
    knobs = _knobs(tmp_path, {".github/workflows/ci.yml": workflow})
    assert knobs == {}


def test_a_programs_own_retry_option_is_named_with_its_attempts(tmp_path):
    workflow = """\
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: curl -fsSL --retry 5 https://example.com/install.sh -o install.sh
      - run: wget --tries=3 https://example.com/data.tgz
      - run: pytest tests
"""
    knobs = _knobs(tmp_path, {".github/workflows/ci.yml": workflow})
    path = ".github/workflows/ci.yml"
    curl, wget = knobs[path, 6], knobs[path, 7]
    assert (curl["kind"], curl["value"], curl["attempts"]) == ("shell-retry", "curl --retry 5", 6)
    assert (wget["value"], wget["attempts"]) == ("wget --tries 3", 3)
    assert {curl["cause"], wget["cause"]} == {"runs-no-tests"}
    assert len(knobs) == 2


def test_a_buildkite_agent_hooks_knobs_are_named_as_the_hooks(tmp_path):
    pipeline = "steps:\n  - label: unit\n    command: pytest tests\n"
    hook = "#!/bin/bash\nset -euo pipefail\nfind /tmp/artifacts -print || true\n"
    knobs = _knobs(
        tmp_path,
        {".buildkite/pipeline.yml": pipeline, ".buildkite/hooks/pre-command": hook},
    )
    knob = knobs[".buildkite/hooks/pre-command", 3]
    assert (knob["kind"], knob["cause"]) == ("masked-status", "runs-no-tests")
    assert knob["reason"].endswith("(agent hook)")
