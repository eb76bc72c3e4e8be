"""GitLab reader: includes, extends, default:, allow_failure and retry in every form."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detlint.base.span import Span
from detlint.readers.ci.facts import CiKnob, CiStep, PipelineFacts
from detlint.readers.ci.gitlab.pipeline import read_gitlab
from detlint.readers.yaml.load import read_yaml
from detlint.readers.yaml.tree import YNode

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = "tests/fixtures/ci/gitlab"
MAIN = f"{FIXTURES}/.gitlab-ci.yml"
INCLUDED = f"{FIXTURES}/ci/tests.yml"


def load_fixture_file(relative: str) -> tuple[YNode, ...] | None:
    """The engine's job: find an included file under the repository root."""
    file = ROOT / FIXTURES / relative
    if not file.is_file():
        return None
    parsed = read_yaml(file.read_text(), f"{FIXTURES}/{relative}")
    return parsed.documents


@pytest.fixture(scope="module")
def facts() -> PipelineFacts:
    parsed = read_yaml((ROOT / MAIN).read_text(), MAIN)
    assert parsed.problems == ()
    return read_gitlab(parsed.documents, MAIN, load_fixture_file)


def inline(text: str, files: dict[str, str] | None = None) -> PipelineFacts:
    def load(relative: str) -> tuple[YNode, ...] | None:
        source = (files or {}).get(relative)
        return None if source is None else read_yaml(textwrap.dedent(source), relative).documents

    return read_gitlab(
        read_yaml(textwrap.dedent(text), ".gitlab-ci.yml").documents, ".gitlab-ci.yml", load
    )


def job(facts: PipelineFacts, name: str) -> CiStep:
    return next(step for step in facts.steps if step.name == name)


def knob(step: CiStep, kind: str) -> CiKnob:
    found = [k for k in step.knobs if k.kind == kind]
    assert len(found) == 1, step.knobs
    return found[0]


def kinds(step: CiStep) -> list[str]:
    return [k.kind for k in step.knobs]


# --- which keys are jobs -------------------------------------------------------------------------


def test_jobs_are_the_non_reserved_visible_mappings(facts):
    assert [step.name for step in facts.steps] == [
        "integration",  # from the included file, merged first
        "unit",
        "chained",
        "allowed_false",
        "exit_one",
        "exit_oom",
        "ruled",
        "manual",
        "no_max",
        "too_many",
        "matrixed",
        "codes_only",
        "trigger_child",
    ]
    assert all(step.path == MAIN for step in facts.steps)


# --- includes ------------------------------------------------------------------------------------


def test_knobs_of_an_included_file_point_into_it(facts):
    integration = job(facts, "integration")
    assert integration.span == Span(INCLUDED, 1, 1, 1, 12)
    allow = knob(integration, "allow-failure")
    assert (allow.key, allow.span, allow.covers_tests) == (
        "integration.allow_failure",
        Span(INCLUDED, 3, 3, 3, 22),
        True,
    )
    retry = knob(integration, "job-retry")
    assert (retry.span, retry.attempts, retry.covers_tests) == (
        Span(INCLUDED, 4, 3, 4, 11),
        3,
        True,
    )
    assert integration.commands[-1].span == Span(INCLUDED, 6, 7, 6, 31)


def test_the_main_file_deep_merges_over_an_included_job(facts):
    unit = job(facts, "unit")
    assert unit.span == Span(MAIN, 36, 1, 36, 5)
    assert knob(unit, "job-retry").span == Span(INCLUDED, 9, 3, 9, 11)  # not the default: retry
    assert [c.text for c in unit.commands] == [
        "pip install -e .",
        "pytest -q tests/unit | tee unit.log",
        'echo "allow_failure: true"',
    ]
    assert [(e.name, e.value, e.span.path) for e in unit.env] == [
        ("TRIALS", "9", INCLUDED),
        ("SEED", "42", MAIN),
    ]


