"""What a Buildkite command's shell sees after ``buildkite-agent pipeline upload``.

The agent substitutes environment variables in the pipeline text when it is
uploaded, before any step runs: ``$NAME`` and ``${NAME}`` (with ``:-``/``-``
defaults) take their value from the environment of the upload, and the
pipeline's top-level ``env:`` block; ``$$`` and ``\\$`` are the escapes that leave
one ``$`` for the step's shell. A step's own variables do not exist yet at upload,
so a command that saves pytest's status and returns it later, written
``pytest || status=$?; ...; exit $status``, reaches the shell as ``exit`` with no
argument: the step exits with the status of the command before it, and the
failure is lost. Written with ``$$``, the same command keeps the failure.

This module rewrites a command's text the way the upload does, for the names it
can settle: a name the pipeline's ``env:`` sets takes that value, and a name the
command itself assigns (``status=...``, ``for name in``, ``read name``), which no
upload environment sets, is emptied (its default, if written). Every other name
may come from the pipeline's settings or the agent, so it stays as written and
is read as the shell would, at run time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# `$$` and `\$` (escapes), `${NAME...}` and `$NAME`.
_REFERENCE = re.compile(rf"\$\$|\\\$|\$\{{({_NAME})([^}}]*)\}}|\$({_NAME})")
# Where a command gives a name its own value: `NAME=`, `for NAME in`, `read [-opts] NAME`,
# `local/declare/export/readonly NAME`.
_ASSIGNED = re.compile(
    rf"(?:^|[\s;&|(`])({_NAME})\+?=|\bfor\s+({_NAME})\s+in\b"
    rf"|\bread\s+(?:-\S+\s+)*({_NAME})|\b(?:local|declare|export|readonly)\s+(?:-\S+\s+)*({_NAME})"
)
# Names Buildkite sets for every job; known at upload with the same value at run time.
_PROVIDED = re.compile(r"BUILDKITE(?:_\w*)?|CI")


@dataclass(frozen=True)
class Uploaded:
    """A command's text after upload, and the names the upload emptied."""

    text: str
    emptied: tuple[str, ...] = ()

    @property
    def note(self) -> str | None:
        """What the emptied names mean for the step, for a finding to say."""
        if not self.emptied:
            return None
        names = ", ".join(f"`${name}`" for name in self.emptied)
        escaped = ", ".join(f"`$${name}`" for name in self.emptied)
        return (
            f"Buildkite replaces {names} when the pipeline is uploaded, before the step's "
            f"shell sets it: write {escaped}"
        )


def uploaded(text: str, pipeline_env: Mapping[str, str]) -> Uploaded:
    """``text`` as the step's shell receives it (see the module docstring)."""
    if "$" not in text:
        return Uploaded(text)
    assigned: set[str] | None = None  # read only when a reference needs it
    emptied: list[str] = []

    def replace(match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole in ("$$", "\\$"):
            return "$"
        name = match.group(1) or match.group(3)
        if name in pipeline_env:
            return pipeline_env[name]
        nonlocal assigned
        if assigned is None:
            assigned = {n for match in _ASSIGNED.finditer(text) for n in match.groups() if n}
        if name in assigned and not _PROVIDED.fullmatch(name):
            if name not in emptied:
                emptied.append(name)
            modifier = match.group(2) or ""
            for operator in (":-", "-"):
                if modifier.startswith(operator):
                    return modifier[len(operator) :]
            return ""
        return whole

    result = _REFERENCE.sub(replace, text)
    return Uploaded(result, tuple(emptied))
