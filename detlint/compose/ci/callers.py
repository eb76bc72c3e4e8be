"""Reusable workflows and child pipelines as their callers run them.

A job that runs a workflow of the repository in its place (GitHub ``uses:
./.github/workflows/x.yml``) or a child pipeline it depends on (GitLab ``trigger:
{include: ..., strategy: depend}``) hands it two things that decide what a failure
there does: its own knobs (a ``continue-on-error`` on the calling job acts on every
job of x.yml) and its inputs (``with: {soft: true}`` for x.yml's ``continue-on-error:
${{ inputs.soft }}``, which x.yml alone cannot decide). ``with_callers`` gives the
called pipelines' steps both: the callers' knobs, and each knob written with
``inputs`` judged against every caller's literal inputs (true for every caller, for
some, naming them, or for none).
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable, Sequence

from detlint.readers.ci.facts import GENERATED_CHILD, CiKnob, CiStep, PipelineFacts


def with_callers(
    pipelines: Sequence[PipelineFacts], relative: Callable[[str], str]
) -> Sequence[PipelineFacts]:
    """The pipelines, each called one's steps carrying what their callers give them."""
    knobs: dict[str, list[CiKnob]] = {}
    callers: dict[str, list[CiStep]] = {}
    for pipeline in pipelines:
        for step in pipeline.steps:
            if step.calls is None or step.calls.startswith(GENERATED_CHILD):
                continue
            called = posixpath.normpath(posixpath.join(pipeline.base, step.calls.lstrip("/")))
            callers.setdefault(called, []).append(step)
            # A knob of some of the caller's matrix entries acts on the called jobs in
            # those entries, whatever the called jobs' own matrices.
            knobs.setdefault(called, []).extend(
                dataclasses.replace(knob, entries=None) if knob.entries else knob
                for knob in step.knobs
            )
    if not callers:
        return pipelines
    found: list[PipelineFacts] = []
    for pipeline in pipelines:
        path = relative(pipeline.path)
        calling = callers.get(path)
        if calling:
            extra = tuple(dict.fromkeys(knobs.get(path, ())))
            defaults = dict(pipeline.input_defaults)
            steps = tuple(_called_step(step, extra, calling, defaults) for step in pipeline.steps)
            pipeline = dataclasses.replace(pipeline, steps=steps)
        found.append(pipeline)
    return found


def _called_step(
    step: CiStep, extra: tuple[CiKnob, ...], callers: list[CiStep], defaults: dict[str, object]
) -> CiStep:
    judged: dict[CiKnob, CiKnob] = {}

    def judge(knob: CiKnob) -> CiKnob:
        if knob not in judged:
            judged[knob] = _with_inputs(knob, callers, defaults)
        return judged[knob]

    commands = tuple(
        dataclasses.replace(command, knobs=tuple(map(judge, command.knobs)))
        if command.knobs
        else command
        for command in step.commands
    )
    return dataclasses.replace(step, knobs=(*map(judge, step.knobs), *extra), commands=commands)


def _with_inputs(knob: CiKnob, callers: list[CiStep], defaults: dict[str, object]) -> CiKnob:
    """A knob whose value reads ``inputs``, judged against each caller's inputs."""
    if knob.covers_tests is not None or "inputs." not in knob.value:
        return knob
    from detlint.readers.ci.github.expressions import (
        Unknown,
        evaluate,
        parse_expression,
        referenced_names,
        truthy,
        unwrap,
    )

    inner = unwrap(knob.value)
    if inner is None:
        return knob
    try:
        tree = parse_expression(inner)
        if referenced_names(tree):
            return knob  # it reads the matrix too: the reader's question
        # One set of inputs per caller, or per entry of a caller's matrix.
        calls: list[tuple[CiStep, list[dict[str, object]]]] = [
            (caller, [{**defaults, **dict(caller.passes), **dict(e)} for e in caller.pass_entries])
            if caller.pass_entries
            else (caller, [{**defaults, **dict(caller.passes)}])
            for caller in callers
        ]
        values = [
            [truthy(evaluate(tree, {}, {"inputs": inputs})) for inputs in each] for _, each in calls
        ]
    except Unknown:
        return knob
    if not any(any(each) for each in values):
        note = "false for the inputs every caller hands it"
        return dataclasses.replace(knob, covers_tests=False, note=note)
    if all(all(each) for each in values):
        return dataclasses.replace(knob, covers_tests=True)
    names = []
    for (caller, _), each in zip(calls, values, strict=True):
        if any(each):
            of = f" ({sum(each)} of its {len(each)} matrix entries)" if len(each) > 1 else ""
            names.append(f"{caller.name}{of}")
    return dataclasses.replace(
        knob, covers_tests=True, condition=f"when called by {', '.join(names)}"
    )