def test_every_include_is_a_reference(facts):
    assert facts.references == (
        "/ci/tests.yml",
        "https://example.com/ci/lint.yml",
        "project:group/shared:/templates/a.yml",
        "project:group/shared:/templates/b.yml",
        "template:Security/SAST.gitlab-ci.yml",
    )  # not ci/child.yml: a child pipeline (trigger: include:) is a pipeline of its own


def test_include_forms_cycles_and_failing_loaders():
    files = {
        "a.yml": "a_job: {script: pytest a, allow_failure: true}\ninclude: b.yml",
        "b.yml": "b_job: {script: pytest b, retry: 2}\ninclude: {local: /a.yml}",
    }
    facts = inline("include: a.yml\nmain: {script: pytest}\n", files)
    assert [s.name for s in facts.steps] == ["b_job", "a_job", "main"]
    assert knob(job(facts, "a_job"), "allow-failure").span.path == "a.yml"
    assert facts.references == ("a.yml", "b.yml", "/a.yml")

    def broken(relative: str) -> tuple[YNode, ...] | None:
        raise OSError(relative)

    documents = read_yaml(
        "include: [x.yml, 'ci/*.yml']\nj: {script: s}\n", "p/.gitlab-ci.yml"
    ).documents
    facts = read_gitlab(documents, "p/.gitlab-ci.yml", broken)
    assert [s.name for s in facts.steps] == ["j"]
    assert facts.references == ("x.yml", "ci/*.yml")
    assert read_gitlab(documents, "p/.gitlab-ci.yml").references == ("x.yml", "ci/*.yml")


def test_included_paths_are_shown_next_to_the_main_file():
    documents = read_yaml("include: {local: /ci/t.yml}\n", "repo/.gitlab-ci.yml").documents
    t = read_yaml("t: {script: s, allow_failure: true}\n", "ignored").documents
    facts = read_gitlab(documents, "repo/.gitlab-ci.yml", {"ci/t.yml": t}.get)
    assert knob(facts.steps[0], "allow-failure").span.path == "repo/ci/t.yml"


def test_spec_header_document_is_skipped():
    facts = inline(
        "spec:\n  inputs:\n    x: {}\n---\nj:\n  script: pytest\n  allow_failure: true\n"
    )
    assert kinds(job(facts, "j")) == ["allow-failure"]


# --- default:, extends, templates ----------------------------------------------------------------


def test_default_retry_is_a_pipeline_knob_and_reaches_inheriting_jobs(facts):
    (default_retry,) = facts.knobs
    assert (default_retry.key, default_retry.span) == ("default.retry", Span(MAIN, 19, 3, 19, 11))
    assert (default_retry.attempts, default_retry.covers_tests) == (2, True)
    assert knob(job(facts, "exit_one"), "job-retry") == default_retry
    assert knob(job(facts, "ruled"), "job-retry") == default_retry
    assert "job-retry" not in kinds(job(facts, "allowed_false"))  # retry: 0 replaces it
    assert "job-retry" not in kinds(job(facts, "manual"))  # inherit: default: false
    assert knob(job(facts, "no_max"), "job-retry").key == "no_max.retry"


def test_default_before_script_runs_first_and_after_script_never_counts(facts):
    unit = job(facts, "unit")
    assert unit.commands[0].text == "pip install -e ."
    assert unit.commands[0].span == Span(MAIN, 21, 7, 21, 23)
    assert not any("tests/after" in c.text for s in facts.steps for c in s.commands)
    assert [c.text for c in job(facts, "manual").commands] == ["pytest tests/e"]


def test_extends_chain_carries_the_template_knobs_with_their_spans(facts):
    chained = job(facts, "chained")
    allow, retry = chained.knobs
    assert (allow.key, allow.span) == (".base.allow_failure", Span(MAIN, 24, 3, 24, 22))
    assert (retry.key, retry.span, retry.attempts) == (".base.retry", Span(MAIN, 25, 3, 27, 25), 3)
    assert retry.covers_tests is True  # when: script_failure
    assert [c.text for c in chained.commands] == ["pip install -e .", "pytest tests/chained"]
    assert dict((e.name, e.value) for e in chained.env)["TRIALS"] == "50"  # from .deeper


