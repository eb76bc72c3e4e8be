"""Reading a Buildkite pipeline file into ``PipelineFacts``.

Pipeline files are written by hand and by generators, and Buildkite's own
loader is lenient, so this reader accepts every documented spelling (a
``steps:`` list, a bare list, one step mapping; ``command`` or ``commands``;
string or mapping steps) and ignores what it does not understand instead of
raising: one odd file must not stop a repository's audit.

This module walks the steps (groups, wait, block, trigger and command steps),
their commands, environment and the per-platform copies a vendor override
block makes. Which keys are knobs is read in ``knobs.py``, how each acts
on a test failure in ``retry.py``, and which files a step uploads in
``upload.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from detlint.base.span import Span
from detlint.readers.ci.buildkite.interpolation import uploaded
from detlint.readers.ci.buildkite.knobs import (
    StepKnobs,
    continue_on_failure_knobs,
    knob_at,
    matrix_knobs,
    ordered,
    step_knobs,
)
from detlint.readers.ci.buildkite.retry import KnobSite, skip_knob, soft_fail_knob
from detlint.readers.ci.buildkite.upload import plugin_strings, upload_paths
from detlint.readers.ci.facts import CiCommand, CiKnob, CiStep, EnvSetting, PipelineFacts
from detlint.readers.ci.shell.exit_statuses import status_of
from detlint.readers.ci.yaml_spans import env_settings, key_name
from detlint.readers.yaml.tree import YMap, YNode, YScalar, YSeq, text_of

# Documented keys of every step type: never read as a vendor override block.
_STEP_KEY_NAMES = (
    "agents agent_query_rules allow_dependency_failure artifact_paths artifacts async "
    "blocked_state branches build cache cancel_on_build_failing checkout command commands "
    "concurrency concurrency_group concurrency_method depends_on env fields id identifier "
    "if if_changed image key label matrix name notify parallelism plugin plugins priority "
    "prompt retry secrets signature skip soft_fail timeout timeout_in_minutes trigger "
    "type allowed_teams block input wait waiter group steps continue_on_failure"
)
_STEP_KEYS = frozenset(_STEP_KEY_NAMES.split())

# Keys whose presence in `{<block>: {<platform>: {...}}}` marks a per-platform override.
_OVERRIDE_KEYS = frozenset({"soft_fail", "retry", "command", "commands", "env", "agents", "skip"})

_COMMAND_KEYS = ("command", "commands")
# Keys only a command step has, and keys that make a document one step of any type.
_COMMAND_STEP_KEYS = (*_COMMAND_KEYS, "plugins", "plugin")
_STEP_MARKERS = (*_COMMAND_STEP_KEYS, "trigger", "block", "input", "wait", "group")

_MAX_DEPTH = 4  # nested groups (Buildkite rejects them) and nested command lists


@dataclass(frozen=True)
class _Context:
    """What a step inherits: its group's name, the pipeline env, the group's skip."""

    prefix: str = ""
    env: tuple[EnvSetting, ...] = ()
    knobs: tuple[CiKnob, ...] = ()
    depth: int = 0


def read_buildkite(documents: tuple[YNode, ...], path: str) -> PipelineFacts:
    """Every step of a Buildkite pipeline file, with its knobs and the files it uploads."""
    reader = _Reader(path)
    for document in documents:
        reader.document(document)
    references = tuple(dict.fromkeys(reader.references))
    return PipelineFacts(path, "buildkite", tuple(reader.steps), (), references)


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path
        self.steps: list[CiStep] = []
        self.references: list[str] = []
        self.index = 0  # top-level steps seen so far, across documents

    def document(self, node: YNode) -> None:
        """A document is a pipeline (``steps:``), a bare list of steps, or one step."""
        if isinstance(node, YSeq):
            self._top_level(node.items, _Context())
        elif isinstance(node, YMap) and "steps" in node and "group" not in node:
            env = env_settings(node.get("env"), self.path)
            steps = node.get("steps")
            if isinstance(steps, YSeq):
                self._top_level(steps.items, _Context(env=env))
        elif isinstance(node, YMap) and _looks_like_step(node):
            self._top_level((node,), _Context())

    def _top_level(self, items: tuple[YNode, ...], context: _Context) -> None:
        for item in items:
            self.index += 1
            self._step(item, self.index, context)

    def _step(self, node: YNode, index: int, context: _Context) -> None:
        if isinstance(node, YScalar):
            self._string_step(node, context)
            return
        if not isinstance(node, YMap):
            return
        kind = _kind(node)
        if kind == "group":
            self._group(node, index, context)
        elif kind == "wait":
            self._wait(node, context)
        elif kind in ("block", "input", "trigger"):
            self._other(node, index, context, kind)
        else:
            self._command(node, index, context)

    def _string_step(self, node: YScalar, context: _Context) -> None:
        """``- wait``, ``- "block"``: a step with nothing to run."""
        word = node.value.strip().lower() if isinstance(node.value, str) else ""
        if word in ("wait", "waiter", "block", "input"):
            name = "wait" if word == "waiter" else word
            self.steps.append(self._bare_step(node.position.span(self.path), name, context, ()))

    def _bare_step(
        self, span: Span, name: str, context: _Context, knobs: tuple[CiKnob, ...]
    ) -> CiStep:
        return CiStep(
            system="buildkite",
            path=self.path,
            span=span,
            name=context.prefix + name,
            commands=(),
            knobs=ordered(context.knobs + knobs),
        )

    def _group(self, node: YMap, index: int, context: _Context) -> None:
        """A group has no soft_fail or retry of its own; its ``skip`` applies to each child."""
        if context.depth >= _MAX_DEPTH:
            return
        name = _first_text(node, ("group", "label", "name", "key", "identifier", "id"))
        prefix = f"{context.prefix}{name or f'step {index}'} / "
        skip = knob_at(node, "skip", KnobSite(self.path, "skip"), skip_knob, "set on the group")
        inner = _Context(prefix, context.env, context.knobs + skip, context.depth + 1)
        children = node.get("steps")
        if isinstance(children, YSeq):
            for child_index, child in enumerate(children.items, start=1):
                self._step(child, child_index, inner)

    def _wait(self, node: YMap, context: _Context) -> None:
        """A wait step; ``continue_on_failure`` lets later steps run, the build still fails."""
        knobs = continue_on_failure_knobs(node, self.path)
        self.steps.append(self._bare_step(_step_span(node, self.path), "wait", context, knobs))

    def _other(self, node: YMap, index: int, context: _Context, kind: str) -> None:
        """Block, input and trigger steps run no commands; a trigger can soft-fail."""
        keys: tuple[str, ...] = ("label", "name", kind, "key", "identifier", "id")
        if kind == "trigger":
            keys = ("label", "name", "key", "identifier", "id")
        name = _first_text(node, keys) or _trigger_name(node) or f"step {index}"
        knobs = knob_at(node, "skip", KnobSite(self.path, "skip"), skip_knob)
        if kind == "trigger":
            extra = "on a trigger step: a failed triggered build does not fail this build"
            site = KnobSite(self.path, "soft_fail")
            knobs += knob_at(node, "soft_fail", site, soft_fail_knob, extra)
        self.steps.append(self._bare_step(_step_span(node, self.path), name, context, knobs))

    def _command(self, node: YMap, index: int, context: _Context) -> None:
        """A command step, then one copy per platform of any vendor override block."""
        label = _first_text(node, ("label", "name", "key", "identifier", "id"))
        name = context.prefix + (label or f"step {index}")
        commands = _commands(node, self.path, context.env)
        knobs = step_knobs(node, self.path, "", None, status_of(commands))
        for matrix_knob in matrix_knobs(node.get("matrix"), self.path):
            knobs.add("matrix", matrix_knob)
        base = CiStep(
            system="buildkite",
            path=self.path,
            span=_step_span(node, self.path),
            name=name,
            commands=commands,
            knobs=ordered(context.knobs + tuple(knobs.all())),
            env=_merge_env(context.env, env_settings(node.get("env"), self.path)),
            # Not a Buildkite key, but pipeline generators (and the images they run in)
            # use it for where the commands start.
            working_dir=text_of(node.get("working_dir")),
            parallelism=_parallelism(node.get("parallelism")),
            matrix=_matrix_text(node.get("matrix")),
        )
        self.steps.append(base)
        self._collect_uploads(base.commands)
        self._collect_uploads(plugin_strings(node.get("plugins") or node.get("plugin")))
        for block_key, block in _override_blocks(node):
            for platform_key, override in block.items:
                copy = self._platform_copy(base, knobs, block_key, platform_key, override)
                self.steps.append(replace(copy, knobs=ordered(context.knobs + copy.knobs)))
                self._collect_uploads(copy.commands)

    def _platform_copy(
        self,
        base: CiStep,
        base_knobs: StepKnobs,
        block: str,
        platform_key: YScalar,
        override: YNode,
    ) -> CiStep:
        """The step as a generator emits it for one platform: the override's keys win."""
        platform = key_name(platform_key)
        if not isinstance(override, YMap):
            override = YMap((), platform_key.position)
        has_commands = any(key in override for key in _COMMAND_KEYS)
        commands = _commands(override, self.path, ()) if has_commands else base.commands
        own = step_knobs(override, self.path, f"{block}.{platform}.", platform, status_of(commands))
        parallelism = _parallelism(override.get("parallelism"))
        return replace(
            base,
            span=platform_key.position.span(self.path),
            name=f"{base.name} [{platform}]",
            commands=commands,
            knobs=tuple(own.merged(base_knobs).all()),
            env=_merge_env(base.env, env_settings(override.get("env"), self.path)),
            parallelism=parallelism if parallelism is not None else base.parallelism,
            platform=platform,
        )

    def _collect_uploads(self, commands: tuple[CiCommand, ...] | list[str]) -> None:
        for command in commands:
            text = command.text if isinstance(command, CiCommand) else command
            if "pipeline" in text and "upload" in text:
                self.references.extend(upload_paths(text))


