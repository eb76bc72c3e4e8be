"""Where dependencies are declared in the TOML and JSON formats: pyproject.toml, pixi.toml, the lock
files of Poetry, uv, PDM and PEP 751, Pipfile and Pipfile.lock.

``tomllib`` and ``json`` give values but no positions, and a finding must point at the line a user
would edit. :class:`_TomlIndex` therefore scans the (already validated) text for the same string
or key inside the table it belongs to, with comments and multi-line strings masked out, and each
string found is claimed so that a value declared twice gets two distinct positions.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

from detlint.base.line_index import LineIndex
from detlint.base.toml_reader import TOMLDecodeError, shared_toml
from detlint.readers.dependencies.text_files import (
    Declared,
    DependencyFileError,
    declared_at,
    normalize_name,
    one_line,
    parse_requirement,
)


def _load_toml(text: str) -> dict[str, Any]:
    try:
        data: dict[str, Any] = shared_toml(text)
    except TOMLDecodeError as error:
        raise DependencyFileError(f"invalid TOML: {one_line(str(error))}") from None
    except RecursionError:
        raise DependencyFileError("invalid TOML: nested too deeply") from None
    return data


def _table(data: Any, *keys: str) -> dict[str, Any]:
    """The table at ``keys``, or an empty one when it is missing or not a table."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_DOTTED = rf"{_KEY_PART}(?:[ \t]*\.[ \t]*{_KEY_PART})*"
_HEADER = re.compile(rf"^[ \t]*(\[\[?)[ \t]*(?P<path>{_DOTTED})[ \t]*\]\]?[ \t]*(?:#.*)?\r?$", re.M)
_KEY = re.compile(rf"^[ \t]*(?P<path>{_DOTTED})[ \t]*=", re.M)
_TOKEN = re.compile(
    r"""(?P<comment>\#[^\n]*)|(?P<multi>\"\"\"(?:[^\\]|\\.)*?\"\"\"|'''.*?''')"""
    r"""|"(?P<basic>(?:[^"\\\n]|\\.)*)"|'(?P<literal>[^'\n]*)'""",
    re.DOTALL,
)


def _unquote(raw: str, basic: bool) -> str:
    """A TOML string's value; escapes are decoded as JSON's, which TOML's mostly are."""
    if not basic or "\\" not in raw:
        return raw
    try:
        value = json.loads(f'"{raw}"')
    except ValueError:
        return raw
    return value if isinstance(value, str) else raw


def _key_parts(path: str) -> tuple[tuple[str, int, int], ...]:
    """Each part of a dotted key with the offsets of its text inside ``path`` (no quotes)."""
    parts = []
    for match in re.finditer(_KEY_PART, path):
        quoted = match[0][0] in "\"'"
        value = _unquote(match[0][1:-1], match[0][0] == '"') if quoted else match[0]
        parts.append((value, match.start() + quoted, match.end() - quoted))
    return tuple(parts)


Region = tuple[int, int]


