"""Rerun plugins a CI step installs itself: ``pip install pytest-rerunfailures``.

Many projects declare their test tools nowhere but in the pipeline: a step runs
``pip install pytest pytest-rerunfailures`` (or ``uv pip install``, ``python -m
pip install``, ``conda install``, ``pixi add``) before pytest. That install is as
good evidence of the plugin as a requirements file, for the project the step works
in (its working directory, or where its checkout starts). Requirements files the
command names (``-r requirements/ci.txt``) are read as dependency files already.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from detlint.readers.ci.facts import PipelineFacts
from detlint.readers.dependencies.declarations import COMPANION_PLUGINS, RERUN_PLUGINS, Requirement
from detlint.readers.dependencies.text_files import normalize_name

# An install command and the words after it, up to the end of that command.
_INSTALL = re.compile(
    r"(?:\b(?:pip3?|pip3\.\d+|uv\s+pip|python3?(?:\.\d+)?\s+-m\s+pip)\s+install"
    r"|\b(?:conda|mamba|micromamba)\s+install|\bpixi\s+add|\buv\s+add)"
    r"((?:(?:[ \t]+|[ \t]*\\\n[ \t]*)[^\s;&|\\]+)*)",
)
# A requirement word: a name, with extras and a version specifier perhaps (quotes off).
_REQUIREMENT = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?((?:[<>=!~]=?|==?)\S*)?")
_WANTED = frozenset(RERUN_PLUGINS + COMPANION_PLUGINS)


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
                for match in _INSTALL.finditer(text):
                    for word in match.group(1).split():
                        found = _REQUIREMENT.fullmatch(word.strip("'\""))
                        if found is None:
                            continue
                        name = normalize_name(found.group(1))
                        if name in _WANTED:
                            source = f"installed by step {step.name!r} of {pipeline.path}"
                            yield (
                                where,
                                Requirement(name, found.group(2) or "", command.span, source),
                            )
