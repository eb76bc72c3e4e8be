"""Which pytest plugin gives ``@pytest.mark.flaky`` its meaning in a repository.

pytest-rerunfailures, flaky and pytest-retry all register a marker named ``flaky`` and read its
arguments differently (``flaky(3)`` is 3 reruns, 3 runs, or ignored), and when two are installed
they fight: which one wins depends on the environment, and their retries may even multiply.
What a marker hides can only be computed once the plugin is known, so this pass reads the
repository's dependency declarations, statically: nothing scanned is imported or executed.

The formats are read beside this module: ``text_files`` (requirements files, setup.cfg,
tox.ini, setup.py), ``toml_files`` (pyproject.toml, pixi.toml, lock files, Pipfile) and
``conda_files`` (conda environment files, pixi.lock, conda-lock.yml); this module picks the
files by name, reads them without ever raising, and gathers the evidence.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from detlint.base.paths import display_path
from detlint.base.source import decode_text, read_bytes, size_limit
from detlint.base.span import Problem, Span
from detlint.readers.dependencies.conda_files import (
    is_conda_environment,
    read_conda_environment,
    read_conda_lock,
    read_pixi_lock,
)
from detlint.readers.dependencies.enabler import enabler_addopts
from detlint.readers.dependencies.text_files import (
    Declared,
    DependencyFileError,
    normalize_name,
    read_noxfile,
    read_requirements_txt,
    read_setup_cfg,
    read_setup_py,
    read_tox_ini,
)
from detlint.readers.dependencies.toml_files import (
    read_package_lock,
    read_pipfile,
    read_pipfile_lock,
    read_pixi_toml,
    read_pylock,
    read_pyproject,
)
from detlint.readers.python.own_markers import NO_OWN_MARKERS, OwnMarkers

__all__ = ["RERUN_PLUGINS", "PluginEvidence", "Requirement", "read_plugin_evidence"]

RERUN_PLUGINS: tuple[str, ...] = ("pytest-rerunfailures", "flaky", "pytest-retry")
"""The plugins that rerun a ``@pytest.mark.flaky`` test, by canonical (PEP 503) name."""
COMPANION_PLUGINS: tuple[str, ...] = ("pytest-ignore-flaky", "pytest-enabler")
"""Plugins that change what the marker does without claiming it: pytest-ignore-flaky reports
a failing marked test as XFAIL under ``--ignore-flaky``, and pytest-enabler's default
configuration adds that option wherever pytest-ignore-flaky is installed."""

SEED_PLUGINS: tuple[str, ...] = ("pytest-rng",)
"""Plugins whose fixtures seed a test from its id (``rng``, ``seed``): every attempt of a
test that uses one replays the same draw."""

# The plugins detlint looks for in a declaration or an install command.
WANTED = frozenset(RERUN_PLUGINS + COMPANION_PLUGINS)
_SEEDS = frozenset(SEED_PLUGINS)

_LOCK_FACTOR = 10
"""pixi.lock and conda-lock.yml are only scanned for names, never parsed, and a multi-platform
pixi.lock is often larger than the limit of parsed files: skipping it would be a DET901 for
nothing. Every other dependency file larger than ``max-file-size`` is skipped with a Problem."""

# Files that mention no plugin are skipped before parsing, which keeps a large monorepo fast.
# Case-insensitive and separator-tolerant, so that "Pytest.RerunFailures" is not filtered out.
_MENTION = re.compile(
    rb"rerunfailures|flaky|pytest[-_.]+(?:retry|enabler)|pytest[-_.]+rng", re.IGNORECASE
)


@dataclass(frozen=True)
class Requirement:
    """One declaration of a rerun plugin, and where it is.

    ``plugin`` is the canonical name; ``specifier`` is the version constraint as written
    (``"==14.0"``, Poetry's ``"^14.0"``, ``"==<version>"`` for a lock file, ``"@ <url>"`` for a
    direct reference, ``""`` for none); ``span`` covers the requirement text (without quotes) or,
    for ``name = ...`` tables and lock files, the name; ``source`` names the file (relative to
    the repository root) and the table or option it sits in. ``locked`` marks an entry of a lock
    file: it confirms what is installed, but the line to edit is the declaration it came from.
    """

    plugin: str
    specifier: str
    span: Span
    source: str
    locked: bool = False


@dataclass(frozen=True)
class PluginEvidence:
    """Every rerun-plugin declaration of a repository, and the files that could not be read."""

    requirements: tuple[Requirement, ...]
    problems: tuple[Problem, ...]
    # Whether the project declares its dependencies somewhere detlint read (every file
    # readable): only then does "no rerun plugin declared" mean a marker is inert.
    declares: bool = True
    # The project's pyproject.toml ``[tool.pytest-enabler.ignore_flaky] addopts`` ("" for
    # a table without it), which replaces pytest-enabler's default ``--ignore-flaky``;
    # None where the project writes no such table.
    enabler_ignore_flaky: str | None = None
    # The seed plugins declared (SEED_PLUGINS): they read no marker, so they are kept
    # apart from the rerun plugins that fight over ``flaky``.
    seed_plugins: frozenset[str] = frozenset()
    # The marker names the project's conftest.py files and plugin modules register and
    # read: a `flaky` they give a meaning to is theirs when no rerun plugin is declared.
    own_markers: OwnMarkers = NO_OWN_MARKERS

    @property
    def plugins(self) -> frozenset[str]:
        """The distinct rerun plugins declared; more than one means they fight over the
        marker."""
        return frozenset(r.plugin for r in self.requirements if r.plugin in RERUN_PLUGINS)

    def declared(self, plugin: str) -> bool:
        """Whether ``plugin`` (a rerun or companion plugin) is declared."""
        return any(requirement.plugin == plugin for requirement in self.requirements)

    def evidence_for(self, plugin: str) -> tuple[Requirement, ...]:
        """The declarations of ``plugin`` (any spelling PEP 503 normalizes to it), by span, but
        lock-file entries last: a finding cites the first, and the line a user edits is the one
        in pixi.toml or pyproject.toml, not in pixi.lock or poetry.lock (which sort before them
        but are generated from them)."""
        wanted = normalize_name(plugin)
        return tuple(
            sorted((r for r in self.requirements if r.plugin == wanted), key=lambda r: r.locked)
        )

    def describe(self) -> str:
        """One line for reports: the first declaration of each plugin, by file and line."""
        parts = []
        for plugin in (p for p in RERUN_PLUGINS if p in self.plugins):
            first, *others = self.evidence_for(plugin)
            where = f"{first.span.path}:{first.span.line}"
            text = f"{requirement_text(plugin, first.specifier)} in {where}"
            parts.append(text + (f" (and {len(others)} more)" if others else ""))
        if not parts:
            text = "no rerun plugin declared"
        elif len(parts) == 1:
            text = parts[0]
        else:
            text = "several rerun plugins declared, they fight over the flaky marker: " + "; ".join(
                parts
            )
        if self.problems:
            count = len(self.problems)
            text += f" ({count} dependency file{'s' * (count != 1)} could not be read)"
        return text


_Reader = Callable[[str, str, frozenset[str]], list[Declared]]


def read_plugin_evidence(
    root: Path, files: Iterable[Path], cwd: Path, installed: frozenset[Path] = frozenset()
) -> PluginEvidence:
    """`root` is the repository root, `files` every file of the repository (absolute paths; the
    caller has already applied .gitignore and excludes), `cwd` is used for display paths via
    span.display_path; `installed` the files read as requirements files whatever their names
    (:mod:`detlint.readers.dependencies.installed_files`).

    Never raises: a file that cannot be read or parsed becomes a Problem and the rest are read.
    """
    found: dict[tuple[str, Span], Requirement] = {}
    seeds: set[str] = set()
    problems: list[Problem] = []
    seen: set[Path] = set()
    enabler: tuple[int, str] | None = None  # the shallowest pyproject's table, by depth
    for path in files:
        reader = _reader_for(path, root, installed)
        if reader is None or path in seen:
            continue
        seen.add(path)
        display = display_path(path, cwd)
        locked = reader in _LOCK_READERS
        lock = reader in (read_pixi_lock, read_conda_lock)
        limit = size_limit() * (_LOCK_FACTOR if lock else 1)
        text = _read_text(path, display, limit)
        if isinstance(text, Problem):
            problems.append(text)
            continue
        if text is None:
            continue
        try:
            declared = reader(text, _relative(path, root), WANTED | _SEEDS)
            if reader is read_pyproject and "enabler" in text:
                addopts = enabler_addopts(text, "ignore_flaky")
                depth = len(Path(_relative(path, root)).parts)
                if addopts is not None and (enabler is None or depth < enabler[0]):
                    enabler = (depth, addopts)
        except DependencyFileError as error:
            where = Span(display, error.line, error.column, error.line, error.column)
            problems.append(Problem(where, str(error)))
            continue
        for item in declared:
            if item.name in _SEEDS:
                seeds.add(item.name)
                continue
            span = Span(display, item.line, item.column, item.end_line, item.end_column)
            requirement = Requirement(item.name, item.specifier, span, item.source, locked)
            found.setdefault((item.name, span), requirement)
    requirements = sorted(found.values(), key=lambda r: (r.span, r.plugin, r.source))
    return PluginEvidence(
        tuple(requirements),
        tuple(sorted(problems, key=lambda p: (p.span, p.message))),
        enabler_ignore_flaky=None if enabler is None else enabler[1],
        seed_plugins=frozenset(seeds),
    )


def _relative(path: Path, root: Path) -> str:
    """The path as it is named in a Requirement's source: relative to the repository root."""
    try:
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return Path(os.path.abspath(path)).as_posix()