def test_extends_list_later_wins_and_deep_merges():
    facts = inline(
        """\
        .a: {retry: {max: 2, when: runner_system_failure}, allow_failure: true}
        .b: {retry: {when: [script_failure]}}
        j: {extends: [.a, .b], script: pytest}
        loop: {extends: loop, script: x}
        """
    )
    retry = knob(job(facts, "j"), "job-retry")
    assert (retry.attempts, retry.covers_tests) == (3, True)  # max from .a, when from .b
    assert kinds(job(facts, "loop")) == []


# --- allow_failure -------------------------------------------------------------------------------


def test_allow_failure_forms(facts):
    assert job(facts, "allowed_false").knobs == ()
    one = knob(job(facts, "exit_one"), "allow-failure")
    assert (one.covers_tests, one.span, one.value) == (
        True,
        Span(MAIN, 53, 3, 54, 20),
        "{exit_codes: [1]}",
    )
    oom = knob(job(facts, "exit_oom"), "allow-failure")
    assert (oom.covers_tests, oom.note) == (False, "allowed to fail on exit status 137 only")


def test_allow_failure_in_rules_carries_the_rule_condition(facts):
    rule = knob(job(facts, "ruled"), "allow-failure")
    assert rule.key == "ruled.rules[0].allow_failure"
    assert rule.span == Span(MAIN, 68, 7, 68, 26)
    assert (rule.condition, rule.covers_tests) == ('$CI_COMMIT_BRANCH == "main"', True)


def test_a_manual_job_may_fail_by_default_but_masks_no_automatic_result(facts):
    manual = knob(job(facts, "manual"), "allow-failure")
    assert (manual.key, manual.covers_tests, manual.optional) == ("manual.when", False, True)
    assert manual.note.startswith("the job is manual: it runs only when someone starts it")
    facts = inline("j: {when: manual, allow_failure: false, script: s}\n")
    assert job(facts, "j").knobs == ()
    explicit = knob(
        job(inline("j: {when: manual, allow_failure: true, script: s}\n"), "j"), "allow-failure"
    )
    assert (explicit.covers_tests, explicit.optional) == (False, True)


def test_allow_failure_in_rules_masks_unless_the_rule_makes_the_job_manual():
    facts = inline(
        """\
        j:
          script: pytest
          rules:
            - if: $NIGHTLY
              when: manual
              allow_failure: true
            - if: $CI_MERGE_REQUEST_ID
              allow_failure: true
        """
    )
    manual, automatic = job(facts, "j").knobs
    assert (manual.condition, manual.covers_tests, manual.optional) == ("$NIGHTLY", False, True)
    assert (automatic.covers_tests, automatic.optional) == (True, False)


def test_exit_codes_are_judged_against_the_status_the_jobs_tests_fail_with():
    # make turns pytest's 1 into 2: exit_codes [2] covers a failing `make test`.
    knobs = "allow_failure: {exit_codes: [2]}, retry: {max: 2, exit_codes: [2]}"
    make = inline(f"j: {{script: [make test], {knobs}}}\n")
    allow, retry = job(make, "j").knobs
    assert (allow.covers_tests, retry.covers_tests, retry.attempts) == (True, True, 3)
    plain = inline(f"j: {{script: [pytest], {knobs}}}\n")
    allow, retry = job(plain, "j").knobs
    assert (allow.covers_tests, retry.covers_tests) == (False, False)


def test_allow_failure_in_a_script_or_comment_is_not_a_knob(facts):
    assert "allow-failure" not in kinds(job(facts, "unit"))
    # unquoted, `- echo allow_failure: true` is a one-key mapping in the script list
    facts = inline("j:\n  script:\n    - echo allow_failure: true\n    - pytest\n")
    assert (kinds(job(facts, "j")), [c.text for c in job(facts, "j").commands]) == ([], ["pytest"])


