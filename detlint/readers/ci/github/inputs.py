"""What a job or step hands to a workflow or action that is not in the repository.

A job that calls a shared workflow from another repository (``uses: org/shared/
.github/workflows/custom-job.yaml@main``) or a step that uses an action often passes
it the commands to run and how to treat their failure as inputs:
``with: {script: ci/test.sh, continue-on-error: true}``, ``with: {test_command:
"hatch run test || hatch run test --lf"}``. detlint cannot read that workflow or
action, but the input names say what they are for, and a knob or a test run passed
that way hides failures as surely as one written in place. Inputs named like a
command (``script``, ``run``, ``test_command``...) are read as the commands the job
runs; inputs named like a knob (``continue-on-error``, ``soft-fail``...) with a true
value as that knob, with a note that says it was passed on. For a reusable workflow of
the repository, this module also reads what a caller hands it when it does not pass an
input (the declared defaults) and what it hands per entry of the caller's own matrix.
"""

from __future__ import annotations

from collections.abc import Iterator

from detlint.readers.ci.facts import CiCommand, CiKnob, EnvSetting
from detlint.readers.ci.yaml_spans import key_name, yaml_knob
from detlint.readers.yaml.tree import YMap, YNode, YScalar, text_of

# Input names (lower case, "-" read as "_") whose value is shell text the callee runs.
_COMMAND_INPUTS = frozenset(
    {
        "script",
        "run",
        "command",
        "commands",
        "cmd",
        "test_command",
        "test_commands",
        "test_script",
        "test_cmd",
        "run_command",
        "run_tests",
        "test",
    }
)
# Input names whose true value lets the callee's failure pass.
_SOFT_INPUTS = frozenset(
    {"continue_on_error", "soft_fail", "allow_failure", "fail_ok", "ignore_failure"}
)


def _normal(name: str) -> str:
    return name.lower().replace("-", "_")


def input_commands(
    with_: YNode | None,
    path: str,
    knobs: tuple[CiKnob, ...],
    env: tuple[EnvSetting, ...],
    working_dir: str | None,
) -> Iterator[CiCommand]:
    """The command-like inputs of ``with:``, each a command the callee runs (in bash
    with errexit, as GitHub runs a ``run:`` step, since the callee's shell is unseen)."""
    if not isinstance(with_, YMap):
        return
    for key, value in with_.items:
        if _normal(key_name(key)) in _COMMAND_INPUTS and isinstance(value, YScalar):
            text = text_of(value)
            if text and text.strip() and not isinstance(value.value, bool):
                span = value.position.span(path)
                yield CiCommand(text, span, True, False, knobs, env, working_dir, block=value.block)


def input_knobs(with_: YNode | None, where: str, path: str, callee: str) -> Iterator[CiKnob]:
    """Knob-like inputs with a true value: a ``continue-on-error`` passed to ``callee``."""
    if not isinstance(with_, YMap):
        return
    for key, value in with_.items:
        name = key_name(key)
        if _normal(name) not in _SOFT_INPUTS or not isinstance(value, YScalar):
            continue
        on = value.value is True or (isinstance(value.value, str) and value.value.lower() == "true")
        unknown = isinstance(value.value, str) and "${{" in value.value
        if not on and not unknown:
            continue
        note = (
            f"passed to {callee}, which detlint does not read: taken as that "
            "workflow's or action's continue-on-error"
        )
        yield yaml_knob(
            "continue-on-error", "github", f"{where}.with.{name}", key, value, path,
            True if on else None, note=note,
        )  # fmt: skip


def input_defaults(root: YMap) -> tuple[tuple[str, object], ...]:
    """``on: {workflow_call: {inputs: {name: {default: ...}}}}``; an input with no
    default is absent when not passed (GitHub: the type's empty value)."""
    on = next((value for key, value in root.items if key_name(key) in ("on", "true")), None)
    call = on.get("workflow_call") if isinstance(on, YMap) else None
    inputs = call.get("inputs") if isinstance(call, YMap) else None
    if not isinstance(inputs, YMap):
        return ()
    found: list[tuple[str, object]] = []
    for key, spec in inputs.items:
        default = spec.get("default") if isinstance(spec, YMap) else None
        if isinstance(default, YScalar) and "${{" not in str(default.value):
            found.append((key_name(key), default.value))
        elif isinstance(spec, YMap):  # the type's empty value
            kind = text_of(spec.get("type"))
            found.append((key_name(key), {"boolean": False, "number": 0}.get(kind or "", "")))
    return tuple(found)


def pass_entries(
    node: YNode | None, entries: list[dict[str, object]] | None
) -> tuple[tuple[tuple[str, object], ...], ...]:
    """The inputs of a job's ``with:`` for each of its matrix entries, when some of them
    read the matrix; an input whose value cannot be known is left out of an entry."""
    if not isinstance(node, YMap) or not entries:
        return ()
    written = [(key_name(k), v.value) for k, v in node.items if isinstance(v, YScalar)]
    if not any(isinstance(value, str) and "matrix." in value for _, value in written):
        return ()
    from detlint.readers.ci.github.expressions import Unknown, evaluate, parse_expression, unwrap

    found: list[tuple[tuple[str, object], ...]] = []
    for entry in entries:
        inputs: list[tuple[str, object]] = []
        for name, value in written:
            inner = unwrap(value) if isinstance(value, str) else None
            try:
                held = value if inner is None else evaluate(parse_expression(inner), entry)
            except Unknown:
                continue
            inputs.append((name, held))
        found.append(tuple(inputs))
    return tuple(found)
