"""GitLab CI pipelines (``.gitlab-ci.yml`` and the files it includes) as ``PipelineFacts``.

Each job is one ``CiStep``; its knobs are ``allow_failure`` (on the job, for
``when: manual`` and in ``rules:``) and ``retry``. GitLab builds a job from
included files, ``extends:`` templates and the ``default:`` block before it
runs it; ``merge.py`` merges those the same way, keeping where each value
is written, so a knob's span points at the file and key that set it. This
module reads the merged jobs and follows ``!reference`` tags in scripts.

Scripts run under the runner's generated prologue ``if set -o | grep pipefail
> /dev/null; then set -o pipefail; fi; set -o errexit`` (gitlab-runner
``shells/bash.go``, ``BashWriter.Finish``), so every command gets errexit and,
in bash and any other shell that knows the option, pipefail. PowerShell jobs
are not told apart: their pipes cannot be judged, which is read as not masking.
"""

from __future__ import annotations

from collections.abc import Callable

from detlint.base.span import Span
from detlint.readers.ci.facts import (
    GENERATED_CHILD,
    PYTEST_FAILED,
    CiCommand,
    CiKnob,
    CiKnobKind,
    CiStep,
    EnvSetting,
    PipelineFacts,
)
from detlint.readers.ci.gitlab.merge import (
    LoadLocal,
    Merged,
    Tree,
    defaults,
    extended,
    inherits,
    load_config,
    strings_of,
)
from detlint.readers.ci.shell.exit_statuses import status_of
from detlint.readers.ci.yaml_spans import items_of, knob_span, source_text, yaml_knob
from detlint.readers.yaml.tree import YMap, YNode, YScalar, YSeq, text_of

RESERVED = frozenset(
    {"default", "include", "stages", "types", "variables", "workflow", "image", "services"}
    | {"cache", "before_script", "after_script", "spec"}
)
"""Top-level keys that are keywords, not jobs (``pages`` is a job)."""
_RETRIES_TESTS = ("always", "script_failure")  # retry:when values that match a failing test


def read_gitlab(
    documents: tuple[YNode, ...],
    path: str,
    load_local: LoadLocal | None = None,
    shown_base: str | None = None,
) -> PipelineFacts:
    """The jobs of a GitLab pipeline, with the files it includes merged in.

    ``references`` lists every include as written: a local path as given,
    ``remote`` URLs as given, others as ``template:<name>``,
    ``project:<project>:<file>`` and ``component:<address>``. Child pipelines
    (``trigger: include:``) are not references: they are separate pipelines,
    not merged into this one. Local includes are loaded through ``load_local``
    and shown as that path joined to ``shown_base``, the checkout root as displayed
    (by default the directory of ``path``, for a ``.gitlab-ci.yml`` at that root).
    ``PipelineFacts.knobs`` holds a ``default: retry`` once; every job that
    inherits it carries the same knob (same span) among its own knobs. A job's
    ``path`` is this pipeline; its span, like every knob's, is in the file
    where it is written.
    """
    config, references = load_config(documents, path, load_local, shown_base)
    default = defaults(config)
    default_retry = default.get("retry")
    shared = _retry_knob(default_retry) if default_retry is not None else None
    steps = []
    for name, val in config.items():
        if name in RESERVED or name.startswith(".") or not isinstance(val.node, dict):
            continue
        job = extended(name, config, ())
        steps.append(_job(name, val, job, config, default, shared, path))
    knobs = () if shared is None else (shared,)
    return PipelineFacts(path, "gitlab", tuple(steps), knobs, references)


def _job(
    name: str,
    val: Merged,
    job: Tree,
    config: Tree,
    default: Tree,
    shared: CiKnob | None,
    main: str,
) -> CiStep:
    trigger = job.get("trigger")
    if trigger is not None:  # runs a downstream pipeline: no script, no default:, no retry
        default = {}
    inherited = {k: v for k, v in default.items() if k not in job and inherits(job, "default", k)}
    effective = {**inherited, **job}
    commands: list[CiCommand] = []
    for part in ("before_script", "script"):  # after_script cannot change the job's status
        if part in effective and trigger is None:
            commands += _commands(effective[part], config, 0)
    status = status_of(commands, pipefail=True)
    knobs = _allow_failure(job, status)
    retry = effective.get("retry") if trigger is None else None
    if retry is not None:
        knob = shared if retry is default.get("retry") else _retry_knob(retry, status)
        knobs += [knob] if knob is not None else []
    parallel = job.get("parallel")
    count = _int(parallel.raw) if parallel is not None else None
    return CiStep(
        "gitlab",
        main,
        val.key.position.span(val.path) if val.key else Span.file(val.path),
        name,
        tuple(commands),
        knobs=tuple(knobs),
        env=_variables(job, config),
        parallelism=count,
        matrix=_matrix(parallel.node) if parallel is not None and count is None else None,
        calls=_child_pipeline(trigger),
        stage=text_of(effective["stage"].raw) if "stage" in effective else None,
    )