def is_dependency_file(path: Path, root: Path, installed: frozenset[Path] = frozenset()) -> bool:
    """Whether detlint reads ``path`` for dependencies (by its name and folder, or because
    it is in ``installed``: the files the project installs with ``pip install -r``)."""
    return _reader_for(path, root, installed) is not None


def may_name_dependency_file(name: str) -> bool:
    """Whether a file's relative name can be one :func:`_named_reader` reads, decided on
    the string: the listing of a whole tree builds a ``Path`` only for these."""
    base = name.rsplit("/", 1)[-1]
    if base in _READERS or base.startswith("pylock."):
        return True
    return base.lower().endswith((".yml", ".yaml", ".txt", ".in"))


def _reader_for(path: Path, root: Path, installed: frozenset[Path] = frozenset()) -> _Reader | None:
    """The reader for a dependency file, chosen by name (or, for a file a project installs
    with ``pip install -r`` whatever its name, the requirements reader); None otherwise."""
    reader = _named_reader(path, root)
    if reader is None and path in installed:
        return read_requirements_txt
    return reader


def _named_reader(path: Path, root: Path) -> _Reader | None:
    """The reader for a dependency file by its name and folder."""
    name = path.name
    if name in _READERS:
        return _READERS[name]
    if name.startswith("pylock.") and name.endswith(".toml"):
        return read_pylock
    suffix = path.suffix.lower()
    if suffix in (".yml", ".yaml"):
        return _yaml_reader(path, root)
    if suffix not in (".txt", ".in"):
        return None
    lowered = name.lower()
    if "requirements" in lowered or "constraints" in lowered:
        return read_requirements_txt
    if suffix == ".in" and lowered != "manifest.in" and lowered.count(".") == 1:
        return read_requirements_txt  # pip-tools' inputs: dev.in, test.in (not config.h.in)
    return read_requirements_txt if "requirements" in _folders(path, root) else None


