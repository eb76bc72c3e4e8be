"""GitHub Actions workflows and composite actions, read into ``PipelineFacts``.

A workflow job is what GitHub judges as one unit (its conclusion gates the
run), so each job is one ``CiStep``; each ``run:`` is one ``CiCommand`` with
the options of the shell GitHub starts for it. The knobs that hide a test
failure are ``continue-on-error`` (job or step), the retry actions that rerun a
command, and (informational) ``strategy.fail-fast: false``.

``continue-on-error: ${{ matrix.experimental }}`` is the documented way to
soft-fail only some matrix entries, so the matrix is expanded (lists, then
``exclude``, then ``include``, as GitHub does) and the expression is evaluated
for each entry: the knob then says which entries it hides. Anything the small
evaluator cannot decide (other contexts, functions) stays unknown (None).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from detlint.readers.ci.facts import (
    CiCommand,
    CiKnob,
    CiKnobKind,
    CiStep,
    EnvSetting,
    PipelineFacts,
)
from detlint.readers.ci.github.chains import AttemptStep, chain_commands
from detlint.readers.ci.github.contexts import job_level, resolved
from detlint.readers.ci.github.expressions import (
    Unknown,
    describe_entry,
    evaluate,
    expand_matrix,
    parse_expression,
    referenced_names,
    truthy,
    unwrap,
)
from detlint.readers.ci.github.inputs import (
    input_commands,
    input_defaults,
    input_knobs,
    pass_entries,
)
from detlint.readers.ci.github.matrix_readings import command_readings, entries_condition
from detlint.readers.ci.github.retry_actions import RetryAction, read_retry_action
from detlint.readers.ci.shell.wrappers import shell_options
from detlint.readers.ci.yaml_spans import env_settings, items_of, key_name, source_text, yaml_knob
from detlint.readers.yaml.tree import YMap, YNode, YScalar, YSeq, text_of


def read_github(documents: tuple[YNode, ...], path: str) -> PipelineFacts:
    """The jobs of a workflow file or the steps of a composite action (``action.yml``)."""
    root = next((doc for doc in documents if isinstance(doc, YMap)), None)
    out = _Collector(path)
    steps: list[CiStep] = []
    if root is not None and isinstance(root.get("jobs"), YMap):
        steps = _workflow(root, out)
    elif root is not None and isinstance(root.get("runs"), YMap):
        steps = _composite(root, out)
    facts = PipelineFacts(path, "github", tuple(steps), tuple(out.knobs), tuple(out.references))
    defaults = input_defaults(root) if root is not None else ()
    return dataclasses.replace(facts, input_defaults=defaults) if defaults else facts


@dataclass
class _Collector:
    path: str
    knobs: list[CiKnob] = field(default_factory=list)  # knobs on steps that run no shell command
    references: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Context:
    """What a step inherits from its job and workflow."""

    out: _Collector
    entries: list[dict[str, object]] | None  # the job's matrix entries; None when unknowable
    has_matrix: bool
    shell: str | None  # defaults.run.shell
    working_dir: str | None  # defaults.run.working-directory
    windows: bool  # runs-on names a Windows runner (default shell pwsh)
    env: tuple[EnvSetting, ...] = ()  # the workflow's and job's env, closest last


def _workflow(root: YMap, out: _Collector) -> list[CiStep]:
    jobs = root.get("jobs")
    assert isinstance(jobs, YMap)
    workflow_env = env_settings(root.get("env"), out.path)
    steps: list[CiStep] = []
    for key, job in jobs.items:
        if not isinstance(job, YMap):
            continue
        job_id = key_name(key)
        where = f"jobs.{job_id}"
        uses = text_of(job.get("uses"))
        if uses is not None and uses.startswith("./"):
            out.references.append(uses)  # a local reusable workflow runs in this job's place
        strategy = job.get("strategy")
        strategy = strategy if isinstance(strategy, YMap) else None
        matrix = strategy.get("matrix") if strategy is not None else None
        job_env = env_settings(job.get("env"), out.path)
        entries = expand_matrix(matrix)
        ctx = _Context(
            out,
            entries,
            matrix is not None,
            _default(job, root, "shell"),
            resolved(_default(job, root, "working-directory"), (*workflow_env, *job_env), entries),
            _is_windows(job.get("runs-on")),
            (*workflow_env, *job_env),
        )
        knobs = [
            job_level(knob, job_id, jobs) for knob in _maybe(_continue_on_error(job, where, ctx))
        ]
        if strategy is not None:
            knobs += _maybe(_fail_fast(strategy, f"{where}.strategy", out.path))
        names = {setting.name for setting in job_env}
        name = text_of(job.get("name"))
        commands = _steps(job.get("steps"), where, ctx)
        if uses is not None and not uses.startswith("./"):
            # A shared workflow of another repository: what its inputs say it runs.
            knobs += list(input_knobs(job.get("with"), where, out.path, f"`{uses}`"))
            commands += input_commands(job.get("with"), out.path, (), (), ctx.working_dir)
        steps.append(
            CiStep(
                "github",
                out.path,
                key.position.span(out.path),
                name if name is not None and "${{" not in name else job_id,
                tuple(commands),
                knobs=tuple(knobs),
                env=tuple(s for s in workflow_env if s.name not in names) + job_env,
                matrix=_describe_matrix(matrix, ctx.entries),
                calls=uses[2:] if uses is not None and uses.startswith("./") else None,
                passes=_passes(job.get("with")) if uses is not None else (),
                pass_entries=pass_entries(job.get("with"), ctx.entries) if uses else (),
            )
        )
    return steps


def _composite(root: YMap, out: _Collector) -> list[CiStep]:
    runs = root.get("runs")
    assert isinstance(runs, YMap)
    using = text_of(runs.get("using"))
    runs_key = root.key("runs")
    if using is None or using.lower() != "composite" or runs_key is None:
        return []  # a JavaScript or Docker action runs no shell commands we can read
    ctx = _Context(out, None, False, None, None, False)  # the caller's matrix is unknown
    name = text_of(root.get("name"))
    commands = _steps(runs.get("steps"), "runs", ctx)
    return [
        CiStep(
            "github", out.path, runs_key.position.span(out.path), name or out.path, tuple(commands)
        )
    ]


def _steps(node: YNode | None, where: str, ctx: _Context) -> list[CiCommand]:
    commands: list[CiCommand] = []
    if not isinstance(node, YSeq):
        return commands
    attempts: list[AttemptStep] = []  # one per step, for hand-written retry chains
    positions: dict[int, int] = {}  # index in attempts -> index in commands
    for index, step in enumerate(node.items):
        if not isinstance(step, YMap):
            continue
        here = f"{where}.steps[{index}]"
        own = _continue_on_error(step, here, ctx)
        knobs = _maybe(own)
        before = len(commands)
        env = env_settings(step.get("env"), ctx.out.path)
        step_if = text_of(step.get("if"))
        run = step.get("run")
        uses = text_of(step.get("uses"))
        if isinstance(run, YScalar) and text_of(run) is not None:
            errexit, pipefail = _shell_options(text_of(step.get("shell")) or ctx.shell, ctx.windows)
            written = text_of(step.get("working-directory"))
            working_dir = resolved(written, (*ctx.env, *env), ctx.entries) or ctx.working_dir
            span = run.position.span(ctx.out.path)
            text = text_of(run) or ""
            name = text_of(step.get("name"))
            readings = command_readings(text, (*ctx.env, *env), ctx.entries, step_if)
            commands.append(
                CiCommand(
                    text,
                    span,
                    errexit,
                    pipefail,
                    tuple(knobs),
                    env,
                    working_dir,
                    name=name,
                    readings=readings,
                    block=run.block,
                )
            )
        elif uses is not None:
            retry = read_retry_action(step, uses, here, ctx.out.path, ctx.windows)
            working_dir = text_of(step.get("working-directory")) or ctx.working_dir
            handed = list(
                input_commands(step.get("with"), ctx.out.path, tuple(knobs), env, working_dir)
            )
            if retry is not None:
                commands += _retried(retry, knobs, env, ctx, step_if)
            elif handed:  # an action handed the commands to run (test_command: ...)
                commands += handed
            else:
                _orphans(knobs, f"`uses: {uses}`", ctx.out)
        made = commands[before] if len(commands) == before + 1 else None
        if made is not None:
            positions[len(attempts)] = before
        step_id, condition = text_of(step.get("id")), step_if or ""
        attempts.append(AttemptStep(step_id, condition, made, own))
    for index, command in chain_commands(attempts).items():
        commands[positions[index]] = command
    return commands


def _orphans(knobs: list[CiKnob], what: str, out: _Collector) -> None:
    """Knobs on a step that runs no shell command we can read: kept at pipeline level."""
    note = f"on a step that runs {what}, not a shell command"
    for knob in knobs:
        out.knobs.append(
            dataclasses.replace(knob, note=f"{knob.note}; {note}" if knob.note else note)
        )


def _retried(
    retry: RetryAction,
    knobs: list[CiKnob],
    env: tuple[EnvSetting, ...],
    ctx: _Context,
    step_if: str | None,
) -> list[CiCommand]:
    """The command a retry action runs, with the action's knobs before the step's own."""
    wrapping = [*retry.knobs, *knobs]
    text = text_of(retry.command)
    if retry.command is None or text is None:
        _orphans(wrapping, retry.instead, ctx.out)
        return []
    return [
        CiCommand(
            text,
            retry.command.position.span(ctx.out.path),
            retry.errexit,
            retry.pipefail,
            tuple(wrapping),
            env,
            retry.working_dir,
            readings=command_readings(text, (*ctx.env, *env), ctx.entries, step_if),
            block=retry.command.block,
        )
    ]


def _continue_on_error(owner: YMap, where: str, ctx: _Context) -> CiKnob | None:
    """``continue-on-error`` of a job or step; an expression is judged per matrix entry."""
    node, key, path = owner.get("continue-on-error"), owner.key("continue-on-error"), ctx.out.path
    if node is None:
        return None
    name = f"{where}.continue-on-error"
    value = node.value if isinstance(node, YScalar) else None
    if value is True:
        return _knob("continue-on-error", name, key, node, path, True)
    if value is False:
        return None
    inner = unwrap(value) if isinstance(value, str) else None
    if inner is None:
        return _knob("continue-on-error", name, key, node, path, None, note="not a boolean")
    expression = " ".join(inner.split())
    try:
        tree = parse_expression(expression)
        names = referenced_names(tree)
        entries = ctx.entries if names else [{}]  # a constant needs no matrix
        if entries is None:
            raise Unknown
        hits = [index for index, entry in enumerate(entries) if truthy(evaluate(tree, entry))]
    except Unknown:
        return _knob("continue-on-error", name, key, node, path, None, condition=expression)
    if not hits:
        note = "true for no matrix entry" if ctx.has_matrix and names else "always false"
        return _knob("continue-on-error", name, key, node, path, False, note=note)
    if not ctx.has_matrix or not names:
        return _knob("continue-on-error", name, key, node, path, True)
    single = re.fullmatch(r"matrix\.([A-Za-z_][\w-]*)", expression)
    head = f"with {single.group(1)}=true" if single else f"where {expression}"
    # A flag (matrix.experimental) or a comparison (matrix.python == '3.12') names the
    # value it holds: the other keys tell the entries apart. A function of a value
    # (endsWith(matrix.python, '-dev')) does not: the value itself is shown.
    computed = re.search(r"[A-Za-z]\s*\(", expression) is not None
    described = [
        describe_entry(entries[index], set(), only=names)
        if computed
        else describe_entry(entries[index], names)
        for index in hits
    ]
    condition = entries_condition(head, described)
    note = f"{len(hits)} of {len(entries)} matrix entries"
    knob = _knob("continue-on-error", name, key, node, path, True, condition=condition, note=note)
    return dataclasses.replace(knob, entries=frozenset(hits))


def _fail_fast(strategy: YMap, where: str, path: str) -> CiKnob | None:
    node = strategy.get("fail-fast")
    value = node.value if isinstance(node, YScalar) else None
    if node is None or value is True:
        return None
    note = "one failing matrix job no longer cancels the others"
    condition = None if value is False else text_of(node)
    return _knob(
        "fail-fast-off", f"{where}.fail-fast", strategy.key("fail-fast"), node, path, False,
        condition=condition, note=note,
    )  # fmt: skip


def _shell_options(shell: str | None, windows: bool) -> tuple[bool, bool]:
    """(errexit, pipefail) of the shell GitHub runs a ``run:`` step in.

    No ``shell:`` means ``bash -e {0}`` (no pipefail) on Linux and macOS and
    pwsh on Windows; ``shell: bash`` means ``bash --noprofile --norc -eo
    pipefail {0}``; ``sh`` means ``sh -e {0}``. A bash/sh template is read for
    ``-e``/``-o pipefail``; any other shell (pwsh, python, an expression) is
    taken as not masking a failure, since its pipes cannot be judged here.
    """
    if shell is None:
        return (True, True) if windows else (True, False)
    words = shell.split()
    if words == ["bash"]:
        return True, True
    if words == ["sh"]:
        return True, False
    if not words or words[0].rsplit("/", 1)[-1] not in ("bash", "sh"):
        return True, True
    return shell_options(words)


def _default(job: YMap, root: YMap, name: str) -> str | None:
    """``defaults.run.<name>`` of the job, else of the workflow."""
    for owner in (job, root):
        defaults = owner.get("defaults")
        run = defaults.get("run") if isinstance(defaults, YMap) else None
        value = text_of(run.get(name)) if isinstance(run, YMap) else None
        if value is not None:
            return value
    return None


def _is_windows(runs_on: YNode | None) -> bool:
    if isinstance(runs_on, YMap):
        runs_on = runs_on.get("labels")
    labels = items_of(runs_on)
    return any((text_of(label) or "").strip().lower().startswith("windows") for label in labels)


def _describe_matrix(matrix: YNode | None, entries: list[dict[str, object]] | None) -> str | None:
    if matrix is None:
        return None
    if entries is None:
        return source_text(matrix)
    shown = "; ".join(describe_entry(entry, set()) for entry in entries[:8])
    more = f"; and {len(entries) - 8} more" if len(entries) > 8 else ""
    return f"{len(entries)} {'entry' if len(entries) == 1 else 'entries'}: {shown}{more}"


def _passes(node: YNode | None) -> tuple[tuple[str, bool | int | float | str], ...]:
    """The literal inputs of a job's ``with:`` (an expression is left out: unknown)."""
    if not isinstance(node, YMap):
        return ()
    found: list[tuple[str, bool | int | float | str]] = []
    for key, value in node.items:
        held = value.value if isinstance(value, YScalar) else None
        if isinstance(held, bool | int | float | str) and "${{" not in str(held):
            found.append((key_name(key), held))
    return tuple(found)


def _maybe(knob: CiKnob | None) -> list[CiKnob]:
    return [] if knob is None else [knob]


def _knob(
    kind: CiKnobKind,
    key_path: str,
    key: YScalar | None,
    value: YNode | None,
    path: str,
    covers: bool | None,
    *,
    condition: str | None = None,
    note: str = "",
) -> CiKnob:
    return yaml_knob(
        kind, "github", key_path, key, value, path, covers, condition=condition, note=note
    )
