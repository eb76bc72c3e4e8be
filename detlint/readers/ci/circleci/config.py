"""CircleCI's ``.circleci/config.yml`` into ``PipelineFacts``.

A CircleCI job is a list of steps, each ``run:`` a shell of its own (bash with
errexit and pipefail, CircleCI's default shell). Two knobs rerun failures
automatically (CircleCI's "Automatic reruns"): ``max_auto_reruns: N`` (1 to 5) on a
``run`` step reruns that step when it fails, and on a workflow reruns the workflow
from failed (its failed jobs) up to N times. A test failure is then reported only
when all N + 1 runs fail, like a job retry elsewhere, so both are ``job-retry``
knobs: the step's on its command, the workflow's on every job the workflow runs.

Steps may be reusable ``commands:`` of the same file (expanded where they are used,
with their own ``run`` steps), ``when:``/``unless:`` blocks (their steps may run),
and orb commands (``node/install``), which run nothing detlint can read.
``<< parameters.x >>`` stays in the command as written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from detlint.base.span import Span
from detlint.readers.ci.facts import CiCommand, CiKnob, CiStep, EnvSetting, PipelineFacts
from detlint.readers.ci.shell.wrappers import shell_options
from detlint.readers.ci.yaml_spans import env_settings, key_name, yaml_knob
from detlint.readers.yaml.tree import YMap, YNode, YScalar, YSeq, text_of

_MAX_RERUNS = 5  # CircleCI's limit for max_auto_reruns
_MAX_DEPTH = 8  # reusable commands calling reusable commands


def read_circleci(documents: tuple[YNode, ...], path: str) -> PipelineFacts:
    """The jobs of a CircleCI config, each with its ``run`` steps and reruns."""
    root = next((doc for doc in documents if isinstance(doc, YMap)), None)
    if root is None or not isinstance(root.get("jobs"), YMap):
        return PipelineFacts(path, "circleci", ())
    reader = _Reader(path, root)
    rerun_by_job = reader.workflow_reruns()
    steps: list[CiStep] = []
    jobs = root.get("jobs")
    assert isinstance(jobs, YMap)
    for key, job in jobs.items:
        if not isinstance(job, YMap):
            continue
        name = key_name(key)
        commands = tuple(reader.steps(job.get("steps"), f"jobs.{name}", 0))
        working = text_of(job.get("working_directory"))
        parallelism = job.get("parallelism")
        count = parallelism.value if isinstance(parallelism, YScalar) else None
        steps.append(
            CiStep(
                "circleci",
                path,
                key.position.span(path),
                name,
                commands,
                knobs=tuple(rerun_by_job.get(name, ())),
                env=env_settings(job.get("environment"), path),
                working_dir=working,
                parallelism=count if isinstance(count, int) else None,
            )
        )
    return PipelineFacts(path, "circleci", tuple(steps), tuple(reader.orphans))


@dataclass
class _Reader:
    path: str
    root: YMap
    orphans: list[CiKnob] = field(default_factory=list)

    def workflow_reruns(self) -> dict[str, list[CiKnob]]:
        """Each job's workflow-level ``max_auto_reruns`` knobs, by job name."""
        found: dict[str, list[CiKnob]] = {}
        workflows = self.root.get("workflows")
        if not isinstance(workflows, YMap):
            return found
        for key, workflow in workflows.items:
            if not isinstance(workflow, YMap) or "max_auto_reruns" not in workflow:
                continue
            name = key_name(key)
            knob = self.rerun_knob(workflow, f"workflows.{name}", "the workflow reruns from failed")
            if knob is None:
                continue
            for job in _workflow_jobs(workflow.get("jobs")):
                found.setdefault(job, []).append(knob)
        return found

    def rerun_knob(self, owner: YMap, where: str, what: str) -> CiKnob | None:
        key, value = owner.key("max_auto_reruns"), owner.get("max_auto_reruns")
        if key is None or value is None:
            return None
        count = value.value if isinstance(value, YScalar) else None
        if not isinstance(count, int) or isinstance(count, bool):
            note = "max_auto_reruns is not a number detlint can read"
            return yaml_knob("job-retry", "circleci", f"{where}.max_auto_reruns", key, value,
                             self.path, None, note=note)  # fmt: skip
        if count < 1:
            return None
        note = f"{what} up to {count} times ({count + 1} runs)"
        if count > _MAX_RERUNS:
            note += f"; CircleCI allows at most {_MAX_RERUNS}"
        return yaml_knob(
            "job-retry", "circleci", f"{where}.max_auto_reruns", key, value, self.path,
            True, attempts=count + 1, note=note,
        )  # fmt: skip

    def steps(self, node: YNode | None, where: str, depth: int) -> Iterator[CiCommand]:
        if not isinstance(node, YSeq) or depth > _MAX_DEPTH:
            return
        commands = self.root.get("commands")
        for index, item in enumerate(node.items):
            here = f"{where}.steps[{index}]"
            if isinstance(item, YScalar) and isinstance(item.value, str):
                name, body = item.value, None  # checkout, or a reusable command's name
            elif isinstance(item, YMap) and len(item.items) == 1:
                key, body = item.items[0]
                name = key_name(key)
            else:
                continue
            if name == "run" and body is not None:
                command = self.run(body, here)
                if command is not None:
                    yield command
            elif name in ("when", "unless") and isinstance(body, YMap):
                yield from self.steps(body.get("steps"), here, depth + 1)
            elif isinstance(commands, YMap) and isinstance(commands.get(name), YMap):
                reusable = commands.get(name)
                assert isinstance(reusable, YMap)
                yield from self.steps(reusable.get("steps"), f"commands.{name}", depth + 1)

    def run(self, body: YNode, where: str) -> CiCommand | None:
        """One ``run`` step: ``run: cmd`` or ``run: {command, shell, working_directory,
        environment, max_auto_reruns}``."""
        if isinstance(body, YScalar):
            text = text_of(body)
            at = body.position.span(self.path)
            return CiCommand(text, at, True, True, block=body.block) if text else None
        if not isinstance(body, YMap):
            return None
        node = body.get("command")
        text = text_of(node) if node is not None else None
        knob = self.rerun_knob(body, where, "the step reruns when it fails")
        if node is None or not text:
            if knob is not None:
                self.orphans.append(knob)
            return None
        errexit, pipefail = _shell(text_of(body.get("shell")))
        env: tuple[EnvSetting, ...] = env_settings(body.get("environment"), self.path)
        span: Span = node.position.span(self.path)
        return CiCommand(
            text, span, errexit, pipefail, (knob,) if knob is not None else (), env,
            text_of(body.get("working_directory")), name=text_of(body.get("name")),
            block=isinstance(node, YScalar) and node.block,
        )  # fmt: skip


def _workflow_jobs(node: YNode | None) -> Iterator[str]:
    """The job names a workflow runs: ``- build`` or ``- test: {requires: ...}``."""
    if not isinstance(node, YSeq):
        return
    for item in node.items:
        if isinstance(item, YScalar) and isinstance(item.value, str):
            yield item.value
        elif isinstance(item, YMap) and len(item.items) == 1:
            yield key_name(item.items[0][0])


def _shell(shell: str | None) -> tuple[bool, bool]:
    """Errexit and pipefail of a step's shell: CircleCI's default is ``/bin/bash -eo
    pipefail``; a ``shell:`` of its own sets only what its flags say."""
    if shell is None:
        return True, True
    return shell_options(shell.split())
