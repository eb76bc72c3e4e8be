"""Which files of a repository can declare its dependencies, found by one ``git ls-files``.

Dependency files are picked by name (:mod:`detlint.readers.dependencies.declarations`) and,
whatever their names, by being installed with ``pip install -r`` somewhere
(:mod:`detlint.readers.dependencies.installed_files`); both sets come from one listing.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from detlint.readers.dependencies.declarations import (
    is_dependency_file,
    may_name_dependency_file,
)
from detlint.readers.dependencies.installed_files import (
    INSTALLER_PATHSPECS,
    installed_requirement_files,
)

# Where dependency declarations live, as git pathspecs (any depth).
_DEPENDENCY_PATHSPECS = (
    *(
        f":(glob)**/{pattern}"
        for pattern in (
            "*requirements*",
            "*constraints*",
            "*.in",
            "requirements/**",
            "pyproject.toml",
            "setup.cfg",
            "setup.py",
            "noxfile.py",
            "tox.ini",
            "Pipfile",
            "Pipfile.lock",
            "poetry.lock",
            "uv.lock",
            "pdm.lock",
            "pylock*.toml",
            "pixi.toml",
            "pixi.lock",
        )
    ),
    # conda's YAML files: all YAML, sorted out by name and folder below (a pathspec per
    # name and folder, case-insensitive, would double the time git takes to answer).
    "*.[yY][mM][lL]",
    "*.[yY][aA][mM][lL]",
)


@dataclass(frozen=True)
class DependencyFiles:
    """A repository's dependency files: ``paths`` holds every one (absolute), those
    picked by name and the ``installed`` ones, read as requirements files because a
    pipeline, Dockerfile, script, Makefile, tox.ini or requirements file installs them."""

    paths: tuple[Path, ...]
    installed: frozenset[Path]
    # The Dockerfiles, scripts and Makefiles among the files: their install commands
    # may name a rerun plugin (``install_commands.installer_requirements``).
    installers: tuple[Path, ...] = ()


def dependency_files(project: Path, every_file: Callable[[], Sequence[str]]) -> list[Path]:
    """The files under ``project`` that can declare dependencies (:func:`dependency_listing`)."""
    return list(dependency_listing(project, every_file).paths)


def dependency_listing(project: Path, every_file: Callable[[], Sequence[str]]) -> DependencyFiles:
    """The files under ``project`` that can declare dependencies, and which of them are
    installed ones.

    In a git work tree one ``git ls-files`` with pathspecs answers in a few
    milliseconds; listing the whole repository (the fallback) costs tens.
    """
    project = Path(os.path.abspath(project))
    names = _listed(project)
    if names is None:
        # Strings: the fallback lists every file of the repository.
        inside = os.path.join(str(project), "")
        every = (os.path.abspath(path) for path in every_file())
        names = [
            path[len(inside) :].replace(os.sep, "/")
            for path in every
            if path.startswith(inside) and os.path.isfile(path)
        ]
    found: list[Path] = []
    installers: list[Path] = []
    for name in names:
        installer, declares = is_installer(name), may_name_dependency_file(name)
        if not (installer or declares):
            continue
        path = project / name
        if installer:
            installers.append(path)
        if declares and is_dependency_file(path, project) and path.is_file():
            found.append(path)
    installed = installed_requirement_files(project, installers, found)
    return DependencyFiles((*found, *sorted(installed)), installed, tuple(installers))


def _listed(project: Path) -> list[str] | None:
    """The candidate files git lists (relative names), or None outside a git work tree."""
    from detlint.base.git_command import run_git  # only when a marker needs its plugin

    listed = run_git(
        project,
        *("ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"),
        *_DEPENDENCY_PATHSPECS,
        *INSTALLER_PATHSPECS,
    )
    if listed is None:
        return None
    return [name for name in listed.decode("utf-8", "surrogateescape").split("\0") if name]


_INSTALLER_GLOBS = tuple(spec.removeprefix(":(glob)**/") for spec in INSTALLER_PATHSPECS)


# The globs as one pattern, matched against the base name, the whole name and any
# tail of it after a slash (as ``fnmatchcase`` on each would be, once per file listed).
_INSTALLER = re.compile(
    "|".join(
        fnmatch.translate(pattern) for glob in _INSTALLER_GLOBS for pattern in (glob, f"*/{glob}")
    )
)


def is_installer(name: str) -> bool:
    """Whether a file (relative name, ``/``-separated) may install requirements files:
    a pipeline file, a Dockerfile, a shell script or a Makefile."""
    base = name.rsplit("/", 1)[-1]
    return _INSTALLER.match(base) is not None or _INSTALLER.match(name) is not None