class _TomlIndex:
    """Where the strings, keys and table headers of a valid TOML text are, by offset."""

    def __init__(self, text: str) -> None:
        self.lines = LineIndex(text)
        self.strings: list[tuple[int, int, str]] = []
        masked: list[Region] = []
        for token in _TOKEN.finditer(text):
            if token["basic"] is not None:
                value = _unquote(token["basic"], basic=True)
                self.strings.append((token.start("basic"), token.end("basic"), value))
            elif token["literal"] is not None:
                self.strings.append(
                    (token.start("literal"), token.end("literal"), token["literal"])
                )
            else:
                masked.append(token.span())
        self._text, self._masked = text, masked  # comments and multi-line strings, in order
        self._masked_starts = [start for start, _ in masked]

        # (line start, body start, is an array entry, key path, span of the last key part)
        self.headers = [
            (
                m.start(),
                m.end(),
                m[1] == "[[",
                tuple(part[0] for part in parts),
                (m.start("path") + parts[-1][1], m.start("path") + parts[-1][2]),
            )
            for m in _HEADER.finditer(text)
            if not self._is_masked(m.start()) and (parts := _key_parts(m["path"]))
        ]
        self.keys = [
            (m.start("path") + p[0][1], m.start("path") + p[0][2], p[0][0])
            for m in _KEY.finditer(text)
            if not self._is_masked(m.start()) and (p := _key_parts(m["path"]))
        ]
        self.length = len(text)
        self._claimed: set[int] = set()

    def _is_masked(self, offset: int) -> bool:
        """Whether ``offset`` is inside a comment or multi-line string (by bisection: a large
        lock file has thousands of keys)."""
        index = bisect_right(self._masked_starts, offset) - 1
        return index >= 0 and offset < self._masked[index][1]

    def regions(self, table: tuple[str, ...], array: bool | None = None) -> list[Region]:
        """The body of each table (or array-of-tables entry) named ``table``, in file order."""
        ends = [header[0] for header in self.headers[1:]] + [self.length]
        return [
            (header[1], end)
            for header, end in zip(self.headers, ends, strict=True)
            if header[3] == table and array in (None, header[2])
        ]

    def key(self, name: str, regions: list[Region]) -> Region | None:
        """The first key whose first part is ``name`` inside ``regions``."""
        for start, end, first in self.keys:
            if first == name and any(low <= start < high for low, high in regions):
                return start, end
        return None

    def string(self, value: str, regions: list[Region] | None, after: int = 0) -> Region | None:
        """The first string equal to ``value`` not yet claimed by an earlier value; claims it."""
        for start, end, text in self.strings:
            if text != value or start < after or start in self._claimed:
                continue
            if regions is None or any(low <= start < high for low, high in regions):
                self._claimed.add(start)
                return start, end
        return None

    def item(self, table: tuple[str, ...], key: str, value: str) -> Region:
        """An element of the array ``table.key``: searched after that key, then anywhere."""
        regions = self.regions(table)
        found = self.key(key, regions)
        if found is not None:
            region = [next(r for r in regions if r[0] <= found[0] < r[1])]
            hit = self.string(value, region, after=found[1])
            if hit is not None:
                return hit
        return self.string(value, None) or found or (0, 0)

    def entry(self, table: tuple[str, ...], name: str) -> Region:
        """A key of the table ``table`` (``name = ...``), else a sub-table ``[table.name]``."""
        found = self.key(name, self.regions(table))
        if found is not None:
            return found
        for header in self.headers:
            if header[3] == (*table, name):
                return header[4]
        return self._inline_key(name) or (0, 0)

    def _inline_key(self, name: str) -> Region | None:
        """``name =`` anywhere outside comments, for keys of inline tables (``{ name = ... }``)."""
        pattern = rf"(?<![\w.\"'-])([\"']?)({re.escape(name)})\1[ \t]*="
        for match in re.finditer(pattern, self._text):
            if not self._is_masked(match.start()):
                return match.span(2)
        return None


def _pep508_lists(data: dict[str, Any]) -> Iterator[tuple[tuple[str, ...], str, Any]]:
    """(table, key, value) for every place pyproject.toml may hold a list of PEP 508 strings."""
    project = _table(data, "project")
    groups: list[tuple[tuple[str, ...], dict[str, Any]]] = [
        (("project",), {"dependencies": project.get("dependencies")}),
        (("project", "optional-dependencies"), _table(project, "optional-dependencies")),
        (("dependency-groups",), _table(data, "dependency-groups")),
        (("tool", "pdm", "dev-dependencies"), _table(data, "tool", "pdm", "dev-dependencies")),
        (("tool", "uv"), {"dev-dependencies": _table(data, "tool", "uv").get("dev-dependencies")}),
    ]
    for env, body in _table(data, "tool", "hatch", "envs").items():
        keys = ("dependencies", "extra-dependencies")
        groups.append((("tool", "hatch", "envs", env), {k: _table(body).get(k) for k in keys}))
    for table, lists in groups:
        for key, values in lists.items():
            yield table, key, values


