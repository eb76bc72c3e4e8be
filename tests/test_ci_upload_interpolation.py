"""A Buildkite command's text is interpolated when the pipeline is uploaded, before its
shell runs: ``$$`` and ``\\$`` leave one ``$``, a name the pipeline's ``env:`` sets takes
its value, and a variable the command sets itself does not exist yet, so it is emptied.
A saved status written ``exit $status`` is lost; ``exit $$status`` keeps it.
"""

from __future__ import annotations

import pytest
from repo_expectations import run_audit, run_check, written_repository

from detlint.readers.ci.buildkite.interpolation import uploaded

TEST = "def test_a():\n    assert True\n"


@pytest.mark.parametrize(
    ("text", "env", "shell", "emptied"),
    [
        ("pytest || status=$?; exit $status", {}, "pytest || status=$?; exit ", ("status",)),
        ("pytest || status=$$?; exit $$status", {}, "pytest || status=$?; exit $status", ()),
        ("pytest || rc=$?; exit \\$rc", {}, "pytest || rc=$?; exit $rc", ()),
        ("pytest || rc=$?; exit ${rc:-3}", {}, "pytest || rc=$?; exit 3", ("rc",)),
        ("for f in a b; do pytest $f; done", {}, "for f in a b; do pytest ; done", ("f",)),
        ("pytest $TESTS", {"TESTS": "tests/unit"}, "pytest tests/unit", ()),
        ("pytest ${TESTS}", {"TESTS": "tests/unit"}, "pytest tests/unit", ()),
        # Set elsewhere (pipeline settings, the agent): read at run time, as written.
        ("pytest $TEST_OPTS", {}, "pytest $TEST_OPTS", ()),
        ("BUILDKITE_X=1; echo $BUILDKITE_X", {}, "BUILDKITE_X=1; echo $BUILDKITE_X", ()),
        ("pytest; exit $?", {}, "pytest; exit $?", ()),
    ],
)
def test_the_text_a_step_shell_receives(text, env, shell, emptied):
    result = uploaded(text, env)
    assert (result.text, result.emptied) == (shell, emptied)


def _pipeline(tmp_path, pipeline: str) -> tuple[list[dict], dict]:
    repo = written_repository(
        tmp_path,
        {
            "tests/unit/test_a.py": TEST,
            "tests/e2e/test_b.py": TEST,
            ".buildkite/pipeline.yml": pipeline,
        },
    )
    _, document = run_check(repo)
    found = [f for f in document["findings"] if f["code"].startswith(("DET4", "DET5"))]
    return found, run_audit(repo)


SAVED = """\
    steps:
      - label: unit
        command: |
          pytest tests || status={dollar}?
          buildkite-agent artifact upload report.xml
          exit {dollar}status
    """


def test_a_saved_status_the_upload_empties_is_masked_and_the_message_says_why(tmp_path):
    (one,), _ = _pipeline(tmp_path, SAVED.format(dollar="$"))
    assert one["code"] == "DET431"
    assert "Buildkite replaces `$status` when the pipeline is uploaded" in one["message"]
    assert "write `$$status`" in one["message"]


def test_a_saved_status_escaped_with_double_dollar_is_deferred_not_hidden(tmp_path):
    found, audit = _pipeline(tmp_path, SAVED.format(dollar="$$"))
    assert found == []
    (knob,) = audit["ci"]["knobs"]
    assert (knob["kind"], knob["verdict"], knob["cause"]) == (
        "masked-status",
        "no-finding",
        "deferred",
    )
    assert "`|| status=$?` catches pytest's failure" in knob["reason"]


def test_the_pipeline_env_names_the_tests_a_step_runs(tmp_path):
    pipeline = """\
        env:
          SUITE: tests/e2e
        steps:
          - label: e2e
            command: pytest $SUITE || true
        """
    (one,), _ = _pipeline(tmp_path, pipeline)
    assert one["code"] == "DET431"
    assert "tests/e2e/test_b.py" in one["message"]
    assert "tests/unit" not in one["message"]
