"""``shell: bash`` for a GitHub Actions step whose one-line ``run:`` pipes pytest into tee.

GitHub runs a step without ``shell:`` as ``bash -e {0}`` on Linux and macOS, so a
failing pytest before ``| tee`` is lost; with ``shell: bash`` the step runs as
``bash --noprofile --norc -eo pipefail {0}`` and the failure counts. A one-line
command has no line to put ``set -o pipefail`` on, so the key is added to the
step instead, on a line of its own after the ``run:`` line, at its indentation.
Only on a job whose ``runs-on`` is a literal Linux or macOS runner: on Windows the
default shell is PowerShell, and ``shell: bash`` would change what the command is.
"""

from __future__ import annotations

import re

from ruamel.yaml.nodes import ScalarNode

from detlint.fixes.edits import Declined, Edit, apply_edits
from detlint.fixes.option_tokens import line_start
from detlint.fixes.source_text import SourceText
from detlint.fixes.yaml_locate import Scalar, start
from detlint.fixes.yaml_verify import MISSING, differences, load

_UNIX_RUNNER = re.compile(r"^(ubuntu|macos)-[\w.-]+$")


def github_shell_bash(source: SourceText, scalar: Scalar) -> tuple[Edit, ...]:
    """The edit that adds ``shell: bash`` to the step holding ``scalar`` (its ``run``)."""
    pair = scalar.pair
    path = scalar.path
    if pair is None or path is None or pair.key_item != "run" or pair.value is not scalar.node:
        raise Declined("the piped command is not a step's `run:` value")
    step = pair.mapping
    if step.flow_style:
        raise Declined("the step is a flow mapping")
    keys = [key.value for key, _ in step.value if isinstance(key, ScalarNode)]
    if "shell" in keys:
        raise Declined("the step names its shell already; set `pipefail` there")
    _require_unix_job(load(source.text), path)
    text = source.text
    key_start = start(pair.key)
    before_key = text[line_start(text, key_start) : key_start]
    indent = " " * len(before_key) if before_key.strip(" -") == "" else None
    if indent is None:
        raise Declined("cannot tell the step's indentation")
    line, _ = source.position(start(pair.value))
    if source.position(pair.value.end_mark.index)[0] != line:
        raise Declined("the `run:` value spans several lines")
    _, insert_at = source.line_range(line)
    if insert_at == len(text) and not text.endswith(("\n", "\r")):
        raise Declined("the `run:` line ends the file without a line end")
    edit = Edit(source.path, insert_at, insert_at, f"{indent}shell: bash{source.line_end(0)}")
    found = differences(load(text), load(apply_edits(text, (edit,))))
    expected = (*path[:-1], "shell")
    if [(d.path, d.old, d.new) for d in found] != [(expected, MISSING, "bash")]:
        raise Declined("adding `shell: bash` would not change the document as intended")
    return (edit,)


def _require_unix_job(documents: list[object], path: tuple[object, ...]) -> None:
    """The job of the step at ``path`` (the document's index, then
    ``jobs.<id>.steps[i].run``) runs on a literal Linux or macOS runner."""
    if len(documents) != 1 or len(path) != 6 or path[1] != "jobs" or path[3] != "steps":
        raise Declined("the step is not in a workflow's `jobs.<id>.steps`")
    workflow = documents[0]
    path = path[1:]
    jobs = workflow.get("jobs") if isinstance(workflow, dict) else None
    job = jobs.get(path[1]) if isinstance(jobs, dict) else None
    runs_on = job.get("runs-on") if isinstance(job, dict) else None
    for holder in (workflow, job):
        defaults = holder.get("defaults") if isinstance(holder, dict) else None
        if isinstance(defaults, dict) and "run" in defaults:
            raise Declined("the workflow or job sets a default shell; set `pipefail` there")
    if not isinstance(runs_on, str) or not _UNIX_RUNNER.match(runs_on):
        raise Declined("the job's runner is not a literal Linux or macOS one")