def _version_of(value: Any, nested: bool = False) -> str:
    """A Poetry/pixi/Pipfile constraint as written: ``"^14"``, ``{version = "..."}``, a list of
    those joined with ``||``; ``"*"`` (any version) and git/path dependencies give ``""``."""
    if isinstance(value, str):
        return "" if value.strip() == "*" else value.strip()
    if isinstance(value, dict):
        return _version_of(value.get("version", ""), nested=True)
    if isinstance(value, list) and not nested:
        versions = (_version_of(v, nested=True) for v in value)
        return " || ".join(dict.fromkeys(v for v in versions if v))
    return ""


def read_pyproject(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """PEP 621/735 lists, Poetry's dependency tables, PDM's, uv's and Hatch's lists."""
    data = _load_toml(text)
    index = _TomlIndex(text)
    found: list[Declared] = []
    for table, key, values in _pep508_lists(data):
        label = f"[{'.'.join(table)}] {key}"
        for value in values if isinstance(values, list) else []:
            parsed = parse_requirement(value) if isinstance(value, str) else None
            if parsed is not None and parsed[0] in names:
                start, end = index.item(table, key, value)
                found.append(declared_at(index.lines, *parsed, start, end, f"{source} {label}"))
    poetry = _table(data, "tool", "poetry")
    tables: list[tuple[tuple[str, ...], Any]] = [
        (("tool", "poetry", "dependencies"), poetry.get("dependencies")),
        (("tool", "poetry", "dev-dependencies"), poetry.get("dev-dependencies")),
    ]
    for group, body in _table(poetry, "group").items():
        tables.append(
            (("tool", "poetry", "group", group, "dependencies"), _table(body, "dependencies"))
        )
    for table, entries in tables:
        label = f"{source} [{'.'.join(table)}]"
        found.extend(_read_dict_table(index, table, _table(entries), names, label))
    found.extend(_read_pixi(index, _table(data, "tool", "pixi"), ("tool", "pixi"), names, source))
    return found


def read_pixi_toml(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """pixi.toml: conda and PyPI dependency tables, of the workspace and of every feature."""
    return list(_read_pixi(_TomlIndex(text), _load_toml(text), (), names, source))


def _pixi_tables(
    body: dict[str, Any], path: tuple[str, ...], depth: int = 0
) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every table of a pixi manifest that installs packages, with its path.

    pixi installs from ``[dependencies]`` and ``[pypi-dependencies]`` (and, for a package it
    builds, ``host-``/``build-``/``run-dependencies``), at the root and again under each
    ``feature.<name>``, ``target.<platform>`` and ``feature.<name>.target.<platform>``: a test
    plugin is typically declared in a ``test`` feature only, so every one of them is read.
    """
    if depth > 3:  # feature.<name>.target.<platform> is as deep as pixi nests
        return
    for key, value in body.items():
        if not isinstance(value, dict):
            continue
        if key.endswith("dependencies"):
            yield (*path, key), value
        elif key in ("feature", "target"):
            for name, nested in value.items():
                if isinstance(nested, dict):
                    yield from _pixi_tables(nested, (*path, key, name), depth + 1)
        elif key == "package":
            yield from _pixi_tables(value, (*path, key), depth + 1)


def _read_pixi(
    index: _TomlIndex,
    manifest: dict[str, Any],
    prefix: tuple[str, ...],
    names: frozenset[str],
    source: str,
) -> Iterator[Declared]:
    """The pixi tables of a manifest at ``prefix`` (``tool.pixi`` in pyproject.toml).

    Keys are package names, values a match spec (``">=14"``, ``"*"``) or a table with a
    ``version``; the name a conda package and its PyPI distribution share is what matters here.
    """
    for table, entries in _pixi_tables(manifest, prefix):
        label = f"{source} [{'.'.join(table)}]"
        yield from _read_dict_table(index, table, entries, names, label)


def _read_dict_table(
    index: _TomlIndex,
    table: tuple[str, ...],
    entries: dict[str, Any],
    names: frozenset[str],
    label: str,
) -> Iterator[Declared]:
    """``name = constraint`` tables: Poetry and pixi dependencies, Pipfile categories."""
    for name, value in entries.items():
        if normalize_name(name) in names:
            start, end = index.entry(table, name)
            yield declared_at(
                index.lines, normalize_name(name), _version_of(value), start, end, label
            )


def read_pipfile(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """``[packages]``, ``[dev-packages]`` and pipenv's custom package categories."""
    data = _load_toml(text)
    index = _TomlIndex(text)
    found: list[Declared] = []
    for category, entries in data.items():
        if category not in ("source", "requires", "pipenv", "scripts") and isinstance(
            entries, dict
        ):
            found.extend(
                _read_dict_table(index, (category,), entries, names, f"{source} [{category}]")
            )
    return found


def _read_locked(text: str, source: str, names: frozenset[str], array: str) -> list[Declared]:
    """``[[package]]`` entries of poetry.lock, uv.lock and pdm.lock (``[[packages]]`` of pylock).

    The n-th ``[[package]]`` header is the n-th entry, so the name is looked up in its own
    entry and never in another package's list of dependencies.
    """
    packages = _load_toml(text).get(array)
    packages = packages if isinstance(packages, list) else []
    wanted = [
        (number, package)
        for number, package in enumerate(packages)
        if isinstance(package, dict)
        and isinstance(package.get("name"), str)
        and normalize_name(package["name"]) in names
    ]
    if not wanted:  # most lock files name a plugin only as another package's dependency
        return []
    index = _TomlIndex(text)
    regions = index.regions((array,), array=True)
    found: list[Declared] = []
    for number, package in wanted:
        name = package["name"]
        version = package.get("version")
        specifier = f"=={version}" if isinstance(version, str) and version else ""
        own = [regions[number]] if len(regions) == len(packages) else None
        key = index.key("name", own) if own else None
        start, end = (index.string(name, own, after=key[1]) if key and own else None) or (
            index.string(name, None) or (0, 0)
        )
        found.append(declared_at(index.lines, normalize_name(name), specifier, start, end, source))
    return found


def read_pylock(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    return _read_locked(text, source, names, "packages")


def read_package_lock(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    return _read_locked(text, source, names, "package")


def read_pipfile_lock(text: str, source: str, names: frozenset[str]) -> list[Declared]:
    """Pipfile.lock's ``default``/``develop`` (and category) sections; versions are ``==x``."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise DependencyFileError(f"invalid JSON: {one_line(str(error))}") from None
    lines = LineIndex(text)
    claimed: set[int] = set()
    found: list[Declared] = []
    for section, packages in data.items() if isinstance(data, dict) else []:
        if section == "_meta" or not isinstance(packages, dict):
            continue
        anchor = re.search(re.escape(json.dumps(section, ensure_ascii=False)) + r"\s*:", text)
        for name, info in packages.items():
            if normalize_name(name) not in names:
                continue
            version = info.get("version") if isinstance(info, dict) else None
            pattern = re.compile(re.escape(json.dumps(name, ensure_ascii=False)) + r"\s*:")
            start = end = 0
            for match in pattern.finditer(text, anchor.end() if anchor else 0):
                if match.start() not in claimed:
                    claimed.add(match.start())
                    start, end = match.start() + 1, match.start() + 1 + len(name)
                    break
            specifier = version if isinstance(version, str) else ""
            found.append(
                declared_at(
                    lines, normalize_name(name), specifier, start, end, f"{source} {section}"
                )
            )
    return found