def _child_pipeline(trigger: Merged | None) -> str | None:
    """The local file of a child pipeline whose result is the job's (``trigger: {include:
    ci/child.yml, strategy: depend}``): its jobs carry the job's knobs. Without
    ``strategy: depend`` the job passes once the child starts, and the child's result
    is its own."""
    if trigger is None or not isinstance(trigger.node, dict):
        return None
    strategy = trigger.node.get("strategy")
    if strategy is None or text_of(strategy.raw) != "depend":
        return None
    include = trigger.node.get("include")
    if include is None:
        return None
    if isinstance(include.node, YScalar):
        return text_of(include.node)
    if isinstance(include.node, dict):
        local = include.node.get("local")
        return text_of(local.raw) if local is not None else None
    items = include.node.items if isinstance(include.node, YSeq) else [include.raw]
    for item in items:
        if isinstance(item, YMap) and isinstance(item.get("local"), YScalar):
            return text_of(item.get("local"))
        if isinstance(item, YMap) and isinstance(item.get("artifact"), YScalar):
            # Written by another job at run time: named, never read.
            return f"{GENERATED_CHILD}{text_of(item.get('artifact'))}"
        if isinstance(item, YScalar):
            return text_of(item)
    return None


def _commands(val: Merged, config: Tree, depth: int) -> list[CiCommand]:
    """One command per script line; nested lists flattened, ``!reference [a, b]`` followed."""
    if isinstance(val.node, YScalar):
        text = text_of(val.node)
        return [_command(text, val.node, val.path)] if text else []
    if not isinstance(val.node, YSeq) or depth > 10:
        return []
    commands: list[CiCommand] = []
    for item in val.node.items:
        if isinstance(item, YScalar) and text_of(item):
            commands.append(_command(text_of(item) or "", item, val.path))
        elif isinstance(item, YSeq):
            target = _reference(item, config)
            nested = target or Merged(None, item, item, val.path, val.where)
            commands += _commands(nested, config, depth + 1)
    return commands


def _command(text: str, node: YNode, path: str) -> CiCommand:
    block = isinstance(node, YScalar) and node.block
    return CiCommand(text, node.position.span(path), errexit=True, pipefail=True, block=block)


def _reference(item: YSeq, config: Tree) -> Merged | None:
    """What ``!reference [.job, key, ...]`` names, for a list whose first item is a top-level
    key (the loader keeps the tag's list as a plain nested list)."""
    parts = [text_of(part) for part in item.items]
    if len(parts) < 2 or parts[0] not in config:
        return None
    val: Merged | None = config[parts[0] or ""]
    for part in parts[1:]:
        val = val.node.get(part or "") if val is not None and isinstance(val.node, dict) else None
    return val


_MANUAL_NOTE = (
    "the job is manual: it runs only when someone starts it, so its failure masks no "
    "automatic result"
)


def _allow_failure(job: Tree, status: Callable[[], int]) -> list[CiKnob]:
    """The job's ``allow_failure`` and that of its ``rules:``. A manual job's (``when:
    manual``, where allow_failure defaults to true) masks nothing: the job is optional."""
    knobs: list[CiKnob] = []
    allow, when = job.get("allow_failure"), job.get("when")
    manual = when is not None and text_of(when.raw) == "manual"
    if allow is not None:
        knobs += _allow_knob(allow.key, allow.raw, allow.where, allow.path, None, status, manual)
    elif manual and when is not None:
        knobs.append(_knob("allow-failure", when, False, note=_MANUAL_NOTE, optional=True))
    rules = job.get("rules")
    if rules is None or not isinstance(rules.node, YSeq):
        return knobs
    for index, rule in enumerate(rules.node.items):
        if isinstance(rule, YMap) and rule.get("allow_failure") is not None:
            # rules:allow_failure replaces the job's value when that rule matches
            condition = text_of(rule.get("if")) or f"rule {index + 1} ({source_text(rule)})"
            where = f"{rules.where}[{index}].allow_failure"
            value = rule.get("allow_failure")
            rule_when = text_of(rule.get("when")) if rule.get("when") is not None else None
            optional = rule_when == "manual" or (rule_when is None and manual)
            knobs += _allow_knob(
                rule.key("allow_failure"), value, where, rules.path, condition, status, optional
            )
    return knobs


def _allow_knob(
    key: YScalar | None,
    node: YNode | None,
    where: str,
    path: str,
    condition: str | None,
    status: Callable[[], int],
    optional: bool = False,
) -> list[CiKnob]:
    """``allow_failure: true`` or ``{exit_codes: N | [N, ...]}``; ``false`` is no knob.
    ``status`` gives the exit status the job's tests fail with (make test: 2)."""
    if node is None or (isinstance(node, YScalar) and node.value is False):
        return []
    covers: bool | None = None
    note = ""
    if isinstance(node, YScalar) and node.value is True:
        covers = True
    elif isinstance(node, YMap):
        codes = _ints(node.get("exit_codes"))
        covers = None if codes is None else status() in codes
        shown = ", ".join(str(code) for code in codes or ())
        note = f"allowed to fail on exit status {shown} only" if codes else note
    else:
        note = "not a valid allow_failure value"
    if optional:
        covers, note = False, _MANUAL_NOTE
    val = Merged(key, node, node if not isinstance(node, YMap) else {}, path, where)
    return [_knob("allow-failure", val, covers, condition=condition, note=note, optional=optional)]