# --- classifying and naming steps -----------------------------------------------------------


def _kind(node: YMap) -> str:
    """The step type, from ``type:`` or from the key that only that type has."""
    declared = text_of(node.get("type"))
    declared = declared.strip().lower() if declared else ""
    if declared in ("wait", "waiter"):
        return "wait"
    if declared in ("block", "input", "trigger", "group"):
        return declared
    if any(map(node.__contains__, _COMMAND_STEP_KEYS)):
        return "command"
    if "group" in node or isinstance(node.get("steps"), YSeq):
        return "group"
    for kind in ("trigger", "block", "input"):
        if kind in node:
            return kind
    if "wait" in node or "waiter" in node:
        return "wait"
    return "command"


def _looks_like_step(node: YMap) -> bool:
    """A document that is one step (``pipeline upload`` accepts that too)."""
    return any(map(node.__contains__, _STEP_MARKERS))


def _first_text(node: YMap, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        text = text_of(node.get(key))
        if text and text.strip():
            return text.strip()
    return None


def _trigger_name(node: YMap) -> str | None:
    slug = text_of(node.get("trigger"))
    return f"trigger {slug.strip()}" if slug and slug.strip() else None


def _step_span(node: YMap, path: str) -> Span:
    """The step's first key, or where the mapping starts when that key came from an anchor."""
    position = node.position
    if node.items:
        key = node.items[0][0].position
        if (key.line, key.column) == (position.line, position.column):
            return key.span(path)
    return Span(path, position.line, position.column, position.line, position.column + 1)


def _matrix_text(matrix: YNode | None) -> str | None:
    """``matrix: 3 entries`` for a list of values; ``matrix setup`` and the dimension
    names joined by a multiplication sign (``python`` times ``gpu``) for a setup mapping."""
    setup = matrix.get("setup") if isinstance(matrix, YMap) else matrix
    if isinstance(setup, YSeq):
        return f"matrix: {len(setup.items)} entries"
    if isinstance(setup, YMap) and setup.items:
        return "matrix setup " + "\N{MULTIPLICATION SIGN}".join(
            key_name(key) for key, _ in setup.items
        )
    return None


# --- commands, env, parallelism --------------------------------------------------------------


def _commands(node: YMap, path: str, pipeline_env: tuple[EnvSetting, ...]) -> tuple[CiCommand, ...]:
    """``command``/``commands``: one command per list item, or the whole string (a ``|``
    block stays one command). Nested lists, as anchors produce, are flattened. Each
    text is the one the step's shell receives after the upload's interpolation
    (``interpolation.py``) with the pipeline's top-level ``env:``."""
    found: list[CiCommand] = []
    env = {setting.name: setting.value for setting in pipeline_env}
    for key, value in node.items:
        if key.value in _COMMAND_KEYS and value is node.get(str(key.value)):
            found.extend(_command_values(value, path, env, 0))
    return tuple(found)


def _command_values(
    node: YNode | None, path: str, env: dict[str, str], depth: int
) -> Iterator[CiCommand]:
    if isinstance(node, YScalar):
        text = text_of(node)
        if text and text.strip():
            shell = uploaded(text, env)
            span = node.position.span(path)
            yield CiCommand(shell.text, span, True, False, note=shell.note, block=node.block)
    elif isinstance(node, YSeq) and depth < _MAX_DEPTH:
        for item in node.items:
            yield from _command_values(item, path, env, depth + 1)


def _merge_env(
    base: tuple[EnvSetting, ...], update: tuple[EnvSetting, ...]
) -> tuple[EnvSetting, ...]:
    """``base`` updated by ``update``: a name keeps its first place and takes the newer value."""
    merged = {setting.name: setting for setting in base}
    for setting in update:
        merged[setting.name] = setting
    return tuple(merged.values())


def _parallelism(node: YNode | None) -> int | None:
    if not isinstance(node, YScalar) or isinstance(node.value, bool):
        return None
    if isinstance(node.value, int):
        return node.value
    if isinstance(node.value, str) and node.value.strip().isdigit() and len(node.value) < 10:
        return int(node.value)
    return None


# --- vendor override blocks -----------------------------------------------------------------


def _override_blocks(node: YMap) -> Iterator[tuple[str, YMap]]:
    """Keys shaped ``{<block>: {<platform>: {step keys}}}`` that are not Buildkite keys.

    Some pipeline generators emit one copy of a step per platform and merge such a
    block into each copy. A block counts only if every platform's value is a
    mapping (or null) and at least one holds a step key, so ``plugins`` (a list),
    ``agents`` (flat tags) and unrelated metadata are never mistaken for one.
    """
    for key, value in node.items:
        name = key_name(key)
        if name in _STEP_KEYS or not isinstance(value, YMap) or not value.items:
            continue
        platforms = [v for _, v in value.items]
        if not all(
            isinstance(v, YMap) or (isinstance(v, YScalar) and v.value is None) for v in platforms
        ):
            continue
        if any(isinstance(v, YMap) and any(k in v for k in _OVERRIDE_KEYS) for v in platforms):
            yield name, value
