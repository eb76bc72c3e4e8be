"""Requirement files a project installs, whatever their names.

A file is a requirements file because pip is told to read it, not because of its name:
mxnet's CI runs ``pip install -r ci/docker/install/requirements`` and that file, with no
``.txt`` and no ``requirements`` folder, is where its rerun plugins are declared. So the
files named by ``pip install -r FILE`` (``-c``, ``--requirement``, ``--constraint``,
``-rFILE``, ``uv pip install``, ``python -m pip install``) in pipeline files, Dockerfiles,
shell scripts and Makefiles, by ``-r`` in tox's ``deps`` and by ``-r`` includes inside
requirements files are read as requirements files too.

Only what the text says is followed: a path is resolved where the tool resolves it (an
include beside the including file, a Makefile's beside the Makefile, a pipeline's from the
checkout), a ``$VAR`` only when the same file binds it once to a literal, and a path inside
a Docker image only through a ``COPY`` that put it there. What cannot be mapped that way is
not guessed at. Every candidate file is tested with a byte search first, so a repository
whose files never mention ``-r`` costs one read of each candidate.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

from detlint.base.source import decode_text, read_bytes
from detlint.base.span import Problem

# Where install commands live, as git pathspecs (tox.ini's ``commands``, as well as
# its ``deps`` read as includes).
INSTALLER_PATHSPECS: tuple[str, ...] = tuple(
    f":(glob)**/{pattern}"
    for pattern in (
        "Dockerfile*",
        "*.Dockerfile",
        "*.dockerfile",
        "*.sh",
        "Makefile",
        "*.mk",
        "tox.ini",
        ".gitlab-ci*.yml",
        ".github/workflows/*",
        ".buildkite/**",
        ".circleci/**",
    )
)

_MAX_INCLUDES = 200  # files followed through ``-r`` includes; a cycle or a huge tree ends here
_OPTION_BYTES = re.compile(rb"-r|-c|--requirement|--constraint")

# An install command and what follows it up to the end of the shell command.
_INSTALL = re.compile(
    r"\b(?:pip3?(?:\.\d+)?|uv\s+pip|python3?(?:\.\d+)?\s+-m\s+pip)\s+install\b([^;&|\n]*)"
)
# An include line of a requirements file (or a tox ``deps`` value, after a factor).
_INCLUDE = re.compile(
    r"^\s*(?:[!\w{},.-]+:\s*)?(?:-r|-c|--requirement|--constraint)(?:\s*=\s*|\s*)(\S+)",
    re.MULTILINE,
)
# ``NAME=literal`` (shell, ``ENV``/``ARG``), ``ENV NAME literal``, ``NAME := literal`` (make).
_BINDINGS = (
    re.compile(r"^\s*(?:export\s+|ENV\s+|ARG\s+)?([A-Za-z_]\w*)=([\"']?)([^\s\"'$`]+)\2\s*$", re.M),
    re.compile(r"^\s*ENV\s+([A-Za-z_]\w*)\s+()([^\s=$]+)\s*$", re.M),
    re.compile(r"^([A-Za-z_]\w*)\s*[:?]?=\s*()([^\s$]+)\s*$", re.M),
)
# A pipeline's ``env:`` entry, ``NAME: literal``.
_YAML_BINDING = re.compile(r"^\s*([A-Za-z_]\w*):\s*([\"']?)([^\s\"'$]+)\2\s*$", re.M)
_REFERENCE = re.compile(r"\$(?:\{(\w+)\}|\((\w+)\)|(\w+))")


def installed_requirement_files(
    root: Path, installers: Iterable[Path], requirement_files: Iterable[Path]
) -> frozenset[Path]:
    """The existing files under ``root`` that ``installers`` (pipeline files, Dockerfiles,
    scripts, Makefiles) install with ``pip install -r``, and those that these and
    ``requirement_files`` (the files read by name, tox.ini among them) include with ``-r``;
    absolute and normalized, as ``root / name`` is."""
    found: set[Path] = set()
    for path in installers:
        text = _text(path, install=True)
        if text is not None:
            found.update(_existing(root, _installed_by(path, root, text)))
    named = {_normal(path) for path in requirement_files}
    queue = [*named, *sorted(found)]
    seen: set[Path] = set()
    while queue and len(seen) < _MAX_INCLUDES:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        text = _text(path, install=False)
        for target in [] if text is None else _included_by(path, text):
            resolved = _normal(target)
            if resolved.is_file() and root in resolved.parents:
                found.add(resolved)
                queue.append(resolved)
    return frozenset(found - named)


def _text(path: Path, *, install: bool) -> str | None:
    """The text of a file that may name a requirements file, else None (cheap byte tests)."""
    data = read_bytes(path, str(path))
    if isinstance(data, Problem) or _OPTION_BYTES.search(data) is None:
        return None
    if install and b"install" not in data:
        return None
    text = decode_text(data, str(path))
    return None if isinstance(text, Problem) else text


def _normal(path: Path) -> Path:
    return Path(os.path.normpath(os.path.abspath(path)))


def _existing(root: Path, candidates: Iterable[Path]) -> Iterator[Path]:
    for candidate in candidates:
        path = _normal(candidate)
        if root in path.parents and path.is_file():
            yield path


def _included_by(path: Path, text: str) -> Iterator[Path]:
    """Files a requirements file (or tox.ini's ``deps``) includes, beside it as pip reads
    them; comment lines are skipped by the match starting at a line's first word."""
    for match in _INCLUDE.finditer(text):
        target = match[1].strip("'\"").replace("{toxinidir}/", "")
        if "{" not in target and "$" not in target and "://" not in target:
            yield path.parent / target


def _logical_lines(text: str) -> Iterator[str]:
    """Lines with backslash continuations joined and comments cut off (``#`` at a line's
    start or after whitespace, as shells, Dockerfiles, YAML and make read it)."""
    logical = ""
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        if line.lstrip().startswith("#"):
            if logical and line.endswith("\\"):
                continue  # a comment inside a continued Dockerfile RUN
            line = ""
        cut = re.search(r"\s#", line)
        line = line[: cut.start()] if cut else line
        if line.endswith("\\"):
            logical += line[:-1] + " "
            continue
        yield logical + line
        logical = ""
    if logical:
        yield logical


def _bindings(text: str, yaml: bool) -> dict[str, str]:
    """Variables the file binds to one literal (however often): only their value is known."""
    values: dict[str, list[str]] = {}
    for pattern in (*_BINDINGS, _YAML_BINDING) if yaml else _BINDINGS:
        for match in pattern.finditer(text):
            values.setdefault(match[1], []).append(match[3])
    return {name: found[0] for name, found in values.items() if len(set(found)) == 1}


def _substituted(word: str, bindings: dict[str, str]) -> str | None:
    """``word`` with its variables replaced, or None when one is not a known literal."""

    def value(match: re.Match[str]) -> str:
        return bindings.get(match[1] or match[2] or match[3], "$")

    result = _REFERENCE.sub(value, word)
    return None if "$" in result or "`" in result else result


def _targets(arguments: str) -> Iterator[str]:
    """The files an install command's arguments name with ``-r``/``-c`` in any spelling."""
    words = [word.strip("'\"") for word in arguments.split()]
    for index, word in enumerate(words):
        if word in ("-r", "-c", "--requirement", "--constraint"):
            if index + 1 < len(words):
                yield words[index + 1]
        elif word.startswith(("--requirement=", "--constraint=")):
            yield word.split("=", 1)[1]
        elif word[:2] in ("-r", "-c") and len(word) > 2 and word[2] != "-":
            yield word[2:].lstrip("=")


def _install_targets(line: str, bindings: dict[str, str]) -> Iterator[str]:
    for match in _INSTALL.finditer(line):
        for target in _targets(match[1]):
            resolved = _substituted(target, bindings)
            if resolved and "://" not in resolved and "{" not in resolved:
                yield resolved


def _installed_by(path: Path, root: Path, text: str) -> Iterator[Path]:
    """Candidate files an installer names, resolved where its tool runs."""
    name = path.name.lower()
    bindings = _bindings(text, yaml=name.endswith((".yml", ".yaml")))
    if name.startswith("dockerfile") or name.endswith(".dockerfile"):
        yield from _docker_installs(path, root, text, bindings)
        return
    for line in _logical_lines(text):
        for target in _install_targets(line, bindings):
            if target.startswith("/"):
                continue  # a path on the machine running the job, not in the checkout
            if name in ("makefile", "tox.ini") or name.endswith(".mk"):
                yield path.parent / target  # make and tox run beside their files
            elif name.endswith(".sh"):
                yield root / target  # run from the checkout, or from its own folder
                yield path.parent / target
            else:
                yield root / target  # a pipeline step starts in the checkout


def _docker_installs(path: Path, root: Path, text: str, bindings: dict[str, str]) -> Iterator[Path]:
    """Files a Dockerfile's ``RUN`` installs, mapped back through its ``WORKDIR`` and
    ``COPY``/``ADD`` lines to the build context, tried as the repository root and as the
    Dockerfile's folder (the build context is set where the image is built)."""
    workdir = PurePosixPath("/")
    copies: list[_Copy] = []
    for line in _logical_lines(text):
        instruction, _, rest = line.strip().partition(" ")
        instruction = instruction.upper()
        if instruction == "WORKDIR":
            workdir = workdir / (_substituted(rest.strip(), bindings) or "/nowhere")
        elif instruction in ("COPY", "ADD"):
            copy = _copy(rest, workdir, bindings)
            if copy is not None:
                copies.append(copy)
        elif instruction == "RUN":
            for target in _install_targets(rest, bindings):
                image = workdir / target
                sources = list(_copied(image, copies))
                if not sources and not target.startswith("/"):
                    sources = [target]
                for source in sources:
                    yield root / source
                    yield path.parent / source


_Copy = tuple[list[str], PurePosixPath, bool]


def _copy(rest: str, workdir: PurePosixPath, bindings: dict[str, str]) -> _Copy | None:
    """A ``COPY``/``ADD``'s sources, its destination in the image and whether that is a
    folder (a trailing ``/``); None for one from another stage, in JSON form, or with a
    variable not bound to a literal."""
    if "--from" in rest or rest.lstrip().startswith("["):
        return None
    words: list[str] = []
    for word in rest.split():
        if word.startswith("--"):
            continue
        value = _substituted(word, bindings)
        if value is None:
            return None
        words.append(value)
    if len(words) < 2:
        return None
    return words[:-1], workdir / words[-1], words[-1].endswith("/")


def _copied(
    image: PurePosixPath, copies: list[tuple[list[str], PurePosixPath, bool]]
) -> Iterator[str]:
    """Where a file in the image came from: the build-context paths of the latest ``COPY``
    that put something at ``image`` (a file copied there, or one inside a copied folder)."""
    for sources, destination, into in reversed(copies):
        found: list[str] = []
        for source in sources:
            if "*" in source or "$" in source:
                continue
            if into or len(sources) > 1:
                if image.parent == destination and image.name == PurePosixPath(source).name:
                    found.append(source)  # COPY install/requirements /work/
                if destination in image.parents:  # COPY install/ /work/: its contents
                    found.append(f"{source.rstrip('/')}/{image.relative_to(destination)}")
            elif image == destination:
                found.append(source)
            elif destination in image.parents:
                found.append(f"{source.rstrip('/')}/{image.relative_to(destination)}")
        if found:
            yield from found
            return