# Folders whose YAML files are conda environments when they have a top-level `dependencies:`
# (pandas' ci/deps/*.yaml, xarray's ci/requirements/*.yml), whatever their names.
_CONDA_FOLDERS = frozenset(
    {"ci", ".ci", "continuous_integration", "conda", "envs", "environments", "requirements"}
)


# environment.yml, environment-dev.yaml, tests-environment.yml, env.yml, ci-env.yaml; not envoy.yml.
_ENVIRONMENT_NAME = re.compile(r"environment|(?:^|[-_.])env(?:[-_.]|$)")


def _yaml_reader(path: Path, root: Path) -> _Reader | None:
    """conda-lock's lock files, and the YAML files that may be conda environments: named like
    one or kept in a folder of environments. Which of those really are environments their text
    decides (a workflow named ``deploy-environment.yml`` is not one)."""
    lowered = path.name.lower()
    if lowered.endswith(("conda-lock.yml", "conda-lock.yaml")):
        return read_conda_lock
    if _ENVIRONMENT_NAME.search(lowered):
        return read_conda_environment
    return read_conda_environment if _CONDA_FOLDERS & _folders(path, root) else None


def _folders(path: Path, root: Path) -> set[str]:
    """The folders of ``path`` below ``root`` (all of them for a path outside it), lowered:
    strings, as :func:`_relative` decides, since the listing of a tree asks for thousands."""
    full, top = os.path.abspath(path), os.path.join(os.path.abspath(root), "")
    relative = full[len(top) :] if full.startswith(top) else full
    return {part.lower() for part in relative.split(os.sep)[:-1] if part}


