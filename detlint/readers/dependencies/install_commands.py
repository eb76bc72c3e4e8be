"""Rerun plugins an install command names: ``pip install pytest pytest-rerunfailures``.

Many projects declare their test tools nowhere but where they are installed: a CI step,
a Dockerfile's ``RUN``, a setup script or a Makefile target runs ``pip install pytest
pytest-rerunfailures`` (or ``uv pip install``, ``python -m pip install``, ``conda
install``, ``pixi add``) before pytest. Such a command is as good evidence of the plugin
as a requirements file; one reading serves every file that holds commands.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from detlint.base.paths import display_path
from detlint.base.source import decode_text, read_bytes
from detlint.base.span import Problem, Span
from detlint.readers.dependencies.declarations import WANTED, Requirement
from detlint.readers.dependencies.text_files import normalize_name

# An install command and the words after it, up to the end of that command.
_INSTALL = re.compile(
    r"(?:\b(?:pip3?|pip3\.\d+|uv\s+pip|python3?(?:\.\d+)?\s+-m\s+pip)\s+install"
    r"|\b(?:conda|mamba|micromamba)\s+install|\bpixi\s+add|\buv\s+add)"
    r"((?:(?:[ \t]+|[ \t]*\\\n[ \t]*)[^\s;&|\\]+)*)",
)
# A requirement word: a name, with extras and a version specifier perhaps (quotes off).
_REQUIREMENT = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?((?:[<>=!~]=?|==?)\S*)?")


@dataclass(frozen=True)
class Installed:
    """One plugin an install command names: its canonical name, the version specifier as
    written ("" for none), and the offset of the command in the text read."""

    plugin: str
    specifier: str
    offset: int


def installed_names(text: str) -> Iterator[Installed]:
    """Every rerun plugin (or companion) the install commands in ``text`` name."""
    for match in _INSTALL.finditer(text):
        for word in match.group(1).split():
            found = _REQUIREMENT.fullmatch(word.strip("'\""))
            if found is None:
                continue
            name = normalize_name(found.group(1))
            if name in WANTED:
                yield Installed(name, found.group(2) or "", match.start())


# Pipeline files (YAML) hold install commands too, but the CI reader reads them step by
# step, with the directory each step works in (``readers.ci.installs``).
_PIPELINE_SUFFIXES = (".yml", ".yaml")
_PLUGIN_BYTES = re.compile(rb"rerunfailures|flaky|pytest-retry|pytest-repeat", re.I)
# A comment of a shell script, Dockerfile or Makefile: blanked, so that offsets hold.
_COMMENT = re.compile(r"(?m)(?:^|(?<=[ \t]))#[^\n]*")


def _uncommented(text: str) -> str:
    return _COMMENT.sub(lambda match: " " * len(match.group(0)), text)


def installer_requirements(
    root: Path, installers: Iterable[Path], cwd: Path
) -> Iterator[tuple[str, Requirement]]:
    """(the directory of the file, relative to ``root``; the plugin) for every rerun
    plugin a Dockerfile, shell script or Makefile installs by name. The file's own
    directory says which project it serves (``docker/Dockerfile`` serves the root)."""
    for path in installers:
        if path.name.endswith(_PIPELINE_SUFFIXES):
            continue
        display = display_path(path, cwd)
        data = read_bytes(path, display, max_bytes=1_000_000)
        if isinstance(data, Problem) or _PLUGIN_BYTES.search(data) is None:
            continue
        text = decode_text(data, display)
        if isinstance(text, Problem):
            continue
        directory = path.parent.relative_to(root).as_posix()
        for found in installed_names(_uncommented(text)):
            start = text.rfind("\n", 0, found.offset) + 1
            end = text.find("\n", found.offset)
            line = text.count("\n", 0, start) + 1
            span = Span.whole_line(display, line, text[start : end if end >= 0 else None])
            source = f"installed by {display}"
            yield (
                "" if directory == "." else directory,
                Requirement(found.plugin, found.specifier, span, source),
            )
