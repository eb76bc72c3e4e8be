"""The retry actions a GitHub step can run its command through, read as knobs.

``nick-fields/retry`` and ``Wandalen/wretry.action`` rerun a ``command`` input
until it passes, so a failing test gets several runs inside one step. Each
action has its own inputs for the number of runs, what to retry on and which
shell runs the command; this module reads them into the knobs the action adds
and the shell options of the command, and ``github.py`` turns that into the
step's command.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from detlint.readers.ci.facts import CiKnob
from detlint.readers.ci.github.expressions import unwrap
from detlint.readers.ci.yaml_spans import yaml_knob
from detlint.readers.yaml.tree import YMap, YNode, YScalar, text_of

_NICK_RETRY = "nick-fields/retry"
_WRETRY = "wandalen/wretry.action"
_UNREADABLE = "a retry action without a readable command"


@dataclass(frozen=True)
class RetryAction:
    """What a retry action step runs, the knobs it adds and the shell options it runs with."""

    knobs: tuple[CiKnob, ...]  # the retry, then the action's own continue_on_error
    command: YScalar | None  # the ``command`` input; None when it is not a readable string
    instead: str  # what the step runs when ``command`` is None, as a knob note says it
    errexit: bool = True
    pipefail: bool = False
    working_dir: str | None = None


def read_retry_action(
    step: YMap, uses: str, here: str, path: str, windows: bool
) -> RetryAction | None:
    """The retry action of a step whose ``uses:`` is ``uses``; None for any other action."""
    action = uses.split("@", 1)[0].strip().lower()  # owner/repo[/path]; GitHub ignores case
    if action == _NICK_RETRY:
        return _nick_retry(step, here, path, windows)
    if action.startswith(_WRETRY):
        return _wretry(step, here, path)
    return None


def _nick_retry(step: YMap, here: str, path: str, windows: bool) -> RetryAction:
    """nick-fields/retry: ``max_attempts`` total runs (default 3) of ``command``.

    The action spawns ``bash -c <command>`` (``shell:`` input, default bash;
    PowerShell on Windows): no ``-e`` and no pipefail, so only the last line
    of a multi-line command decides the status.
    """
    inputs = _inputs(step)
    attempts_key, attempts_node = inputs.key("max_attempts"), inputs.get("max_attempts")
    attempts = _count(attempts_node, 3)
    covers: bool | None = True
    notes: list[str] = []
    retry_on = text_of(inputs.get("retry_on"))
    if retry_on is not None and retry_on.strip().lower() not in ("any", "error"):
        covers = False if retry_on.strip().lower() == "timeout" else None
        notes.append(f"retry_on: {retry_on}")
    exit_code = inputs.get("retry_on_exit_code")
    if exit_code is not None and covers is not False:
        code = _count(exit_code, None)
        covers = None if code is None else code == 1
        notes.append(f"retries exit status {text_of(exit_code)} only")
    if attempts == 1:
        covers, notes = False, [*notes, "max_attempts 1: no retry"]
    anchor_key, anchor = (attempts_key, attempts_node) if attempts_key else _uses(step)
    retry = yaml_knob(
        "retry-action",
        "github",
        f"{here}.with.max_attempts" if attempts_key else f"{here}.uses",
        anchor_key,
        anchor,
        path,
        covers,
        attempts=attempts,
        note="; ".join(notes),
    )
    soft = _soft_input(inputs, "continue_on_error", f"{here}.with", path)
    shell = text_of(inputs.get("shell"))
    if (shell is None and not windows) or (shell is not None and shell.strip() in ("bash", "sh")):
        errexit, pipefail = False, False
    else:
        errexit, pipefail = True, True  # PowerShell or Python: not judged, taken as not masking
    command = _readable(inputs.get("command"))
    return RetryAction((retry, *soft), command, _UNREADABLE, errexit, pipefail)


def _wretry(step: YMap, here: str, path: str) -> RetryAction:
    """Wandalen/wretry.action: ``attempt_limit`` total runs (default 2) of ``command``
    (run in the default shell) or of a wrapped ``action:``."""
    inputs = _inputs(step)
    limit_key, limit_node = inputs.key("attempt_limit"), inputs.get("attempt_limit")
    attempts = _count(limit_node, 2) or 2  # the action reads the input as `number || 2`
    covers: bool | None = True
    condition = text_of(inputs.get("retry_condition"))
    inner = unwrap(condition or "")
    bare = (inner if inner is not None else condition or "true").strip().lower()
    if bare in ("false", "0", "''"):
        covers = False
    elif bare != "true":
        covers = None
    anchor_key, anchor = (limit_key, limit_node) if limit_key else _uses(step)
    retry = yaml_knob(
        "retry-action",
        "github",
        f"{here}.with.attempt_limit" if limit_key else f"{here}.uses",
        anchor_key,
        anchor,
        path,
        covers,
        attempts=attempts if attempts > 0 else None,
        condition=condition if covers is None else None,
        note="attempt_limit 1: no retry" if attempts == 1 else "",
    )
    if attempts == 1:
        retry = dataclasses.replace(retry, covers_tests=False)
    action = text_of(inputs.get("action"))
    if inputs.get("command") is None and action is not None:
        return RetryAction((retry,), None, f"the action {action} through the retry action")
    command = _readable(inputs.get("command"))
    working_dir = text_of(inputs.get("current_path"))
    return RetryAction((retry,), command, _UNREADABLE, True, False, working_dir)


def _inputs(step: YMap) -> YMap:
    """The step's ``with:`` inputs; an empty mapping when there are none."""
    inputs = step.get("with")
    return inputs if isinstance(inputs, YMap) else YMap((), step.position)


def _readable(command: YNode | None) -> YScalar | None:
    return command if isinstance(command, YScalar) and text_of(command) is not None else None


def _uses(step: YMap) -> tuple[YScalar | None, YNode | None]:
    return step.key("uses"), step.get("uses")


def _soft_input(inputs: YMap, name: str, where: str, path: str) -> list[CiKnob]:
    """A retry action's own ``continue_on_error`` input: it exits 0 after the last failure."""
    node = inputs.get(name)
    value = node.value if isinstance(node, YScalar) else None
    if node is None or value is False or (isinstance(value, str) and value.lower() == "false"):
        return []
    covers = True if value is True or (isinstance(value, str) and value.lower() == "true") else None
    note = "the action exits 0 after its last failed attempt"
    knob = yaml_knob(
        "continue-on-error", "github", f"{where}.{name}", inputs.key(name), node, path, covers,
        note=note,
    )  # fmt: skip
    return [knob]


def _count(node: YNode | None, default: int | None) -> int | None:
    """An integer input (inputs are often quoted); ``default`` when absent, None when unknowable."""
    if node is None:
        return default
    value = node.value if isinstance(node, YScalar) else None
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None