def _read_text(path: Path, display: str, limit: int | None = None) -> str | Problem | None:
    """The text of a file that mentions a plugin, None if it mentions none, or a Problem."""
    data = read_bytes(path, display, limit)
    if isinstance(data, Problem):
        return data
    if _MENTION.search(data) is None:
        return None
    return decode_text(data, display)


_READERS: dict[str, _Reader] = {
    "pyproject.toml": read_pyproject,
    "setup.cfg": read_setup_cfg,
    "setup.py": read_setup_py,
    "noxfile.py": read_noxfile,
    "tox.ini": read_tox_ini,
    "poetry.lock": read_package_lock,
    "uv.lock": read_package_lock,
    "pdm.lock": read_package_lock,
    "Pipfile": read_pipfile,
    "Pipfile.lock": read_pipfile_lock,
    "pixi.toml": read_pixi_toml,
    "pixi.lock": read_pixi_lock,
}

# Readers of lock files, whose entries are cited after the declarations they were solved from.
_LOCK_READERS = frozenset(
    {read_package_lock, read_pylock, read_pipfile_lock, read_pixi_lock, read_conda_lock}
)


def declares_dependencies(
    project: Path, files: Sequence[Path], installed: frozenset[Path] = frozenset()
) -> bool:
    """Whether the project declares its dependencies anywhere detlint reads.

    Only then does "no rerun plugin declared" mean a `flaky` marker is inert;
    a project with no dependency files at all says nothing either way. A YAML file
    in a ``ci/`` folder (or named like an environment) counts only when it is a conda
    environment, as its top-level ``dependencies:`` key shows.
    """
    return any(_declares(path, project, installed) for path in files)


def _declares(path: Path, project: Path, installed: frozenset[Path]) -> bool:
    """Whether one file declares dependencies: by its name, or for YAML by its top level."""
    reader = _reader_for(path, project, installed)
    if reader is not read_conda_environment:
        return reader is not None
    data = read_bytes(path, str(path))
    return not isinstance(data, Problem) and is_conda_environment(data)


def requirement_text(plugin: str, specifier: str) -> str:
    """A plugin with its specifier as people write it: "flaky>=3.8", "flaky @ <url>", and a
    bare conda or Poetry version with a space, "flaky 3.8.*", not "flaky3.8.*"."""
    separator = " " if specifier[:1].isalnum() or specifier[:1] == "@" else ""
    return f"{plugin}{separator}{specifier}"
