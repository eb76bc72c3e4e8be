"""The shortcuts that keep linking a large CI setup cheap must give the answers of the
slow paths they replace: path arithmetic by strings, the audit's JSON writer, the shell
facts read along with each pipeline, and the second look at test files for trial loops."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from repo_expectations import run_check

from detlint.base.paths import display_path, displayer, relativer
from detlint.base.span import Span
from detlint.readers.ci.facts import (
    CiCommand,
    CiStep,
    PipelineFacts,
    pipeline_env_names,
    script_groups,
    script_key,
)
from detlint.readers.ci.pipelines import read_pipelines
from detlint.report.audit.indented_json import dumps_indented

NAMES = st.sampled_from(["a", "tests", "b.py", "..", ".", "", "x y", "ü"])
PATHS = st.lists(NAMES, min_size=1, max_size=4).map("/".join)
PLACES = st.sampled_from(["/", "/r", "/r/s", "/r/s/t", "/q"])


@given(PLACES, PLACES, PATHS)
def test_display_by_strings_is_display_path(root, cwd, path):
    assert displayer(Path(root), Path(cwd))(path) == display_path(Path(root) / path, Path(cwd))


@given(PLACES, PLACES, PATHS, st.booleans())
def test_relative_by_strings_is_relpath(root, cwd, path, absolute):
    written = os.path.join(cwd, path) if absolute else path
    expected = os.path.relpath(os.path.join(cwd, written), root).replace(os.sep, "/")
    assert relativer(Path(root), Path(cwd))(written) == expected


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=5)
    | st.sampled_from([float("inf"), float("-inf")]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(
            st.text(max_size=4) | st.integers() | st.booleans() | st.none() | st.floats(), inner
        )
    ),
    max_leaves=20,
)


@given(JSON)
def test_audit_json_writer_is_json_dumps_with_indent_2(value):
    assert dumps_indented(value) == json.dumps(value, indent=2)


def test_audit_json_writer_rejects_what_json_rejects():
    for value in ({"a": object()}, {(1, 2): 3}):
        try:
            json.dumps(value, indent=2)
        except TypeError:
            pass
        else:  # pragma: no cover - the cases above are not JSON
            raise AssertionError(value)
        try:
            dumps_indented(value)
        except TypeError:
            continue
        raise AssertionError(f"{value!r} was written")


def _step(*texts: str) -> CiStep:
    commands = tuple(CiCommand(text, Span("p.yml", 1, 1, 1, 1)) for text in texts)
    return CiStep("buildkite", "p.yml", Span("p.yml", 1, 1, 1, 1), "s", commands)


def test_long_options_are_not_variables_a_pipeline_sets():
    step = _step(
        "export KERNEL_TRIALS=3 && pytest --junitxml=out.xml --num-shards=4",
        'BATCH_TRIALS=2 pytest; echo "SEED_TRIALS=1" >> "$GITHUB_ENV"',
    )
    names = pipeline_env_names([PipelineFacts("p.yml", "buildkite", (step,))])
    assert names == {"KERNEL_TRIALS", "BATCH_TRIALS", "SEED_TRIALS"}


def test_pipelines_carry_the_shell_facts_of_every_script(tmp_path):
    pipeline = tmp_path / ".buildkite" / "pipeline.yml"
    pipeline.parent.mkdir()
    pipeline.write_text(
        textwrap.dedent("""\
        steps:
          - label: a
            commands: ["cd tests", "pytest -x || true"]
          - label: b
            command: pytest --reruns 2
        """)
    )
    (facts,) = read_pipelines([pipeline], tmp_path, tmp_path).pipelines
    keys = {script_key(group) for step in facts.steps for group in script_groups(step)}
    assert dict(facts.shell).keys() == keys
    masked = dict(facts.shell)[("cd tests\npytest -x || true", True, False)]
    assert [run.masked for run in masked.runs] == ["`|| true`"]


TRIALS_WITHOUT_KNOB = """\
import os

ROUNDS = int(os.environ.get("ROUNDS", "40"))


def test_reduction_order():
    for _ in range(ROUNDS):
        assert reduce_in_random_order() == EXPECTED
"""


def test_a_trial_loop_in_a_file_without_knob_tokens_counts_under_a_ci_knob(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_reduce.py").write_text(TRIALS_WITHOUT_KNOB)
    (tmp_path / "tests" / "test_plain.py").write_text("def test_plain():\n    pass\n")
    (tmp_path / ".buildkite").mkdir()
    (tmp_path / ".buildkite" / "pipeline.yml").write_text(
        "steps:\n  - command: pytest tests\n    soft_fail: true\n"
    )
    (tmp_path / "pyproject.toml").touch()
    _, document = run_check(tmp_path)
    (found,) = document["findings"]
    # The Python pass skips the file (no knob token, no variable the pipeline sets);
    # the soft fail still quotes its 40-trial test, read again for its loop.
    assert "test_reduce.py::test_reduction_order" in found["message"]
    assert found["numbers"]["trials"] == 40