# --- retry ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "attempts", "covers", "note"),
    [
        ("exit_oom", 3, False, "retries only on runner_system_failure"),
        ("no_max", 1, False, "no max (GitLab reads it as 0): the job is not retried"),
        ("too_many", 3, True, "retry 5 is invalid (GitLab allows 0, 1 or 2); read as 2"),
        ("matrixed", 3, True, ""),  # exit_codes [137, 1] includes 1
        (
            "codes_only",
            2,
            False,
            "retries only on exit status 137",
        ),  # exit_codes alone: no `always`
    ],
)
def test_retry_forms(facts, name, attempts, covers, note):
    retry = knob(job(facts, name), "job-retry")
    assert (retry.attempts, retry.covers_tests, retry.note) == (attempts, covers, note)
    assert retry.key == f"{name}.retry"


def test_retry_odd_values():
    facts = inline(
        """\
        a: {retry: {max: 0, when: always}, script: s}
        b: {retry: true, script: s}
        c: {retry: {max: x}, script: s}
        d: {retry: {max: 1, when: script_failure, exit_codes: [x]}, script: s}
        e: {retry: {max: 1, when: api_failure, exit_codes: [x]}, script: s}
        f: {retry: [1], script: s}
        """
    )
    covers = {step.name: knob(step, "job-retry").covers_tests for step in facts.steps}
    assert covers == {"a": False, "b": None, "c": None, "d": True, "e": None, "f": None}


# --- commands, variables, parallel ---------------------------------------------------------------


def test_commands_run_with_errexit_and_pipefail(facts):
    commands = [c for step in facts.steps for c in step.commands]
    assert len(commands) == 25
    assert all(c.errexit and c.pipefail for c in commands)


def test_nested_lists_are_flattened_and_references_followed(facts):
    no_max = job(facts, "no_max")
    assert [(c.text, c.span) for c in no_max.commands] == [
        ("pytest tests/f", Span(MAIN, 85, 8, 85, 22)),
        ("pytest tests/g", Span(MAIN, 85, 24, 85, 38)),
        ("pytest tests/base", Span(MAIN, 29, 7, 29, 24)),  # !reference [.base, script]
    ]
    assert no_max.env == ()  # inherit: variables: false


def test_variables_with_value_mappings(facts):
    env = job(facts, "exit_one").env
    assert [(e.name, e.value) for e in env] == [("TRIALS", "5"), ("SEED", "42")]
    assert env[1].span == Span(MAIN, 13, 3, 15, 29)


def test_parallel_and_matrix(facts):
    assert job(facts, "too_many").parallelism == 3
    matrixed = job(facts, "matrixed")
    assert (matrixed.parallelism, matrixed.matrix) == (
        None,
        "5 jobs: PY=3.11|3.12, DB=pg|mysql; PY=3.13",
    )


def test_trigger_jobs_run_no_script_and_take_no_default_retry(facts):
    trigger = job(facts, "trigger_child")
    assert (trigger.commands, trigger.knobs) == ((), ())


# --- robustness ----------------------------------------------------------------------------------

_KEYS = st.sampled_from(
    [
        *("script", "before_script", "retry", "allow_failure", "extends", "rules", "when"),
        *("max", "if", "exit_codes", "variables", "inherit", "default", "include", "local"),
        *("parallel", "matrix", "trigger", ".t", "job", "value", "spec"),
    ]
)
_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 300), st.sampled_from([".t", "job", "always", "x"])
)
_TREES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=25,
)


@given(st.dictionaries(_KEYS, _TREES, max_size=6))
def test_any_shape_reads_without_raising(config):
    documents = read_yaml(json.dumps(config), "x.yml").documents
    facts = read_gitlab(documents, "x.yml", lambda relative: documents)
    assert isinstance(facts, PipelineFacts)
