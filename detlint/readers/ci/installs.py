"""Rerun plugins a CI step installs itself: ``pip install pytest-rerunfailures``.

Many projects declare their test tools nowhere but in the pipeline: a step runs
``pip install pytest pytest-rerunfailures`` (or ``uv pip install``, ``python -m
pip install``, ``conda install``, ``pixi add``) before pytest. That install is as
good evidence of the plugin as a requirements file, for the project the step works
in (its working directory, or where its checkout starts). Requirements files the
command names (``-r requirements/ci.txt``) are read as dependency files already; the
commands are read by :mod:`detlint.readers.dependencies.install_commands`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from detlint.readers.ci.facts import PipelineFacts
from detlint.readers.dependencies.declarations import Requirement
from detlint.readers.dependencies.install_commands import installed_names


def installed_plugins(
    pipelines: Sequence[PipelineFacts],
) -> Iterator[tuple[str, Requirement]]:
    """(the repository directory the step works in, the plugin it installs) for every
    rerun plugin a step's commands install."""
    for pipeline in pipelines:
        for step in pipeline.steps:
            for command in step.commands:
                text = command.text
                if "install" not in text and " add" not in text:
                    continue
                directory = command.working_dir or step.working_dir or ""
                if directory.startswith("/") or "$" in directory:
                    directory = ""  # a container path or one set at run time: the checkout
                where = "/".join(part for part in (pipeline.base, directory) if part)
                for found in installed_names(text):
                    source = f"installed by step {step.name!r} of {pipeline.path}"
                    yield (
                        where,
                        Requirement(found.plugin, found.specifier, command.span, source),
                    )