def _retry_knob(val: Merged, status: Callable[[], int] = lambda: PYTEST_FAILED) -> CiKnob | None:
    """``retry: N`` or ``{max, when, exit_codes}``; GitLab allows at most 2 retries.

    ``when`` defaults to ``always``, except that ``exit_codes`` alone retries
    those codes only; with both, either matching retries. Without ``max`` the
    job is not retried at all (max defaults to 0), which is kept as a knob that
    does not cover tests, since whoever wrote it meant a retry.
    """
    if isinstance(val.node, YScalar):
        count = _int(val.node)
        if count == 0:
            return None
        if count is None or count < 0:
            return _knob("job-retry", val, None, note="retry must be 0, 1 or 2")
        return _retries(val, count, True, "")
    if not isinstance(val.node, dict):
        return _knob("job-retry", val, None, note="not a valid retry value")
    fields = {name: item.raw for name, item in val.node.items()}
    count = _int(fields["max"]) if "max" in fields else 0
    when = strings_of(fields.get("when")) if "when" in fields else None
    codes = _ints(fields.get("exit_codes")) if "exit_codes" in fields else ()
    if when is None:
        when = ["always"] if "exit_codes" not in fields else []
    if count is None or count < 0:
        return _knob("job-retry", val, None, note="retry:max must be 0, 1 or 2")
    if count == 0:
        reason = "max: 0" if "max" in fields else "no max (GitLab reads it as 0)"
        return _knob("job-retry", val, False, attempts=1, note=f"{reason}: the job is not retried")
    covers = any(reason in when for reason in _RETRIES_TESTS) or (
        bool(codes) and status() in (codes or ())
    )
    if codes is None and not covers:
        return _retries(val, count, None, "exit_codes cannot be read")
    matched = [*when, *(f"exit status {code}" for code in codes or ())]
    note = "" if covers else f"retries only on {', '.join(matched) or 'nothing'}"
    return _retries(val, count, covers, note)


def _retries(val: Merged, count: int, covers: bool | None, note: str) -> CiKnob:
    if count > 2:
        clamp = f"retry {count} is invalid (GitLab allows 0, 1 or 2); read as 2"
        note, count = f"{note}; {clamp}" if note else clamp, 2
    return _knob("job-retry", val, covers, attempts=count + 1, note=note)


def _variables(job: Tree, config: Tree) -> tuple[EnvSetting, ...]:
    """Top-level ``variables:`` the job inherits, overridden by its own."""
    settings: dict[str, EnvSetting] = {}
    top, own = config.get("variables"), job.get("variables")
    for block, is_global in ((top, True), (own, False)):
        if block is None or not isinstance(block.node, dict):
            continue
        for name, val in block.node.items():
            if is_global and not inherits(job, "variables", name):
                continue
            value = val.node.get("value") if isinstance(val.node, dict) else val
            text = text_of(value.raw) if value is not None else None
            if text is not None or isinstance(val.raw, YScalar):
                settings[name] = EnvSetting(name, text or "", knob_span(val.key, val.raw, val.path))
    return tuple(settings.values())


def _matrix(node: YScalar | YSeq | dict[str, Merged]) -> str | None:
    """``parallel: matrix:`` as ``4 jobs: PY=3.11|3.12, DB=pg|mysql``."""
    matrix = node.get("matrix") if isinstance(node, dict) else None
    if matrix is None or not isinstance(matrix.raw, YSeq):
        return None
    total, shown = 0, []
    for entry in matrix.raw.items:
        if not isinstance(entry, YMap):
            continue
        count, parts = 1, []
        for key, value in entry.items:
            values = value.items if isinstance(value, YSeq) else (value,)
            count *= len(values)
            parts.append(f"{key.text}=" + "|".join(text_of(v) or source_text(v) for v in values))
        total += count
        shown.append(", ".join(parts))
    return f"{total} jobs: " + "; ".join(shown)


def _int(node: YNode | None) -> int | None:
    value = node.value if isinstance(node, YScalar) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _ints(node: YNode | None) -> tuple[int, ...] | None:
    """An exit code or a list of them; None when one of them is not an integer."""
    codes = tuple(_int(item) for item in items_of(node))
    return None if any(code is None for code in codes) else tuple(c for c in codes if c is not None)


def _knob(
    kind: CiKnobKind,
    val: Merged,
    covers: bool | None,
    *,
    attempts: int | None = None,
    condition: str | None = None,
    note: str = "",
    optional: bool = False,
) -> CiKnob:
    return yaml_knob(
        kind, "gitlab", val.where, val.key, val.raw, val.path, covers,
        attempts=attempts, condition=condition, note=note, optional=optional,
    )  # fmt: skip
