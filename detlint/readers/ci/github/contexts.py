"""What a GitHub job's context gives its knobs and steps.

A ``working-directory`` is often written with the workflow's or job's env or a
matrix value (``${{ env.PKG_DIR }}``), which the file itself decides; and a job's
``continue-on-error`` hides a failure from some readers of the run and not others
(the job's own check run stays red, the run's conclusion and ``needs.<job>.result``
report success), which the jobs that ``need`` it make concrete.
"""

from __future__ import annotations

import dataclasses
import re

from detlint.readers.ci.facts import CiKnob, EnvSetting
from detlint.readers.ci.yaml_spans import key_name
from detlint.readers.yaml.tree import YMap, YNode, YScalar, YSeq

_CONTEXT_VALUE = re.compile(r"\$\{\{\s*(env|matrix)\.([A-Za-z_][\w-]*)\s*\}\}")


def resolved(
    text: str | None, env: tuple[EnvSetting, ...], entries: list[dict[str, object]] | None
) -> str | None:
    """A ``working-directory`` with ``${{ env.X }}`` replaced by the literal value the
    workflow, job or step sets, and ``${{ matrix.x }}`` by the one value every matrix
    entry gives; anything else is left as written (read as set at run time)."""
    if text is None or "${{" not in text:
        return text
    values = {setting.name: setting.value for setting in env}

    def value(match: re.Match[str]) -> str:
        context, name = match.group(1), match.group(2)
        if context == "env" and name in values and "${{" not in values[name]:
            return values[name]
        if context == "matrix" and entries:
            found = {str(entry.get(name)) for entry in entries if name in entry}
            if len(found) == 1 and all(name in entry for entry in entries):
                return found.pop()
        return match.group(0)

    return _CONTEXT_VALUE.sub(value, text)


def job_level(knob: CiKnob, job_id: str, jobs: YMap) -> CiKnob:
    """A job's ``continue-on-error``, with what it hides from said: the job's own check
    run still fails, while the workflow run's conclusion and ``needs.<job>.result`` of
    the jobs that need it say success (GitHub's documented outcome/conclusion split)."""
    if knob.covers_tests is not True:
        return knob
    dependents = [
        key_name(key)
        for key, other in jobs.items
        if isinstance(other, YMap) and job_id in _needs(other.get("needs"))
    ]
    hidden = "the workflow run's conclusion reports"
    if dependents:
        names = ", ".join(f"`{name}`" for name in dependents[:3])
        hidden = f"the workflow run's conclusion and `needs.{job_id}.result` in {names} report"
    note = (
        f"the job's own check run still fails; {hidden} success, so a required check on "
        "the run or on a job that needs it does not see the failure"
    )
    return dataclasses.replace(knob, note=f"{knob.note}; {note}" if knob.note else note)


def _needs(node: YNode | None) -> list[str]:
    if isinstance(node, YScalar) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, YSeq):
        return [str(item.value) for item in node.items if isinstance(item, YScalar)]
    return []
