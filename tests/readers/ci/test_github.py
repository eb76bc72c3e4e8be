"""GitHub Actions reader: jobs, shells, continue-on-error against the matrix, retry actions."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detlint.base.span import Span
from detlint.readers.ci.facts import CiCommand, CiKnob, CiStep, PipelineFacts
from detlint.readers.ci.github.expressions import (
    Unknown,
    evaluate,
    expand_matrix,
    parse_expression,
    truthy,
)
from detlint.readers.ci.github.workflow import read_github
from detlint.readers.yaml.load import read_yaml
from detlint.readers.yaml.tree import YMap

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = "tests/fixtures/ci/github"
MATRIX = f"{FIXTURES}/.github/workflows/matrix.yml"
RETRY = f"{FIXTURES}/.github/workflows/retry.yml"


def load(path: str) -> PipelineFacts:
    parsed = read_yaml((ROOT / path).read_text(), path)
    assert parsed.problems == ()
    return read_github(parsed.documents, path)


def inline(text: str, path: str = "wf.yml") -> PipelineFacts:
    return read_github(read_yaml(textwrap.dedent(text), path).documents, path)


def job(facts: PipelineFacts, name: str) -> CiStep:
    return next(step for step in facts.steps if step.name == name)


def only(knobs: tuple[CiKnob, ...], kind: str) -> CiKnob:
    found = [knob for knob in knobs if knob.kind == kind]
    assert len(found) == 1, knobs
    return found[0]


def command(step: CiStep, text: str) -> CiCommand:
    return next(c for c in step.commands if c.text.startswith(text))


# --- continue-on-error and the matrix ------------------------------------------------------------


def test_job_continue_on_error_names_the_matrix_entries_it_hides():
    knob = only(job(load(MATRIX), "test").knobs, "continue-on-error")
    assert knob.key == "jobs.test.continue-on-error"
    assert knob.span == Span(MATRIX, 10, 5, 10, 50)
    assert knob.value == "${{ matrix.experimental }}"
    assert knob.covers_tests is True
    assert knob.condition == "matrix entries with experimental=true: python=3.13, os=ubuntu-latest"
    assert knob.note.startswith("1 of 4 matrix entries; the job's own check run still fails")


def test_matrix_is_expanded_with_exclude_then_include():
    # macos/3.11 is excluded; {os: macos, label: mac} extends the remaining macos entry;
    # {python: 3.13, ...} contradicts every original entry, so it becomes a new one.
    assert job(load(MATRIX), "test").matrix == (
        "4 entries: python=3.11, os=ubuntu-latest, experimental=false; "
        "python=3.12, os=ubuntu-latest, experimental=false; "
        "python=3.12, os=macos-latest, experimental=false, label=mac; "
        "python=3.13, os=ubuntu-latest, experimental=true"
    )


def test_step_continue_on_error_comparison_is_judged_per_entry():
    step = command(job(load(MATRIX), "test"), "pytest -q slow/")
    knob = only(step.knobs, "continue-on-error")
    assert knob.key == "jobs.test.steps[2].continue-on-error"
    assert knob.span == Span(MATRIX, 40, 9, 40, 58)
    assert knob.covers_tests is True
    assert knob.condition == (
        "matrix entries where matrix.python == '3.12': os=ubuntu-latest, experimental=false; "
        "os=macos-latest, experimental=false, label=mac"
    )


def test_continue_on_error_false_is_no_knob_and_true_is():
    lint = job(load(MATRIX), "lint")
    assert command(lint, "ruff").knobs == ()
    knob = only(command(lint, "pytest --co").knobs, "continue-on-error")
    assert (knob.covers_tests, knob.condition, knob.span) == (
        True,
        None,
        Span(MATRIX, 51, 9, 51, 32),
    )
    assert lint.knobs == ()


def test_expression_true_for_no_entry_does_not_cover_tests():
    knob = only(job(load(MATRIX), "never").knobs, "continue-on-error")
    assert knob.covers_tests is False
    assert knob.note == "true for no matrix entry"


def test_other_contexts_and_computed_matrices_stay_unknown():
    unknown = job(load(MATRIX), "unknown")
    knob = only(unknown.knobs, "continue-on-error")
    assert (knob.covers_tests, knob.condition) == (None, "github.event_name == 'schedule'")
    step_knob = only(unknown.commands[0].knobs, "continue-on-error")
    assert (step_knob.covers_tests, step_knob.condition) == (None, "matrix.flaky")
    assert unknown.matrix == "${{ fromJSON(needs.plan.outputs.matrix) }}"


def test_fail_fast_false_is_an_informational_knob_and_true_is_none():
    knob = only(job(load(MATRIX), "test").knobs, "fail-fast-off")
    assert knob.key == "jobs.test.strategy.fail-fast"
    assert knob.span == Span(MATRIX, 14, 7, 14, 23)
    assert knob.covers_tests is False
    assert knob.note == "one failing matrix job no longer cancels the others"
    assert [k.kind for k in job(load(MATRIX), "unknown").knobs] == ["continue-on-error"]


@pytest.mark.parametrize(
    ("value", "covers", "note"),
    [
        ("'${{ true }}'", True, ""),
        ("'${{ false }}'", False, "always false"),
        ("'${{ matrix.experimental }}'", False, "always false"),  # no matrix: null
        ("yes", None, "not a boolean"),
    ],
)
def test_continue_on_error_values_without_a_matrix(value, covers, note):
    facts = inline(f"jobs:\n  j:\n    continue-on-error: {value}\n    steps: [{{run: pytest}}]\n")
    knob = only(job(facts, "j").knobs, "continue-on-error")
    # A job-level knob that hides failures also says what from (tested on its own).
    own = knob.note.partition("the job's own check run")[0].rstrip("; ")
    assert (knob.covers_tests, own, knob.condition) == (covers, note, None)


def test_matrix_of_includes_only_and_partial_excludes():
    facts = inline(
        """\
        jobs:
          j:
            continue-on-error: ${{ !matrix.stable }}
            strategy:
              matrix:
                include:
                  - {py: "3.12", stable: true}
                  - {py: "3.14", stable: false}
            steps: [{run: pytest}]
          k:
            continue-on-error: ${{ matrix.os == 'UBUNTU' && matrix.py > 3.11 }}
            strategy:
              matrix:
                os: [ubuntu, windows]
                py: [3.11, "3.12", 3.13]
                exclude: [{py: 3.13}]
            steps: [{run: pytest}]
        """
    )
    knob = only(job(facts, "j").knobs, "continue-on-error")
    assert knob.condition == "matrix entries where !matrix.stable: py=3.14"
    assert job(facts, "j").matrix == "2 entries: py=3.12, stable=true; py=3.14, stable=false"
    # strings compare case-insensitively; a string and a number compare as numbers
    knob = only(job(facts, "k").knobs, "continue-on-error")
    assert knob.condition.endswith(": os=ubuntu, py=3.12")
    assert knob.note.startswith("1 of 4 matrix entries; the job's own check run still fails")


# --- shells, working directories and env --------------------------------------------------------


def test_default_shell_has_no_pipefail_and_explicit_bash_has():
    test = job(load(MATRIX), "test")
    default = command(test, "pytest -q tests/")
    assert (default.errexit, default.pipefail, default.working_dir) == (True, False, None)
    assert default.span == Span(MATRIX, 31, 14, 31, 47)
    bash = command(test, "pytest -q slow/")
    assert (bash.errexit, bash.pipefail, bash.working_dir) == (True, True, "integration")
    assert [(e.name, e.value, e.span) for e in bash.env] == [
        ("SLOW", "1", Span(MATRIX, 36, 11, 36, 20))
    ]


def test_sh_defaults_windows_runner_and_env_precedence():
    facts = load(MATRIX)
    lint = job(facts, "lint")
    assert [(c.errexit, c.pipefail, c.working_dir) for c in lint.commands] == [
        (True, False, "src")
    ] * 2
    assert command(job(facts, "unknown"), "pytest").pipefail is True  # pwsh on windows-latest
    assert [(e.name, e.value) for e in job(facts, "test").env] == [
        ("PYTHONHASHSEED", "0"),
        ("TRIALS", "20"),
    ]
    assert [(e.name, e.value) for e in lint.env] == [("PYTHONHASHSEED", "0"), ("TRIALS", "5")]
    assert job(facts, "test").span == Span(MATRIX, 7, 3, 7, 7)
    assert job(facts, "test").name == "test"  # its name: has an expression


def test_shell_templates_and_defaults_levels():
    path = f"{FIXTURES}/.github/workflows/shells.yml"
    facts = load(path)
    (workflow_default,) = job(facts, "workflow_default").commands
    assert (workflow_default.pipefail, workflow_default.working_dir) == (True, "repo")
    options = [(c.errexit, c.pipefail, c.working_dir) for c in job(facts, "job_default").commands]
    assert options == [
        (True, False, "repo"),  # bash -e {0}
        (False, False, "repo"),  # bash {0}
        (False, True, "repo"),  # bash -o pipefail {0}
        (True, True, "repo"),  # python: not judged
        (True, True, "win"),  # pwsh: not judged
    ]


def test_local_reusable_workflows_are_references():
    facts = load(MATRIX)
    assert facts.references == ("./.github/workflows/reusable.yml",)
    assert job(facts, "call").commands == ()


# --- retry actions -------------------------------------------------------------------------------


def test_nick_fields_retry_counts_total_attempts_and_runs_bash_c():
    step = job(load(RETRY), "retry")
    first = command(step, "pytest -q tests/")
    assert first.span == Span(RETRY, 10, 20, 10, 36)
    assert (first.errexit, first.pipefail) == (False, False)  # bash -c: only the last line counts
    knob = only(first.knobs, "retry-action")
    assert (knob.attempts, knob.covers_tests, knob.key) == (
        4,
        True,
        "jobs.retry.steps[0].with.max_attempts",
    )
    assert knob.span == Span(RETRY, 9, 11, 9, 26)


def test_nick_fields_retry_on_timeout_and_other_exit_codes_do_not_cover_tests():
    step = job(load(RETRY), "retry")
    timeout = only(command(step, "pytest tests/integration").knobs, "retry-action")
    assert (timeout.attempts, timeout.covers_tests, timeout.note) == (3, False, "retry_on: timeout")
    assert timeout.key == "jobs.retry.steps[1].uses"  # upper case owner, sha ref, default attempts
    assert timeout.span == Span(RETRY, 11, 9, 11, 73)
    other = only(command(step, "pytest tests/collect").knobs, "retry-action")
    assert (other.attempts, other.covers_tests) == (2, False)
    assert other.note == "retries exit status 2 only"


def test_nick_fields_exit_code_one_and_its_own_continue_on_error():
    win = command(job(load(RETRY), "retry"), "pytest tests/win")
    retry = only(win.knobs, "retry-action")
    assert (retry.attempts, retry.covers_tests) == (3, True)  # max_attempts: "3" (quoted)
    soft = only(win.knobs, "continue-on-error")
    assert (soft.key, soft.covers_tests) == ("jobs.retry.steps[3].with.continue_on_error", True)
    assert (win.errexit, win.pipefail) == (True, True)  # pwsh is not judged
    assert [e.name for e in win.env] == ["TRIALS"]


def test_wretry_command_form():
    step = job(load(RETRY), "retry")
    network = command(step, "pytest tests/network")
    knob = only(network.knobs, "retry-action")
    assert (knob.attempts, knob.covers_tests, knob.key) == (
        5,
        True,
        "jobs.retry.steps[4].with.attempt_limit",
    )
    assert (network.working_dir, network.errexit, network.pipefail) == ("services", True, False)
    default = only(command(step, "pytest tests/default").knobs, "retry-action")
    assert (default.attempts, default.covers_tests) == (2, True)  # subdirectory form, default limit
    conditional = only(command(step, "pytest tests/cond").knobs, "retry-action")
    assert (conditional.covers_tests, conditional.condition) == (
        None,
        "steps._this.outputs.code == 0",
    )


def test_wretry_action_form_and_uses_steps_have_no_command():
    facts = load(RETRY)
    texts = [c.text for c in job(facts, "retry").commands]
    assert not any("setup-python" in text or "cache" in text for text in texts)
    # Not a retry action detlint knows: its `command:` input is read as what it runs
    # (once: its max_attempts is not taken as a retry count).
    assert "pytest tests/lookalike" in texts
    wrapped, cache = facts.knobs
    assert (wrapped.kind, wrapped.attempts, wrapped.span) == (
        "retry-action",
        3,
        Span(RETRY, 49, 11, 49, 27),
    )
    assert "actions/setup-python@v5" in wrapped.note
    assert (cache.kind, cache.covers_tests) == ("continue-on-error", True)
    assert cache.key == "jobs.retry.steps[8].continue-on-error"
    assert "`uses: actions/cache@v4`" in cache.note
    assert not any(
        k.kind == "retry-action" and k.attempts == 9
        for s in facts.steps
        for c in s.commands
        for k in c.knobs
    )


# --- composite actions ---------------------------------------------------------------------------


def test_composite_action_is_one_step_named_after_the_action():
    path = f"{FIXTURES}/.github/actions/run-tests/action.yml"
    (step,) = load(path).steps
    assert (step.name, step.span) == ("Run tests", Span(path, 3, 1, 3, 5))
    tee, flaky, retried, by_input = step.commands
    assert (tee.pipefail, flaky.pipefail, flaky.working_dir) == (True, False, "sub")
    assert only(flaky.knobs, "continue-on-error").key == "runs.steps[1].continue-on-error"
    assert only(retried.knobs, "retry-action").attempts == 2
    knob = only(by_input.knobs, "continue-on-error")
    assert (knob.covers_tests, knob.condition) == (None, "inputs.soft")


def test_javascript_action_and_unrelated_yaml_have_no_steps():
    assert load(f"{FIXTURES}/.github/actions/node/action.yml").steps == ()
    assert inline("name: x\non: push\n").steps == ()
    assert read_github((), "empty.yml") == PipelineFacts("empty.yml", "github", ())


# --- robustness and the expression evaluator -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "jobs: [a, b]",
        "jobs: {a: 1, b: [x], c: {steps: {run: x}}}",
        "jobs: {a: {steps: [1, [2], {run: [x]}, {uses: nick-fields/retry@v3, with: x}]}}",
        "jobs: {a: {steps: [{uses: 3, continue-on-error: true}, {run: 4, env: {A: [1]}}]}}",
        "jobs: {a: {strategy: x, continue-on-error: [1], env: [x], defaults: {run: 3}}}",
        "jobs: {a: {runs-on: {labels: 4}, name: [x], steps: [{run: x, shell: [1]}]}}",
        "jobs: {a: {strategy: {matrix: {include: 3, x: [1]}, fail-fast: '${{ x }}'}, steps: []}}",
        "jobs: {a: {continue-on-error: '${{ matrix.a[0] == (1 }}', strategy: {matrix: {a: [1]}}}}",
        "jobs: {a: {continue-on-error: '${{ matrix.a[0] }}', strategy: {matrix: {a: [[1], 2]}}}}",
        "jobs: {a: {steps: [{uses: wandalen/wretry.action@v1, with: {attempt_limit: x}}]}}",
        "jobs: {a: {steps: [{uses: Wandalen/wretry.action@v1, with: {command: [1]}}]}}",
        "runs: {using: composite, steps: 3}",
        "runs: [1]",
        "- 1",
    ],
)
def test_odd_shapes_never_raise(text):
    assert read_yaml(text, "wf.yml").documents  # the shape reaches the reader
    assert isinstance(inline(text), PipelineFacts)


_KEYS = st.sampled_from(
    [
        *("jobs", "steps", "run", "uses", "with", "strategy", "matrix", "include", "exclude"),
        *("continue-on-error", "fail-fast", "env", "defaults", "shell", "runs-on", "command"),
        *("max_attempts", "retry_on", "retry_on_exit_code", "attempt_limit", "action", "runs"),
        *("using", "name", "working-directory", "a", "continue_on_error", "retry_condition"),
    ]
)
_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 300),
    st.sampled_from(["nick-fields/retry@v3", "wandalen/wretry.action@v3", "composite", "bash"]),
    st.sampled_from(["${{ matrix.a }}", "${{ matrix.a == 1 || !matrix.b }}", "x", "timeout"]),
)
_TREES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=30,
)


@given(st.dictionaries(_KEYS, _TREES, max_size=5))
def test_any_shape_reads_without_raising(config):
    facts = read_github(read_yaml(json.dumps(config), "wf.yml").documents, "wf.yml")
    assert isinstance(facts, PipelineFacts)


def test_wrong_type_fail_fast_expression_is_kept_with_its_text():
    facts = inline("jobs:\n  a:\n    strategy:\n      fail-fast: ${{ github.ref == 'main' }}\n")
    knob = only(job(facts, "a").knobs, "fail-fast-off")
    assert knob.condition == "${{ github.ref == 'main' }}"


@pytest.mark.parametrize(
    ("expression", "entry", "expected"),
    [
        ("matrix.os == 'Ubuntu'", {"os": "ubuntu"}, True),
        ("matrix.python == 3.10", {"python": "3.10"}, True),
        ("matrix.python == '3.1'", {"python": 3.1}, True),  # a string and a number: as numbers
        ("matrix.python == 'abc'", {"python": 3.1}, False),  # 'abc' is NaN
        ("matrix.x != null", {}, False),
        ("matrix['node-version'] >= 18", {"node-version": 20}, True),
        ("!matrix.a || matrix.b", {"a": True, "b": ""}, False),
        ("matrix.a && 'yes'", {"a": 1}, True),
        ("matrix.cfg.name == 'x'", {"cfg": {"name": "X"}}, True),
        ("matrix.list[1] == 2", {"list": [1, 2]}, True),
        # functions of values the file decides (GitHub's docs: case-insensitive)
        ("contains(matrix.x, 'A')", {"x": "abc"}, True),
        ("contains(fromJSON('[\"a\", 2]'), matrix.x)", {"x": 2}, True),
        ("contains(fromJSON('[\"a\", 2]'), matrix.x)", {"x": 3}, False),
        ("endsWith(matrix.python, '-DEV') || false", {"python": "3.15-dev"}, True),
        ("startsWith(matrix.os, 'windows') && true", {"os": "ubuntu-latest"}, False),
        ("format('{0}-{1}', matrix.os, 'x') == 'Ubuntu-X'", {"os": "ubuntu"}, True),
        ("format('{{0}}', 1) == '{0}'", {}, True),
        ("join(matrix.l, '+') == 'a+b'", {"l": ["a", "b"]}, True),
        ("fromJSON('true')", {}, True),
    ],
)
def test_expression_semantics(expression, entry, expected):
    assert truthy(evaluate(parse_expression(expression), entry)) is expected


@pytest.mark.parametrize(
    "expression",
    [
        "github.ref == 'x'",
        "needs.build.result == 'success'",
        "success()",
        "hashFiles('x') != ''",
        "contains(matrix.x, 'a'",
        "matrix.",
        "matrix.a ==",
        "(true",
    ],
)
def test_expressions_outside_the_subset_are_unknown(expression):
    with pytest.raises(Unknown):
        parse_expression(expression)


def test_env_and_inputs_are_known_only_when_the_caller_knows_them():
    tree = parse_expression("inputs.soft || env.ALLOW == 'yes'")
    with pytest.raises(Unknown):
        evaluate(tree, {})
    assert evaluate(tree, {}, {"inputs": {"soft": False}, "env": {"allow": "YES"}}) is True


def test_matrix_limits_and_shapes():
    def matrix(text: str) -> list[dict[str, object]] | None:
        document = read_yaml(textwrap.dedent(text), "m.yml").documents[0]
        assert isinstance(document, YMap)
        return expand_matrix(document.get("matrix"))

    assert matrix("matrix: {a: [1, 2], b: [x]}") == [{"a": 1, "b": "x"}, {"a": 2, "b": "x"}]
    assert matrix("matrix:\n  a: ${{ fromJSON(x) }}") is None
    assert matrix("matrix: ${{ fromJSON(x) }}") is None
    assert matrix("matrix: {a: ['${{ x }}']}") is None
    assert matrix("matrix: {a: [1, 2], include: [{c: 3}]}") == [{"a": 1, "c": 3}, {"a": 2, "c": 3}]
    assert matrix("matrix: {a: [1, 2], exclude: [{a: 1}, {a: 2}]}") == []
    big = "matrix: {" + ", ".join(f"k{i}: [1, 2]" for i in range(9)) + "}"
    assert matrix(big) is None  # 512 combinations: more than GitHub allows
    assert expand_matrix(None) == [{}]
