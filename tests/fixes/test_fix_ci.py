"""Golden tests for the CI and config fixes: YAML keys and values, options, masked exits.

Each case under tests/fixtures/fixes/ci/<case>/ holds the file as detlint finds
it (before.<ext>) and, when the fix applies, the file as it must be after the
fix, written by hand (after.<ext>); a case without an after file must be
declined. The plan is built here the way the rules build it, with the span
located from the before text, so the tests measure the builders alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from detlint.base.span import Span
from detlint.fixes.edits import Declined, Edit, apply_edits
from detlint.fixes.option_edits import option_edits
from detlint.fixes.source_text import SourceText
from detlint.fixes.yaml_edits import yaml_edits
from detlint.rules.plans import RemoveKey, RemoveOptions, ReplaceValue, UnmaskExit

CASES = Path(__file__).parents[1] / "fixtures" / "fixes" / "ci"
INFRA = "[{exit_status: -1, limit: 2}, {exit_status: 255, limit: 2}]"
GITLAB = "{max: 2, when: [runner_system_failure, stuck_or_timeout_failure, api_failure]}"
RERUNS = ("--reruns", "--reruns-delay")

Plan = RemoveKey | ReplaceValue | RemoveOptions | UnmaskExit
Builder = Callable[[str, str], Plan]  # (path, decoded text) -> plan


def locate(path: str, text: str, needle: str, nth: int = 0) -> Span:
    """The span of the ``nth`` occurrence of ``needle`` (which may run over lines)."""
    needle = needle.replace("\n", "\r\n") if "\r\n" in text else needle
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    source = SourceText.decode(path, text.encode())
    line, column = source.position(index)
    end_line, end_column = source.position(index + len(needle))
    return Span(path, line, column, end_line, end_column)


def line_of(span: Span, whole: bool, text: str) -> Span:
    """A block scalar line's span (column 1 to 1), or a config line's whole span."""
    if whole:
        source = SourceText.decode(span.path, text.encode())
        begin, end = source.line_range(span.line)
        return Span.whole_line(span.path, span.line, text[begin:end])
    return Span(span.path, span.line, 1, span.line, 1)


def remove(key: str, needle: str, nth: int = 0) -> Builder:
    return lambda path, text: RemoveKey(
        "remove", "unsafe", None, locate(path, text, needle, nth), key
    )


def replace(key: str, needle: str, value: str) -> Builder:
    return lambda path, text: ReplaceValue(
        "replace", "unsafe", None, locate(path, text, needle), key, value
    )


def options(needle: str, mode: str = "span", names: tuple[str, ...] = RERUNS) -> Builder:
    def build(path: str, text: str) -> Plan:
        span = locate(path, text, needle)
        if mode != "span":
            span = line_of(span, mode == "whole", text)
        return RemoveOptions("options", "unsafe", None, span, names)

    return build


def unmask(needle: str, masked: str, mode: str = "span", system: str = "buildkite") -> Builder:
    def build(path: str, text: str) -> Plan:
        span = locate(path, text, needle)
        if mode != "span":
            span = line_of(span, False, text)
        return UnmaskExit("unmask", "unsafe", None, span, masked, system, None)

    return build


@dataclass(frozen=True)
class Case:
    build: Builder
    declined: str = ""  # a part of the reason, for a case that must be declined


SPECS: dict[str, Case] = {
    # DET401: soft fails, continue-on-error, allow_failure
    "bk_soft_fail_block": Case(remove("soft_fail", "soft_fail: true")),
    "bk_crlf_soft_fail": Case(remove("soft_fail", "soft_fail: true")),
    "bk_matrix_adjustment": Case(remove("soft_fail", "soft_fail: true")),
    "bk_first_key_of_item": Case(remove("soft_fail", "soft_fail: true", 1)),
    "bk_override_flow_first": Case(remove("soft_fail", "soft_fail: true")),
    "bk_override_block": Case(remove("soft_fail", "soft_fail: true", 1)),
    "bk_override_flow_last": Case(remove("soft_fail", "soft_fail: true", 2)),
    "bk_override_only_key": Case(remove("soft_fail", "soft_fail: true"), "only key"),
    "bk_soft_fail_list_value": Case(
        remove(
            "soft_fail", "soft_fail:\n      - exit_status: 1\n      # and\n      - exit_status: 2"
        )
    ),
    "gh_continue_job": Case(remove("continue-on-error", "continue-on-error: true")),
    "gh_continue_step": Case(remove("continue-on-error", "continue-on-error: true", 1)),
    "gh_bom_continue_step": Case(remove("continue-on-error", "continue-on-error: true", 1)),
    "gl_allow_failure": Case(remove("allow_failure", "allow_failure: true")),
    "gl_rules_allow_failure": Case(remove("allow_failure", "allow_failure: true", 1)),
    "anchor_merge_declined": Case(remove("soft_fail", "soft_fail: true"), "places"),
    "anchor_aliased_declined": Case(remove("soft_fail", "soft_fail: true"), "places"),
    "jinja_declined": Case(remove("soft_fail", "soft_fail: true"), "does not parse"),
    # DET411: retries
    "bk_retry_automatic_true": Case(replace("automatic", "automatic: true", INFRA)),
    "bk_crlf_retry": Case(replace("automatic", "automatic: true", INFRA)),
    "bk_retry_automatic_flow": Case(replace("automatic", "automatic: {limit: 2}", INFRA)),
    "bk_retry_automatic_block_list": Case(
        replace("automatic", 'automatic:\n        - exit_status: "*"\n          limit: 2', INFRA)
    ),
    "bk_retry_automatic_block_map": Case(
        replace("automatic", "automatic:  # was limit 2\n        limit: 2", INFRA)
    ),
    "gl_retry_int": Case(replace("retry", "retry: 2", GITLAB)),
    "gl_retry_flow": Case(replace("retry", "retry: {max: 2}", GITLAB)),
    "gl_retry_block": Case(replace("retry", "retry:\n    max: 2", GITLAB)),
    # DET421 / DET104: rerun options in commands, env values and config files
    "bk_reruns_quoted": Case(options("pytest tests --reruns=2")),
    "gh_reruns_plain": Case(options("pytest tests --reruns 3 --reruns-delay 2 -x || true")),
    "bk_reruns_block": Case(options("pytest tests --reruns=2", "line")),
    "bk_env_quoted": Case(options('"--reruns 3"')),
    "bk_env_plain": Case(options("OTHER_ADDOPTS: -ra --reruns 3")),
    "sh_reruns": Case(options("pytest --reruns 2 tests")),
    "ini_pytest": Case(options("addopts", "whole")),
    "ini_tox_empty": Case(options("addopts", "whole")),
    "cfg_continuation": Case(options("addopts", "whole")),
    "cfg_crlf": Case(options("addopts", "whole")),
    "toml_string": Case(options("addopts", "whole")),
    "toml_list_inline": Case(options("addopts", "whole")),
    "toml_list_last": Case(options("addopts", "whole")),
    "toml_list_multiline": Case(options("addopts", "whole")),
    "pytest_toml_list_all": Case(options("addopts", "whole")),
    # DET431: masked exits
    "gh_or_true": Case(unmask("pytest tests --reruns 3 --reruns-delay 2 -x || true", "`|| true`")),
    "gh_bom_or_true_crlf": Case(
        unmask("pytest tests --reruns 3 --reruns-delay 2 -x || true", "`|| true`")
    ),
    "gl_exit_0": Case(unmask("pytest tests || exit 0", "`|| exit 0`")),
    "bk_or_true_block": Case(unmask("pytest tests/more || true", "`|| true`", "line")),
    "bk_tee_pipefail": Case(unmask("pytest tests/slow | tee", "`| tee`", "line")),
    # a one-line GitHub command: `shell: bash` runs it with pipefail
    "gh_tee_one_line_shell_bash": Case(
        unmask("pytest tests | tee out.log", "`| tee`", system="github")
    ),
    "gh_tee_windows_declined": Case(
        unmask("pytest tests | tee out.log", "`| tee`", system="github"), "literal Linux or macOS"
    ),
    "gh_tee_default_shell_declined": Case(
        unmask("pytest tests | tee out.log", "`| tee`", system="github"), "default shell"
    ),
    "gh_set_e_declined": Case(unmask("set +e", "`set +e`", "line"), "set +e"),
}


def build_edits(plan: Plan, source: SourceText) -> tuple[Edit, ...]:
    if isinstance(plan, RemoveKey | ReplaceValue):
        return yaml_edits(plan, source)
    return option_edits(plan, source)


def _files(case: str) -> tuple[Path, Path | None]:
    before = next((CASES / case).glob("before.*"))
    after = before.with_name("after" + before.suffix)
    return before, after if after.exists() else None


def _load(case: str) -> tuple[SourceText, Plan, Path | None]:
    before, after = _files(case)
    path = f"{case}/{before.name}"
    source = SourceText.decode(path, before.read_bytes())
    return source, SPECS[case].build(path, source.text), after


def test_every_fixture_has_a_spec() -> None:
    assert sorted(path.name for path in CASES.iterdir()) == sorted(SPECS)


@pytest.mark.parametrize("case", sorted(SPECS))
def test_golden(case: str) -> None:
    source, plan, after = _load(case)
    if after is None:
        with pytest.raises(Declined, match=re.escape(SPECS[case].declined)):
            build_edits(plan, source)
        return
    assert not SPECS[case].declined
    edits = build_edits(plan, source)
    assert source.encode(apply_edits(source.text, edits)) == after.read_bytes()


@pytest.mark.parametrize("case", sorted(case for case in SPECS if not SPECS[case].declined))
def test_outside_the_edits_nothing_changes(case: str) -> None:
    """Every line no edit touches is kept byte for byte, line end included, and the
    edits stay on the lines the span points at or the value that follows it."""
    source, plan, _ = _load(case)
    edits = build_edits(plan, source)
    touched = {
        line
        for edit in edits
        for line in range(source.position(edit.start)[0], source.position(edit.end)[0] + 1)
    }
    new = apply_edits(source.text, edits)
    kept = [source.text[slice(*source.line_range(n))] for n in range(1, _count(source) + 1)]
    untouched = [text for number, text in enumerate(kept, 1) if number not in touched]
    assert all(text in new for text in untouched)
    assert min(touched) >= plan.span.line - 1


def _count(source: SourceText) -> int:
    return source.position(len(source.text))[0] - (source.text.endswith(("\n", "\r")))


def test_plain_value_left_empty_becomes_empty_string() -> None:
    text = "env:\n  PYTEST_ADDOPTS: --reruns 3  # none\n"
    source = SourceText.decode("p.yml", text.encode())
    plan = RemoveOptions("o", "unsafe", None, locate("p.yml", text, "--reruns 3"), RERUNS)
    new = apply_edits(text, option_edits(plan, source))
    assert new == 'env:\n  PYTEST_ADDOPTS: ""  # none\n'


def test_option_without_value_on_the_line_is_declined() -> None:
    text = "[pytest]\naddopts = -ra --reruns\n    3\n"
    source = SourceText.decode("pytest.ini", text.encode())
    plan = RemoveOptions("o", "unsafe", None, Span.whole_line("pytest.ini", 2), RERUNS)
    with pytest.raises(Declined, match="no value"):
        option_edits(plan, source)


def test_escaped_option_in_double_quotes_is_declined() -> None:
    text = 'steps:\n  - command: "pytest --reruns=\\u0032 tests"\n'
    source = SourceText.decode("p.yml", text.encode())
    plan = RemoveOptions("o", "unsafe", None, locate("p.yml", text, "pytest"), RERUNS)
    with pytest.raises(Declined):
        option_edits(plan, source)


# ------------------------------------------------------------- property test

_KEYS = ["label", "command", "soft_fail", "agents", "timeout_in_minutes", "artifact_paths"]
_VALUES = st.sampled_from(
    [
        "true",
        "x",
        '"quoted # not a comment"',
        "{queue: gpu}",
        "[a, b]",
        "\n      - exit_status: 1\n      - exit_status: 2",
        "\n      queue: gpu\n      os: linux",
        "|\n      echo one\n      echo two",
    ]
)


@st.composite
def _pipelines(draw: st.DrawFn) -> tuple[str, list[list[str]]]:
    steps = []
    lines = ["steps:"]
    for _ in range(draw(st.integers(1, 3))):
        keys = draw(st.lists(st.sampled_from(_KEYS), min_size=1, max_size=4, unique=True))
        steps.append(keys)
        for index, key in enumerate(keys):
            if draw(st.booleans()):
                lines.append("    # about " + key)
            value = draw(_VALUES)
            comment = "  # " + key if draw(st.booleans()) and "\n" not in value else ""
            lines.append(("  - " if index == 0 else "    ") + f"{key}: {value}{comment}")
    return "\n".join(lines) + "\n", steps


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_pipelines(), st.data(), st.booleans())
def test_remove_key_keeps_everything_else(
    pipeline: tuple[str, list[list[str]]], data: st.DataObject, crlf: bool
) -> None:
    text, steps = pipeline
    if crlf:
        text = text.replace("\n", "\r\n")
    step = data.draw(st.integers(0, len(steps) - 1))
    key = data.draw(st.sampled_from(steps[step]))
    nth = sum(keys.count(key) for keys in steps[:step])
    span = locate("p.yml", text, f"{key}:", nth)
    source = SourceText.decode("p.yml", text.encode())
    plan = RemoveKey("remove", "unsafe", None, span, key)
    reason = ""
    try:
        edits = yaml_edits(plan, source)
    except Declined as error:
        reason = str(error)
    if reason:
        assert len(steps[step]) == 1 or "comment" in reason, reason
        return
    new = apply_edits(text, edits)
    yaml = YAML(typ="safe", pure=True)
    old_data, new_data = yaml.load(text), yaml.load(new)
    del old_data["steps"][step][key]
    assert new_data == old_data

    def comments(text: str) -> list[str]:
        return [line for line in text.splitlines(keepends=True) if line.lstrip().startswith("#")]

    assert comments(new) == comments(text)
    if crlf:
        assert new.count("\n") == new.count("\r\n")


def _yaml_declined(text: str, plan: Plan) -> str:
    source = SourceText.decode("p.yml", text.encode())
    with pytest.raises(Declined) as error:
        build_edits(plan, source)
    return str(error.value)


def test_removing_an_anchor_an_alias_uses_is_declined() -> None:
    text = "a:\n  label: x\n  soft_fail: &sf true\nb:\n  label: y\n  soft_fail: *sf\n"
    plan = RemoveKey("r", "unsafe", None, locate("p.yml", text, "soft_fail: &sf"), "soft_fail")
    assert "would not load" in _yaml_declined(text, plan)


def test_removing_a_key_a_merge_also_sets_is_declined() -> None:
    text = (
        "base: &base {soft_fail: false, label: b}\n"
        "step:\n  <<: *base\n  soft_fail: true\n  command: pytest\n"
    )
    plan = RemoveKey("r", "unsafe", None, locate("p.yml", text, "soft_fail: true"), "soft_fail")
    assert "not change the document as intended" in _yaml_declined(text, plan)


def test_replacing_a_value_in_an_aliased_mapping_is_declined() -> None:
    text = (
        "steps:\n  - label: a\n    retry: &r\n      automatic: true\n  - label: b\n    retry: *r\n"
    )
    plan = ReplaceValue(
        "r", "unsafe", None, locate("p.yml", text, "automatic: true"), "automatic", INFRA
    )
    assert "places" in _yaml_declined(text, plan)


def test_ini_span_on_a_continuation_line() -> None:
    text = "[pytest]\naddopts =\n    -ra\n    --reruns 3\n"
    source = SourceText.decode("pytest.ini", text.encode())
    plan = RemoveOptions("o", "unsafe", None, Span.whole_line("pytest.ini", 4), RERUNS)
    assert apply_edits(text, option_edits(plan, source)) == "[pytest]\naddopts =\n    -ra\n"


def test_setup_cfg_pytest_section_is_declined() -> None:
    text = "[pytest]\naddopts = --reruns 3\n"
    source = SourceText.decode("setup.cfg", text.encode())
    plan = RemoveOptions("o", "unsafe", None, Span.whole_line("setup.cfg", 2), RERUNS)
    with pytest.raises(Declined, match="does not read"):
        option_edits(plan, source)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pytest --reruns 2 -x", "pytest -x"),
        ("pytest -x --reruns=2", "pytest -x"),
        ("pytest -x --reruns 2 --reruns-delay 1", "pytest -x"),
        ("pytest --reruns-delay=1 -x --reruns 2 tests", "pytest -x tests"),
        ("pytest --force-flaky --max-runs 3 -x", "pytest -x"),
    ],
)
def test_option_tokens_in_a_script(command: str, expected: str) -> None:
    text = f"#!/bin/sh\n{command}  # keep\n"
    source = SourceText.decode("run.sh", text.encode())
    names = (*RERUNS, "--force-flaky", "--max-runs")
    plan = RemoveOptions("o", "unsafe", None, locate("run.sh", text, command), names)
    assert apply_edits(text, option_edits(plan, source)) == f"#!/bin/sh\n{expected}  # keep\n"


def test_toml_span_on_an_item_line_of_the_array() -> None:
    text = '[tool.pytest.ini_options]\naddopts = [\n  "-ra",\n  "--reruns", "3",\n]\n'
    source = SourceText.decode("pyproject.toml", text.encode())
    plan = RemoveOptions("o", "unsafe", None, Span.whole_line("pyproject.toml", 4), RERUNS)
    new = apply_edits(text, option_edits(plan, source))
    assert new == '[tool.pytest.ini_options]\naddopts = [\n  "-ra",\n]\n'


def test_toml_span_on_another_key_is_declined() -> None:
    text = '[tool.pytest.ini_options]\naddopts = ["-ra"]\ntestpaths = ["--reruns", "3"]\n'
    source = SourceText.decode("pyproject.toml", text.encode())
    plan = RemoveOptions("o", "unsafe", None, Span.whole_line("pyproject.toml", 3), RERUNS)
    with pytest.raises(Declined, match="does not set"):
        option_edits(plan, source)


def test_pipefail_not_inserted_inside_a_continued_command() -> None:
    text = "steps:\n  - command: |\n      cd tests &&\n      pytest | tee log\n"
    plan = UnmaskExit("u", "unsafe", None, Span("p.yml", 4, 1, 4, 1), "`| tee`", "buildkite")
    assert "continues" in _yaml_declined(text, plan)
