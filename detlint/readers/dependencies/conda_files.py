"""Where dependencies are declared in conda's formats: environment files, pixi.lock, conda-lock.yml.

A conda environment file (``environment.yml``, ``ci/environment-test.yaml``...) lists conda
match specs under a top-level ``dependencies:`` key, and pip requirement strings under a
``pip:`` entry of that list. Projects that test in conda environments declare their rerun
plugin there and nowhere else, so these files must be read for "no plugin declared" to mean
anything. They are read with detlint's own YAML loader (ruamel.yaml events, exact positions,
never PyYAML and never a constructor that could run anything), and only once their text has a
top-level ``dependencies:`` key: a CI workflow that happens to sit next to them is not one.

The lock files of pixi and conda-lock are YAML too, but tens of thousands of lines long, and a
plugin's name appears in them mostly as a URL or another package's dependency. Only the
plugin's own entry in the ``packages:`` (``package:``) list says it is installed, and that entry
has a fixed layout, so the files are scanned line by line rather than parsed, as cheaply as a
name search: its ``name:`` line, or in pixi's newer format the file name in its ``- conda:``
URL, and its ``version:``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING

from detlint.base.line_index import LineIndex
from detlint.readers.dependencies.text_files import (
    Declared,
    DependencyFileError,
    normalize_name,
    parse_requirement,
)

if TYPE_CHECKING:
    from detlint.base.span import Problem
    from detlint.readers.yaml.tree import YScalar

__all__ = [
    "is_conda_environment",
    "parse_match_spec",
    "read_conda_environment",
    "read_conda_lock",
    "read_pixi_lock",
]

# A conda environment has a top-level "dependencies:" key; a workflow's are nested, if any.
_TOP_DEPENDENCIES = re.compile(r"^\ufeff?[\"']?dependencies[\"']?[ \t]*:", re.M)


def is_conda_environment(data: bytes) -> bool:
    """Whether a YAML file's bytes have the top-level ``dependencies:`` key of an environment.

    Cheap enough to decide, without parsing, whether a ``ci/*.yml`` declares dependencies.
    """
    return _TOP_DEPENDENCIES.search(data.decode("utf-8", "replace")) is not None


_MATCH_SPEC = re.compile(
    r"\s*(?:[^\s:\[\]]+::)?"  # a channel, "conda-forge::" or "conda-forge/noarch::"
    r"(?P<name>[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?)"
    r"\s*(?:\[(?P<brackets>[^\]]*)\])?\s*(?P<rest>.*)",
    re.DOTALL,
)
_BRACKET_VERSION = re.compile(r"""\bversion\s*=\s*(['"]?)(?P<version>[^'",\]]*)\1""")


def parse_match_spec(text: str) -> tuple[str, str] | None:
    """The normalized name and version constraint of a conda match spec, or None if it is not one.

    conda writes ``name``, ``name>=1.2``, ``name=1.2`` (any 1.2.x), ``name 1.2.*``, ``name 1.2
    build``, ``channel::name`` and ``name[version='>=1.2']``. The constraint is kept as written,
    as a pip specifier is, because it is reported to the user; ``*`` is any version, as no
    constraint is. Anything after the name that cannot start a version (``flaky tests``) means
    the text is not a match spec at all.
    """
    match = _MATCH_SPEC.fullmatch(text)
    if match is None:
        return None
    rest = match["rest"].strip()
    if rest and not (rest[0] in "<>=!~*" or rest[0].isdigit()):
        return None
    if not rest and match["brackets"]:
        version = _BRACKET_VERSION.search(match["brackets"])
        rest = version["version"].strip() if version else ""
    return normalize_name(match["name"]), "" if rest == "*" else rest


def read_conda_environment(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """The conda specs of ``dependencies:`` and the pip requirements of its ``pip:`` entry.

    A file without a top-level ``dependencies:`` list is not an environment and declares
    nothing; one that is not valid YAML raises DependencyFileError at the line to fix.
    """
    if _TOP_DEPENDENCIES.search(text) is None:
        return []
    # Imported here: the YAML loader (and ruamel.yaml) only for a file that needs it.
    from detlint.readers.yaml.load import read_yaml
    from detlint.readers.yaml.tree import YMap, YScalar, YSeq

    parsed = read_yaml(text, source)
    if parsed.problems:
        raise _yaml_error(text, parsed.problems[0])
    document = parsed.documents[0] if parsed.documents else None
    dependencies = document.get("dependencies") if isinstance(document, YMap) else None
    if not isinstance(dependencies, YSeq):
        return []
    found: list[Declared] = []
    for item in dependencies:
        if isinstance(item, YScalar) and isinstance(item.value, str):
            spec = parse_match_spec(item.value)
            if spec is not None and spec[0] in names:
                found.append(_declared(item, spec, f"{source} dependencies"))
        pip = item.get("pip") if isinstance(item, YMap) else None
        for entry in pip if isinstance(pip, YSeq) else ():
            if isinstance(entry, YScalar) and isinstance(entry.value, str):
                requirement = parse_requirement(entry.value)
                if requirement is not None and requirement[0] in names:
                    found.append(_declared(entry, requirement, f"{source} dependencies pip"))
    return found


def _declared(node: YScalar, parsed: tuple[str, str], source: str) -> Declared:
    """A Declared covering a scalar's text, without the quotes of a one-line quoted scalar."""
    position = node.position
    quoted = node.quoted and position.line == position.end_line
    column, end_column = position.column + quoted, position.end_column - quoted
    return Declared(*parsed, position.line, column, position.end_line, end_column, source)


def _yaml_error(text: str, problem: Problem) -> DependencyFileError:
    """The error for an environment file that did not parse: the parser's own reason, where it
    stopped. (The loader's problem says which lines it skipped to read the rest, but a broken
    dependency file is not read at all, as a broken pyproject.toml is not.)"""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    from detlint.readers.yaml.errors import error_indexes, error_message

    try:
        for _ in YAML(typ="safe", pure=True).parse(text):
            pass
    except YAMLError as error:
        index = min(error_indexes(error, text)[0], len(text))
        line, column = LineIndex(text).position(index)
        return DependencyFileError(f"invalid YAML: {error_message(error, text)}", line, column)
    # The events were fine, the tree was not (an undefined alias, a document nested too deeply):
    # the loader's message says what, then what it did instead, which does not apply here.
    reason = problem.message.split(";", 1)[0]
    return DependencyFileError(f"invalid YAML: {reason}", problem.span.line, problem.span.column)


# Every pattern starts with a line break, a literal that re finds many times faster than "^".
_ENTRY_INDENT = re.compile(r"\n( *)- ")
_TOP_KEY = re.compile(r"\n[^\s#-]")
_ARCHIVE = re.compile(r"(?P<name>.+)-(?P<version>[^-]+)-[^-]+\.(?:conda|tar\.bz2)")
_VALUE = r"[ \t]*(['\"]?)(?P<value>[^'\"\s]+)\1[ \t]*(?=\r?\n|\Z)"


def read_pixi_lock(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """pixi.lock's ``packages:``: ``name:`` entries (PyPI, and conda before format 6) and
    ``- conda: <url>`` entries named by their archive's file name (format 6 and later)."""
    return _read_locked(text, source, names, "packages")


def read_conda_lock(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """conda-lock.yml's ``package:`` list, one ``- name:`` entry per package and platform."""
    return _read_locked(text, source, names, "package")


def _read_locked(text: str, source: str, names: frozenset[str], section: str) -> list[Declared]:
    """The wanted packages' own entries in the top-level ``section`` list, by name.

    Entries are the list's ``- `` lines; a key belongs to an entry when it is indented as the
    entry's first key is, so a ``name:`` nested deeper (or in another section) is never taken.
    The text is scanned with a line break in front, so that every line starts after one.
    """
    padded = "\n" + text
    header = re.search(rf"\n{section}:[ \t]*\r?(?=\n)", padded)
    if header is None:
        return []
    top = _TOP_KEY.search(padded, header.end())
    body = (header.end(), top.start() if top else len(padded))
    first = _ENTRY_INDENT.search(padded, *body)
    if first is None:
        return []
    indent = first[1]
    key = rf"\n{indent}(?:- |  )"
    name_line = re.compile(key + "name:" + _VALUE)
    version_line = re.compile(key + "version:" + _VALUE)
    starts = [m.start() for m in re.compile(rf"\n{indent}- ").finditer(padded, *body)]

    def entry(offset: int) -> tuple[int, int]:
        number = bisect_right(starts, offset) - 1
        return starts[number], starts[number + 1] if number + 1 < len(starts) else body[1]

    found: list[Declared] = []
    for match in name_line.finditer(padded, *body):
        name = normalize_name(match["value"])
        if name in names:
            version = version_line.search(padded, *entry(match.start()))
            specifier = f"=={version['value']}" if version else ""
            found.append(_locked(padded, name, specifier, match.span("value"), source))
    url_line = re.compile(rf"\n{indent}- conda:[ \t]*(?P<url>\S+)[ \t]*(?=\r?\n|\Z)")
    for match in url_line.finditer(padded, *body):
        url = match["url"]
        archive = _ARCHIVE.fullmatch(url.rsplit("/", 1)[-1].split("#", 1)[0])
        if archive is None or normalize_name(archive["name"]) not in names:
            continue
        if name_line.search(padded, *entry(match.start())):
            continue  # named by its own "name:" line, already taken
        start = match.start("url") + url.rfind("/") + 1
        name, specifier = normalize_name(archive["name"]), f"=={archive['version']}"
        found.append(
            _locked(padded, name, specifier, (start, start + len(archive["name"])), source)
        )
    return sorted(found, key=lambda declared: (declared.line, declared.column))


def _locked(padded: str, name: str, specifier: str, span: tuple[int, int], source: str) -> Declared:
    """A Declared for ``padded[start:end]`` on one line; ``padded`` is the text after a line
    break, so the breaks before an offset number its line. (Counting them for the few entries
    found is cheaper than indexing every line of a long lock file.)"""
    start, end = span
    line = padded.count("\n", 0, start)
    column = start - padded.rfind("\n", 0, start)
    return Declared(name, specifier, line, column, line, column + end - start, source)
