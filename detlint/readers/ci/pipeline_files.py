"""Which files are pipelines: by where they are, and by what their top level holds.

A few places name their system for sure: ``.gitlab-ci.yml``, ``.github/workflows/``
and ``action.yml``, ``.circleci/config.yml``. Everywhere else (large repositories keep
pipeline files and templates in a ``buildkite/`` folder, ``ci/``, ``.gitlab/``,
generator inputs) a file is a pipeline, and of which system, by its content: a YAML
(or templated YAML) file whose top level has ``steps:`` with command steps
(Buildkite), ``jobs:`` with ``runs-on``/``steps`` (GitHub), ``version`` and jobs with
``docker``/``machine``/``executor`` (CircleCI), or jobs with ``script:`` and a GitLab
key (GitLab). A name or folder that suggests Buildkite (``.buildkite/``,
``pipeline.yml``) is only the fallback when the content names no system. Some YAML
is never read: the workflows of a nested project, test data, directories set aside,
and Azure Pipelines (a system detlint does not read).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from detlint.readers.ci import YAML_SUFFIXES
from detlint.readers.ci.facts import System
from detlint.readers.ci.yaml_spans import key_name
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
    if path.endswith((".circleci/config.yml", ".circleci/config.yaml")):
        return "circleci"
    if "/.buildkite/" in f"/{path}" or (
        name.startswith(("buildkite.", "pipeline")) and name.endswith(YAML_SUFFIXES)
    ):
        return "buildkite"  # a guess by name: the content decides (``system_of``)
    return None


def system_of(by_path: System | None, documents: Sequence[YNode]) -> System | None:
    """A file's system: its content's, where the content names one, over a guess by
    name (``.gitlab/tioga/pipeline.yml`` is GitLab's, whatever its name says); the
    places that are certain (``.gitlab-ci.yml``, ``.github/workflows/``,
    ``.circleci/config.yml``) are not second-guessed."""
    if by_path is not None and by_path != "buildkite":
        return by_path
    return system_by_content(documents) or by_path


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
        if parts[index] in (".buildkite", ".github", ".circleci"):
            return "/".join(parts[:index])
    if parts[-1] in (".gitlab-ci.yml", ".gitlab-ci.yaml"):
        return "/".join(parts[:-1])
    return ""


def is_yaml_name(name: str) -> bool:
    return name.lower().endswith(YAML_SUFFIXES)


# Keys a GitLab job has beside ``script:`` (a conda recipe's ``build: {script: ...}``
# has none of them), and top-level keys only a GitLab pipeline has.
_GITLAB_JOB_KEYS = frozenset(
    {
        "stage", "image", "tags", "rules", "only", "except", "needs", "extends",
        "before_script", "after_script", "artifacts", "when", "allow_failure", "retry",
        "services", "parallel", "cache", "environment", "dependencies", "interruptible",
        "timeout", "coverage", "trigger", "variables", "resource_group",
    }
)  # fmt: skip
_GITLAB_TOP_KEYS = frozenset({"stages", "include", "default", "workflow"})
# Keys only a CircleCI job has.
_CIRCLECI_JOB_KEYS = frozenset({"docker", "machine", "macos", "executor", "resource_class"})


def _circleci(document: YMap) -> bool:
    jobs = document.get("jobs")
    if not isinstance(jobs, YMap) or "version" not in document:
        return False
    return any(
        isinstance(job, YMap) and not _CIRCLECI_JOB_KEYS.isdisjoint(_keys(job))
        for _, job in jobs.items
    )


def _keys(node: YMap) -> set[str]:
    return {key_name(key) for key, _ in node.items}


def _gitlab(document: YMap) -> bool:
    """GitLab's top-level keys, or a job with ``script:`` (or ``extends:``): with another
    key only a GitLab job has, or in a document that describes no package (a conda
    recipe's ``build: {script: ...}`` sits beside ``package:``)."""
    keys = _keys(document)
    if not _GITLAB_TOP_KEYS.isdisjoint(keys):
        return True
    plain = "package" not in keys
    return any(
        isinstance(value, YMap)
        and ("script" in value or "extends" in value)
        and (plain or not _GITLAB_JOB_KEYS.isdisjoint(_keys(value)))
        for _, value in document.items
    )


def system_by_content(documents: Sequence[YNode]) -> System | None:
    """The system by the top level: Buildkite ``steps:``, CircleCI ``version`` with jobs
    on ``docker``..., GitHub ``jobs:`` with steps, GitLab jobs with ``script:``."""
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
        if _circleci(document):
            return "circleci"
        jobs = document.get("jobs")
        if isinstance(jobs, YMap) and any(
            isinstance(job, YMap) and ("steps" in job or "uses" in job) for _, job in jobs.items
        ):
            return "github"
        if _gitlab(document):
            return "gitlab"
    return None


def linted_path(relative: str, start: str) -> str:
    """``relative`` (to the root) as seen from ``start``, the directory detlint runs
    from, when it is below it; else as it is."""
    if start in ("", ".") or not relative.startswith(start + "/"):
        return relative
    return relative[len(start) + 1 :]
