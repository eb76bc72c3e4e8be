"""Which files are pipelines: by where they are, and by what their top level holds.

Small repositories keep CI in the well-known places (``.buildkite/``,
``.github/workflows/``, ``.gitlab-ci.yml``); large ones keep pipeline files and
templates anywhere (a ``buildkite/`` folder, ``ci/``, generator inputs). So a
file is a pipeline by its path, or by its content: a YAML (or templated YAML)
file whose top level has ``steps:`` with command steps, ``jobs:`` with steps,
or jobs with ``script:``. Some YAML is never read: the workflows of a nested
project, test data, directories set aside, and Azure Pipelines (a system detlint
does not read).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from detlint.readers.ci import YAML_SUFFIXES
from detlint.readers.ci.facts import System
from detlint.readers.yaml.tree import YMap, YNode, YSeq


def _posix(relative: str) -> str:
    return relative.replace(os.sep, "/")


def system_by_path(relative: str) -> System | None:
    """The CI system a file belongs to by where it is, or None to decide by content."""
    path = _posix(relative)
    name = path.rsplit("/", 1)[-1]
    if name in (".gitlab-ci.yml", ".gitlab-ci.yaml"):
        return "gitlab"
    if "/.github/workflows/" in f"/{path}" or name in ("action.yml", "action.yaml"):
        return "github"
    if "/.buildkite/" in f"/{path}" or (
        name.startswith(("buildkite.", "pipeline")) and name.endswith(YAML_SUFFIXES)
    ):
        return "buildkite"
    return None


_AZURE_NAME = re.compile(r"(?:^|[-_.])azure[-_.]?pipelines?(?:[-_.]|$)|^azure[-_.]")
_AZURE_STEP_KEYS = frozenset({"script", "bash", "pwsh", "powershell", "task", "checkout"})


def is_azure_pipeline(relative: str) -> bool:
    """Whether a file is an Azure Pipelines definition by where it is: named
    ``azure-pipelines*.yml``, or in an ``azure``/``.azure-pipelines`` directory
    (``buildscripts/azure/azure-windows.yml``). Azure is a system of its own, which
    detlint does not read: its ``steps:`` list must not be taken for Buildkite's."""
    parts = _posix(relative).lower().split("/")
    if any(
        part in ("azure", ".azure", ".azure-pipelines", "azure-pipelines") for part in parts[:-1]
    ):
        return True
    return _AZURE_NAME.search(parts[-1]) is not None


def _azure_steps(steps: YSeq) -> bool:
    """Whether a ``steps:`` list is Azure's (``- script:``, ``- task:``...), with no
    Buildkite ``command``."""
    maps = [item for item in steps if isinstance(item, YMap)]
    return bool(maps) and all(
        any(key in item for key in _AZURE_STEP_KEYS)
        and "command" not in item
        and "commands" not in item
        for item in maps
    )


def runs_nowhere(relative: str) -> bool:
    """Whether a file is a GitHub workflow of a project nested below the one linted.

    GitHub runs only the workflows in the repository's own ``.github/workflows/``;
    a vendored or nested project's (``external-deps/kernels/.github/workflows/``)
    are text, and reading them would report knobs no build has. ``relative`` is
    relative to the directory linted (``linted_path``), so one project of several
    can be linted on its own.
    """
    path = _posix(relative)
    return "/.github/workflows/" in f"/{path}" and checkout_base(path) != ""


_DATA_DIRECTORIES = frozenset({"fixtures", "testdata", "test_data", "test-data"})
_TEST_DIRECTORIES = frozenset({"test", "tests", "testing"})


def is_test_data(relative: str) -> bool:
    """Whether a YAML file is data a test reads, not a pipeline any CI runs: under
    ``fixtures/`` or ``testdata/``, under a ``data/`` directory of a test tree
    (``test/single/data/expected_pipeline.yaml``, a generator's stored output), or
    named ``expected_*``. ``relative`` is relative to the directory linted
    (``linted_path``), so a fixture repository linted on its own is read."""
    parts = _posix(relative).split("/")
    directories, name = parts[:-1], parts[-1]
    if name.startswith("expected_") or not _DATA_DIRECTORIES.isdisjoint(directories):
        return True
    return any(
        part == "data" and not _TEST_DIRECTORIES.isdisjoint(directories[:index])
        for index, part in enumerate(directories)
    )


_SET_ASIDE = frozenset(
    {"excluded", "disabled", "deprecated", "archive", "archived", "unused", "obsolete"}
)


def is_set_aside(relative: str) -> bool:
    """Whether a pipeline file sits in a directory its project keeps out of CI
    (``.buildkite/excluded/``, ``ci/disabled/``): uploaders pick the directories they
    read by name, and these names say the files are kept, not run."""
    return not _SET_ASIDE.isdisjoint(_posix(relative).split("/")[:-1])


def checkout_base(relative: str) -> str:
    """The directory a pipeline's commands start in, relative to detlint's root.

    A repository vendored or nested in another (a fixture, a monorepo of
    repositories) keeps its own ``.buildkite/``, ``.github/`` or
    ``.gitlab-ci.yml``, and its steps run from the directory that holds them.
    """
    parts = _posix(relative).split("/")
    for index in range(len(parts) - 2, -1, -1):
        if parts[index] in (".buildkite", ".github"):
            return "/".join(parts[:index])
    if parts[-1] in (".gitlab-ci.yml", ".gitlab-ci.yaml"):
        return "/".join(parts[:-1])
    return ""


def is_yaml_name(name: str) -> bool:
    return name.lower().endswith(YAML_SUFFIXES)


def system_by_content(documents: Sequence[YNode]) -> System | None:
    """The system by the top level: Buildkite ``steps:``, GitHub ``jobs:``, GitLab ``script:``."""
    for document in documents:
        if isinstance(document, YSeq) and any(
            isinstance(item, YMap) and ("command" in item or "commands" in item)
            for item in document
        ):
            return "buildkite"
        if not isinstance(document, YMap):
            continue
        steps = document.get("steps")
        if isinstance(steps, YSeq):
            return None if _azure_steps(steps) else "buildkite"
        jobs = document.get("jobs")
        if isinstance(jobs, YMap) and any(
            isinstance(job, YMap) and ("steps" in job or "uses" in job) for _, job in jobs.items
        ):
            return "github"
        if any(
            isinstance(value, YMap) and ("script" in value or "extends" in value)
            for _, value in document.items
        ):
            return "gitlab"
    return None


def linted_path(relative: str, start: str) -> str:
    """``relative`` (to the root) as seen from ``start``, the directory detlint runs
    from, when it is below it; else as it is."""
    if start in ("", ".") or not relative.startswith(start + "/"):
        return relative
    return relative[len(start) + 1 :]
