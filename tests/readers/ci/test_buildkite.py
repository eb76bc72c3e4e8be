"""The Buildkite reader: steps, commands, env and every soft_fail / retry / skip knob,
judged against a pytest test failure (exit status 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detlint.base.span import Span
from detlint.readers.ci.buildkite.pipeline import read_buildkite
from detlint.readers.ci.buildkite.upload import DEFAULT_UPLOAD_FILES, upload_paths
from detlint.readers.ci.facts import CiKnob, CiStep, PipelineFacts
from detlint.readers.yaml.load import read_yaml
from detlint.readers.yaml.tree import Position, YMap, YNode, YScalar, YSeq

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ci" / "buildkite"


def load(name: str) -> PipelineFacts:
    text = (FIXTURES / name).read_text()
    loaded = read_yaml(text, name)
    assert loaded.problems == ()
    return read_buildkite(loaded.documents, name)


def read_text(text: str) -> PipelineFacts:
    return read_buildkite(read_yaml(text, "p.yml").documents, "p.yml")


def step(facts: PipelineFacts, name: str) -> CiStep:
    (found,) = [s for s in facts.steps if s.name == name]
    return found


def only_knob(facts: PipelineFacts, name: str) -> CiKnob:
    (knob,) = step(facts, name).knobs
    return knob


def where(knob: CiKnob) -> tuple[int, int, int, int]:
    return (knob.span.line, knob.span.column, knob.span.end_line, knob.span.end_column)


# --- soft_fail ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def soft() -> PipelineFacts:
    return load("soft_fail.yml")


@pytest.mark.parametrize(
    ("name", "value", "covers"),
    [
        ("sf true", "true", True),
        ("sf string true", '"true"', True),
        ("sf exit 1", "[{exit_status: 1}]", True),
        ("sf star", '[{exit_status: "*"}]', True),
        ("sf 137", "[{exit_status: 137}]", False),
        ("sf 2 then 1", "[{exit_status: 2}, {exit_status: 1}]", True),
        ("sf interpolated", '"${SOFT}"', None),
    ],
)
def test_soft_fail_forms_and_whether_they_cover_exit_1(soft, name, value, covers):
    knob = only_knob(soft, name)
    assert (knob.kind, knob.key, knob.system) == ("soft-fail", "soft_fail", "buildkite")
    assert knob.value == value
    assert knob.covers_tests is covers
    assert knob.attempts is None


@pytest.mark.parametrize("name", ["sf false", "sf string false"])
def test_soft_fail_false_is_no_knob(soft, name):
    assert step(soft, name).knobs == ()


def test_soft_fail_on_other_statuses_says_test_failures_still_block(soft):
    note = only_knob(soft, "sf 137").note
    assert "137" in note
    assert "test failures (exit 1) still block" in note


def test_soft_fail_written_in_a_command_a_comment_or_env_is_not_a_knob(soft):
    plain = step(soft, "sf in text only")
    assert plain.knobs == ()
    assert [c.text for c in plain.commands] == ['echo "soft_fail: true" && pytest']


def test_soft_fail_span_runs_from_the_key_to_the_end_of_its_value(soft):
    # soft_fail:\n      - exit_status: 137  (lines 24-25; the value ends after "137")
    assert where(only_knob(soft, "sf 137")) == (24, 5, 25, 25)
    assert where(only_knob(soft, "sf true")) == (4, 5, 4, 20)
    # flow style keeps its closing brackets
    assert where(only_knob(soft, "sf 2 then 1")) == (28, 5, 28, 52)


@pytest.mark.parametrize(
    ("value", "covers"),
    [
        ("[]", False),
        ("[{exit_status: '1'}]", True),
        ("[{exit_status: 1}, {exit_status: -1}]", True),
        ("[{exit_status: 139}, {exit_status: 2}]", False),
        ("[{exit_status: $CODE}]", None),
        ("42", None),
    ],
)
def test_soft_fail_inline_forms(value, covers):
    facts = read_text(f"steps:\n  - command: pytest\n    soft_fail: {value}\n")
    (knob,) = facts.steps[0].knobs
    assert knob.covers_tests is covers


def test_soft_fail_null_is_no_knob():
    assert read_text("steps:\n  - command: pytest\n    soft_fail: ~\n").steps[0].knobs == ()


# --- retry.automatic ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def retry() -> PipelineFacts:
    return load("retry.yml")


@pytest.mark.parametrize(
    ("name", "covers", "attempts"),
    [
        ("auto true", True, 3),  # exit_status "*", limit 2
        ("single rule", True, 5),  # exit_status 1, limit 4
        ("agent lost then star", True, 4),  # -1 does not match exit 1; "*" limit 3 does
        ("agent lost only", False, None),  # -1 and 255: no rule matches
        ("signal only", False, None),  # signal kill / signal_reason agent_stop need a signal
        ("limit zero", False, 1),  # the first matching rule has limit 0; rule 2 never applies
        ("no limit", True, 3),  # exit_status [1, 2], default limit 2
        ("limit eleven", True, 12),
        ("unknown first", True, 2),  # either rule may apply; both give 2 runs
    ],
)
def test_first_matching_rule_decides_coverage_and_attempts(retry, name, covers, attempts):
    knob = only_knob(retry, name)
    assert (knob.kind, knob.key) == ("job-retry", "retry.automatic")
    assert knob.covers_tests is covers
    assert knob.attempts == attempts


@pytest.mark.parametrize("name", ["auto false", "manual only"])
def test_automatic_false_and_manual_retry_are_no_knob(retry, name):
    assert step(retry, name).knobs == ()


def test_retry_notes_explain_rules_that_miss_test_failures(retry):
    assert "exit status -1 (agent lost)" in only_knob(retry, "agent lost only").note
    assert "test failures are not retried" in only_knob(retry, "agent lost only").note
    assert "signal kill" in only_knob(retry, "signal only").note
    assert "limit 0" in only_knob(retry, "limit zero").note
    assert "rule 2 of 2" in only_knob(retry, "agent lost then star").note


def test_limit_above_ten_is_noted_as_invalid(retry):
    note = only_knob(retry, "limit eleven").note
    assert "limit 11" in note
    assert "maximum of 10" in note
    assert "maximum" not in only_knob(retry, "single rule").note


def test_retry_span_is_the_automatic_key_to_its_last_rule(retry):
    # automatic: on line 20, last rule's "limit: 3" ends at line 24 column 19
    assert where(only_knob(retry, "agent lost then star")) == (20, 7, 24, 19)
    assert where(only_knob(retry, "auto true")) == (5, 7, 5, 22)


@pytest.mark.parametrize(
    ("rule", "covers", "attempts"),
    [
        ("{exit_status: '*', signal: none, signal_reason: none}", True, 3),
        ("{exit_status: '*', signal: '*'}", True, 3),
        ("{exit_status: -1, signal_reason: agent_refused, limit: 3}", False, None),
        ("[{signal: [kill, none], limit: 1}]", True, 2),
        ("{exit_status: '1', limit: '4'}", True, 5),
        ("{exit_status: [-1, 255]}", False, None),
        ("{exit_status: 1, limit: -1}", None, None),
        ("[{exit_status: 2, limit: $N}, {exit_status: 1, limit: 1}]", True, 2),
        ("[{exit_status: '*', limit: '${N}'}]", None, None),
        ("[]", False, None),
    ],
)
def test_rule_conditions_against_exit_1_without_a_signal(rule, covers, attempts):
    facts = read_text(f"steps:\n  - command: pytest\n    retry:\n      automatic: {rule}\n")
    (knob,) = facts.steps[0].knobs
    assert (knob.covers_tests, knob.attempts) == (covers, attempts)


# --- steps, commands, env -------------------------------------------------------------------


@pytest.fixture(scope="module")
def structure() -> PipelineFacts:
    return load("structure.yml")


def test_every_step_in_order_with_names_from_label_key_or_index(structure):
    assert [s.name for s in structure.steps] == [
        ":pytest: unit",
        "lint",
        "step 3",
        "wait",
        "wait",
        "GPU tests / unit",
        "GPU tests / step 2",
        "CPU tests / unit",
        "matrix",
        "list matrix",
        "skipped",
        ":rocket: Release",
        "trigger deploy-pipeline",
        "uploads",
    ]
    assert all(s.system == "buildkite" and s.path == "structure.yml" for s in structure.steps)


def test_block_scalar_is_one_command_with_the_blocks_span(structure):
    (command,) = step(structure, ":pytest: unit").commands
    assert command.text == "pip install -e .\npytest tests/unit\n"
    assert (command.span.line, command.span.column) == (8, 14)
    assert (command.errexit, command.pipefail) == (True, False)


def test_command_list_gives_one_command_per_item_with_its_own_span(structure):
    commands = step(structure, "lint").commands
    assert [c.text for c in commands] == ["ruff check .", "mypy --strict src"]
    assert [c.span for c in commands] == [
        Span("structure.yml", 18, 9, 18, 21),
        Span("structure.yml", 19, 9, 19, 26),
    ]
    assert [c.text for c in step(structure, "step 3").commands] == ["pytest tests/smoke"]


def test_step_env_overrides_pipeline_env(structure):
    unit = step(structure, ":pytest: unit")
    env = {e.name: e.value for e in unit.env}
    assert env == {"PYTHONHASHSEED": "0", "CI": "buildkite", "PYTEST_ADDOPTS": "-p no:randomly"}
    (addopts,) = [e for e in unit.env if e.name == "PYTEST_ADDOPTS"]
    assert (addopts.span.line, addopts.span.column) == (13, 7)
    assert {e.name: e.value for e in step(structure, "lint").env}["CI"] == "true"


def test_parallelism_and_matrix_descriptions(structure):
    assert step(structure, ":pytest: unit").parallelism == 4
    assert step(structure, "lint").parallelism is None
    assert step(structure, "matrix").matrix == "matrix setup python\N{MULTIPLICATION SIGN}gpu"
    assert step(structure, "list matrix").matrix == "matrix: 3 entries"


def test_matrix_adjustments_are_knobs_for_one_entry(structure):
    soft_fail, skip = step(structure, "matrix").knobs
    assert (soft_fail.kind, soft_fail.key) == ("soft-fail", "matrix.adjustments[0].soft_fail")
    assert soft_fail.condition == "matrix entry python=3.12, gpu=h100"
    assert soft_fail.covers_tests is True
    assert (skip.kind, skip.key) == ("skip", "matrix.adjustments[1].skip")
    assert skip.condition == "matrix entry python=3.11, gpu=a100"


def test_group_skip_reaches_every_child_and_group_has_no_step(structure):
    for name in ("GPU tests / unit", "GPU tests / step 2"):
        (knob,) = step(structure, name).knobs
        assert (knob.kind, knob.key, knob.covers_tests) == ("skip", "skip", True)
        assert knob.span.line == 30  # the group's own skip key
    assert step(structure, "CPU tests / unit").knobs == ()  # skip: false
    assert not [s for s in structure.steps if s.name in ("GPU tests", "CPU tests")]


def test_step_skip_true_is_a_skip_knob(structure):
    (knob,) = step(structure, "skipped").knobs
    assert (knob.kind, knob.covers_tests, knob.value) == ("skip", True, "true")


def test_wait_continue_on_failure_is_listed_but_covers_no_test(structure):
    plain, continuing = [s for s in structure.steps if s.name == "wait"]
    assert (plain.knobs, plain.commands) == ((), ())
    (knob,) = continuing.knobs
    assert (knob.kind, knob.covers_tests) == ("continue-on-failure", False)
    assert knob.note == "the build still fails; later steps just run"
    assert where(knob) == (26, 5, 26, 30)


def test_trigger_soft_fail_and_block_step(structure):
    (knob,) = step(structure, "trigger deploy-pipeline").knobs
    assert knob.covers_tests is True
    assert "trigger" in knob.note
    assert step(structure, ":rocket: Release").commands == ()


def test_uploaded_pipeline_files_are_references(structure):
    assert structure.references == (".buildkite/gpu.yml", ".buildkite/release.yml")


def test_step_span_is_its_first_key(structure):
    assert step(structure, ":pytest: unit").span == Span("structure.yml", 6, 5, 6, 10)


def test_knobs_shared_through_anchors():
    text = (
        "policy: &policy\n"  # 1
        "  automatic: true\n"  # 2
        "steps:\n"  # 3
        "  - command: pytest a\n"  # 4
        "    retry: *policy\n"  # 5
        "    soft_fail: &sf [{exit_status: 1}]\n"  # 6
        "  - command: pytest b\n"  # 7
        "    soft_fail: *sf\n"  # 8
    )
    first, second = read_text(text).steps
    retry, soft_fail = first.knobs
    # the retry is written at the anchor, so that is where it is reported
    assert (retry.key, retry.span.line, retry.attempts) == ("retry.automatic", 2, 3)
    assert where(soft_fail) == (6, 5, 6, 38)
    # an alias's own extent is unknown: its knob spans just the key
    (aliased,) = second.knobs
    assert (where(aliased), aliased.covers_tests) == ((8, 5, 8, 14), True)


def test_type_key_decides_the_step_kind():
    facts = read_text("steps:\n  - type: wait\n    continue_on_failure: true\n")
    (wait,) = facts.steps
    assert wait.name == "wait"
    assert [k.kind for k in wait.knobs] == ["continue-on-failure"]


# --- override blocks ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mirror() -> PipelineFacts:
    return load("mirror.yml")


def test_override_block_gives_one_copy_per_platform(mirror):
    assert [(s.name, s.platform) for s in mirror.steps] == [
        ("kernels", None),
        ("kernels [amd]", "amd"),
        ("kernels [nvidia]", "nvidia"),
    ]


def test_base_step_keeps_only_its_own_knobs(mirror):
    (knob,) = step(mirror, "kernels").knobs
    assert (knob.key, knob.covers_tests, knob.platform) == ("soft_fail", False, None)


def test_platform_soft_fail_replaces_the_base_soft_fail(mirror):
    (knob,) = step(mirror, "kernels [amd]").knobs
    assert (knob.kind, knob.key, knob.platform) == ("soft-fail", "mirror.amd.soft_fail", "amd")
    assert knob.covers_tests is True
    assert where(knob) == (17, 9, 17, 24)


def test_platform_without_soft_fail_keeps_the_base_one_and_adds_its_retry(mirror):
    knobs = {k.key: k for k in step(mirror, "kernels [nvidia]").knobs}
    assert set(knobs) == {"soft_fail", "mirror.nvidia.retry.automatic"}
    retry = knobs["mirror.nvidia.retry.automatic"]
    assert (retry.platform, retry.covers_tests, retry.attempts) == ("nvidia", False, None)


def test_platform_copy_commands_and_env(mirror):
    amd, nvidia = step(mirror, "kernels [amd]"), step(mirror, "kernels [nvidia]")
    assert [c.text for c in amd.commands] == ["pytest tests/kernels"]
    assert [c.text for c in nvidia.commands] == ["nvidia-smi", "pytest tests/kernels --cuda"]
    assert {e.name: e.value for e in amd.env} == {"BACKEND": "rocm"}
    assert {e.name: e.value for e in nvidia.env} == {"BACKEND": "cpu"}
    assert (amd.span.line, amd.span.column) == (16, 7)


def test_plugins_agents_and_unrelated_mappings_are_not_override_blocks(mirror):
    # agents (flat tags), plugins (a list) and metadata.owner (no step keys) give no copies
    assert len(mirror.steps) == 3


# --- file shapes ----------------------------------------------------------------------------


def test_a_file_that_is_one_step():
    facts = load("single_step.yml")
    (only,) = facts.steps
    assert only.name == "only step"
    assert [k.attempts for k in only.knobs] == [3]


def test_a_bare_list_of_steps():
    facts = load("bare_list.yml")
    assert [s.name for s in facts.steps] == ["step 1", "wait", "second"]
    assert [k.covers_tests for k in step(facts, "second").knobs] == [True]


def test_odd_values_are_ignored_or_marked_unknown_never_raised():
    facts = load("odd.yml")
    first = step(facts, "42")
    assert [c.text for c in first.commands] == ["pytest", "nested", "list"]
    assert (first.env, first.parallelism, first.matrix) == ((), None, None)
    (soft_fail,) = first.knobs  # a single mapping is not a form Buildkite documents
    assert soft_fail.covers_tests is None
    assert only_knob(facts, "str retry").covers_tests is None
    assert step(facts, "step 10").knobs == ()  # skip: ""
    assert facts.steps[-1].name == "block"


def test_pipeline_upload_with_no_file_and_no_stdin_means_the_default_files():
    facts = read_text("steps:\n  - command: buildkite-agent pipeline upload\n")
    assert facts.references == DEFAULT_UPLOAD_FILES


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("buildkite-agent pipeline upload .buildkite/a.yml", [".buildkite/a.yml"]),
        ("/usr/bin/buildkite-agent pipeline upload a.yml --job 123", ["a.yml"]),
        ("buildkite-agent pipeline upload --job 123 a.yml", ["a.yml"]),
        ("buildkite-agent pipeline upload --format=yaml a.yml", ["a.yml"]),
        ("buildkite-agent pipeline upload < ci/steps.yml", ["ci/steps.yml"]),
        ("gen | buildkite-agent pipeline upload", []),
        ("buildkite-agent pipeline upload $PIPELINE", []),
        ("buildkite-agent pipeline upload --dry-run a.yml", []),
        ("echo buildkite-agent pipeline upload", []),
        ("set -e\nbuildkite-agent pipeline upload x.yml; echo ok", ["x.yml"]),
        ("# buildkite-agent pipeline upload commented.yml", []),
        ("buildkite-agent pipeline upload 'unterminated", ["'unterminated"]),
    ],
)
def test_upload_paths(command, paths):
    assert upload_paths(command) == paths


# --- robustness -----------------------------------------------------------------------------

_AT = Position(1, 1, 1, 2)
_KEYS = [
    "steps", "command", "commands", "label", "soft_fail", "retry", "automatic", "exit_status",
    "limit", "signal", "skip", "env", "matrix", "setup", "adjustments", "with", "group", "wait",
    "continue_on_failure", "trigger", "block", "parallelism", "mirror", "amd", "plugins", "type",
]  # fmt: skip
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-300, 300),
    st.sampled_from(["*", "true", "false", "wait", "", "$X", "none", "kill", "1"]),
    st.text(max_size=12),
).map(lambda value: YScalar(value, str(value), False, _AT))


def _node(children: st.SearchStrategy[YNode]) -> st.SearchStrategy[YNode]:
    keys = st.sampled_from(_KEYS).map(lambda key: YScalar(key, key, False, _AT))
    return st.one_of(
        st.lists(children, max_size=4).map(lambda items: YSeq(tuple(items), _AT)),
        st.lists(st.tuples(keys, children), max_size=5).map(lambda kv: YMap(tuple(kv), _AT)),
    )


_trees = st.recursive(_scalars, _node, max_leaves=40)


@given(st.lists(_trees, max_size=3))
def test_never_raises_on_any_tree(documents):
    facts = read_buildkite(tuple(documents), "p.yml")
    assert facts.system == "buildkite"
    for knob in (k for s in facts.steps for k in s.knobs):
        assert knob.covers_tests in (True, False, None)


def test_commands_keep_list_order_through_aliases():
    text = "setup: &setup [pip install .]\nsteps:\n  - commands: [echo start, *setup, pytest]\n"
    (only,) = read_text(text).steps
    assert [c.text for c in only.commands] == ["echo start", "pip install .", "pytest"]


def test_uploads_run_by_plugins_are_references():
    text = (
        "steps:\n"
        "  - label: diff\n"
        "    plugins:\n"
        "      - monorepo-diff#v1.0.0:\n"
        "          watch:\n"
        "            - path: gpu/\n"
        '              config: {command: "buildkite-agent pipeline upload .buildkite/gpu.yml"}\n'
        "            - path: cpu/\n"
        '              config: {command: "buildkite-agent pipeline upload .buildkite/cpu.yml"}\n'
    )
    facts = read_text(text)
    assert facts.references == (".buildkite/gpu.yml", ".buildkite/cpu.yml")
    assert facts.steps[0].commands == ()
