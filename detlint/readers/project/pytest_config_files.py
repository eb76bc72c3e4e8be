"""Readers for the seven files pytest can take its configuration from, keeping line numbers.

pytest reads INI files with ``iniconfig`` and TOML files with ``tomllib``; neither says on
which line a value sits, and configparser would not even read INI the same way (inline
comments, ``:`` separators, duplicate keys). So the INI reader here re-implements iniconfig's
line rules exactly, and the TOML reader lets ``tomllib`` decide validity and values, then scans
the lines itself to find where each key is written. A finding can then point at the line that
sets a rerun count, not just at the file.

Every reader returns ``None`` when the file does not configure pytest (pytest keeps walking
up) and a :class:`RawConfig` when it does, or when pytest would stop on it with an error.
Nothing here raises on bad input: problems become messages in ``RawConfig.problems``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from detlint.base.source import stand_in
from detlint.base.toml_positions import KeyLines, scan_toml
from detlint.base.toml_reader import TOMLDecodeError, shared_toml

BOM = "\N{BYTE ORDER MARK}"
_COMMENT_CHARS = "#;"

Segments = tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class RawValue:
    """One setting as pytest holds it before converting it to the option's type.

    ``toml`` is pytest's native TOML mode (``[pytest]`` in pytest.toml, ``[tool.pytest]`` in
    pyproject.toml), where values keep their TOML types and a wrong type is a pytest error;
    otherwise (ini mode) the value is a ``str`` or a ``list``. ``segments`` are the
    ``(line, text)`` pairs the value is written on, comments removed, so that each option or
    list item can be traced to its own line.
    """

    value: object
    toml: bool
    line: int
    segments: Segments


@dataclass(frozen=True)
class RawConfig:
    """The pytest section of one config file: values by key, the file's lines, file problems."""

    path: Path
    lines: tuple[str, ...]
    values: Mapping[str, RawValue]
    problems: tuple[str, ...]


class _Unusable(Exception):
    """The file exists but pytest would stop with an error on it."""


def _read_text(path: Path) -> str:
    """Decode the file strictly as UTF-8, as pytest does (it would crash on anything else)."""
    try:
        data = stand_in(path)
        if data is None:
            data = path.read_bytes()
    except OSError as exc:
        raise _Unusable(f"cannot read {path.name}: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Unusable(
            f"{path.name} is not valid UTF-8 (byte {exc.start}); pytest cannot read it"
        ) from exc


def _unusable(path: Path, message: str) -> RawConfig:
    return RawConfig(path, (), {}, (message,))


# --------------------------------------------------------------------------- INI (iniconfig)


@dataclass
class _IniEntry:
    line: int
    parts: list[tuple[int, str]]


def _parse_ini(name: str, text: str) -> tuple[list[str], dict[str, dict[str, _IniEntry]]]:
    """Parse like ``iniconfig.IniConfig`` (what pytest uses): no inline comments, a line
    starting with whitespace continues the previous value, ``#``/``;`` lines are skipped.
    As in iniconfig, line-shape errors are found first and structure errors (``deferred``)
    after, so the reported line is the one pytest names."""
    text = text.removeprefix(BOM).replace("\r\n", "\n").replace("\r", "\n")
    lines = text.splitlines()
    sections: dict[str, dict[str, _IniEntry]] = {}
    current: dict[str, _IniEntry] | None = None
    last: _IniEntry | None = None
    deferred: list[str] = []
    for number, raw in enumerate(lines, start=1):
        line = "" if raw.lstrip()[:1] in tuple(_COMMENT_CHARS) else raw.rstrip()
        if not line:
            continue
        if line[0] == "[":
            header = line
            for char in _COMMENT_CHARS:
                header = header.split(char)[0].rstrip()
            if header.endswith("]"):
                section = header[1:-1]
                if not section:
                    raise _Unusable(f"{name} line {number}: empty section name")
                if section in sections:
                    deferred.append(f"{name} line {number}: duplicate section {section!r}")
                current = sections.setdefault(section, {})
                last = None
                continue
            data = line.strip()  # iniconfig treats it as a continuation line
        elif not line[0].isspace():
            key, sep, value = line.partition("=")
            if not sep or ":" in key:
                key, sep, value = line.partition(":")
                if not sep:
                    raise _Unusable(f"{name} line {number}: unexpected line {line!r}")
            key = key.strip()
            if current is None:
                deferred.append(f"{name} line {number}: no section header defined")
            elif key in current:
                deferred.append(f"{name} line {number}: duplicate name {key!r}")
            value = value.strip()
            last = _IniEntry(number, [(number, value)] if value else [])
            if current is not None:
                current.setdefault(key, last)
            continue
        else:
            data = line.strip()
        if last is None:
            raise _Unusable(f"{name} line {number}: unexpected value continuation")
        last.parts.append((number, data))
    if deferred:
        raise _Unusable(deferred[0])
    return lines, sections


def _ini_values(section: Mapping[str, _IniEntry]) -> dict[str, RawValue]:
    return {
        key: RawValue(
            "\n".join(text for _, text in entry.parts), False, entry.line, tuple(entry.parts)
        )
        for key, entry in section.items()
    }


def _load_ini(path: Path, always: bool = False, cfg: bool = False) -> RawConfig | None:
    """pytest.ini/.pytest.ini (``always``: they count even when empty), tox.ini ``[pytest]``
    and setup.cfg (``cfg``: ``[tool:pytest]``; a plain ``[pytest]`` there is a pytest error)."""
    try:
        lines, sections = _parse_ini(path.name, _read_text(path))
    except _Unusable as exc:
        return _unusable(path, str(exc))
    problems: tuple[str, ...] = ()
    section = sections.get("tool:pytest" if cfg else "pytest")
    if section is None and cfg and "pytest" in sections:
        section = sections["pytest"]
        problems = (
            "[pytest] section in setup.cfg is no longer supported (pytest stops with an error);"
            " use [tool:pytest]",
        )
    if section is None and not always:
        return None
    return RawConfig(path, tuple(lines), _ini_values(section or {}), problems)


def load_pytest_ini(path: Path) -> RawConfig | None:
    return _load_ini(path, always=True)


def load_tox_ini(path: Path) -> RawConfig | None:
    return _load_ini(path)


def load_setup_cfg(path: Path) -> RawConfig | None:
    return _load_ini(path, cfg=True)


# --------------------------------------------------------------------------- TOML


@dataclass(frozen=True)
class _TomlDoc:
    lines: list[str]
    data: dict[str, object]
    keys: KeyLines
    code: list[str]
    problems: tuple[str, ...]

    def value(self, table: tuple[str, ...], key: str, value: object, toml: bool) -> RawValue:
        """``value`` with the lines of ``table.key``, or of the nearest enclosing key found."""
        path = (*table, key)
        while path and path not in self.keys:
            path = path[:-1]
        if not path:
            return RawValue(value, toml, 1, ())
        first, last, column = self.keys[path]
        segments = [(first, self.code[first - 1][column:])]
        segments += [(row, self.code[row - 1]) for row in range(first + 1, last + 1)]
        return RawValue(value, toml, first, tuple(segments))


def _parse_toml(path: Path) -> _TomlDoc:
    text = _read_text(path)
    problems: tuple[str, ...] = ()
    if text.startswith(BOM):
        problems = (f"{path.name} starts with a UTF-8 byte-order mark, which pytest rejects",)
        text = text[1:]
    try:
        data = shared_toml(text)
    except (TOMLDecodeError, RecursionError) as exc:
        raise _Unusable(f"{path.name} is not valid TOML: {exc}") from exc
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    keys, code = scan_toml(lines)
    return _TomlDoc(lines, data, keys, code, problems)


def _table(data: Mapping[str, object], key: str) -> dict[str, object] | None:
    value = data.get(key)
    return value if isinstance(value, dict) else None


def load_pytest_toml(path: Path) -> RawConfig | None:
    """pytest.toml/.pytest.toml: the ``[pytest]`` table in native TOML mode; always counts."""
    try:
        doc = _parse_toml(path)
    except _Unusable as exc:
        return _unusable(path, str(exc))
    problems = doc.problems
    table = _table(doc.data, "pytest")
    if table is None:
        loose = [key for key, value in doc.data.items() if not isinstance(value, dict)]
        if loose:
            problems += (
                f"pytest configuration must be under a [pytest] table "
                f"(found top-level options: {', '.join(loose)})",
            )
        table = {}
    values = {key: doc.value(("pytest",), key, value, True) for key, value in table.items()}
    return RawConfig(path, tuple(doc.lines), values, problems)


def _ini_scalar(value: object) -> object:
    """``[tool.pytest.ini_options]`` turns every scalar into ``str`` (``2`` -> ``"2"``)."""
    return value if isinstance(value, list) else str(value)


def load_pyproject_toml(path: Path) -> RawConfig | None:
    """``[tool.pytest]`` (native TOML mode) or ``[tool.pytest.ini_options]`` (ini mode)."""
    try:
        doc = _parse_toml(path)
    except _Unusable as exc:
        return _unusable(path, str(exc))
    tool = _table(doc.data, "tool") or {}
    tool_pytest = _table(tool, "pytest") or {}
    native = {key: value for key, value in tool_pytest.items() if key != "ini_options"}
    ini = _table(tool_pytest, "ini_options")
    if not native and ini is None:
        return RawConfig(path, (), {}, doc.problems) if doc.problems else None
    problems = doc.problems
    if native and ini is not None:
        problems += (
            "cannot use both [tool.pytest] and [tool.pytest.ini_options]"
            " (pytest stops with an error)",
        )
    values = {key: doc.value(("tool", "pytest"), key, value, True) for key, value in native.items()}
    for key, value in (ini or {}).items():
        values[key] = doc.value(("tool", "pytest", "ini_options"), key, _ini_scalar(value), False)
    return RawConfig(path, tuple(doc.lines), values, problems)


#: The files pytest looks for in each directory, in the order it checks them.
CANDIDATES: tuple[tuple[str, Callable[[Path], RawConfig | None]], ...] = (
    ("pytest.toml", load_pytest_toml),
    (".pytest.toml", load_pytest_toml),
    ("pytest.ini", load_pytest_ini),
    (".pytest.ini", load_pytest_ini),
    ("pyproject.toml", load_pyproject_toml),
    ("tox.ini", load_tox_ini),
    ("setup.cfg", load_setup_cfg),
)


def load_directory(directory: Path) -> RawConfig | None:
    """The config file pytest would take from ``directory`` alone, or None to keep walking up."""
    for name, loader in CANDIDATES:
        candidate = directory / name
        try:
            is_file = candidate.is_file()
        except OSError as exc:
            return _unusable(candidate, f"cannot inspect {name}: {exc.strerror or exc}")
        if is_file:
            found = loader(candidate)
            if found is not None:
                return found
    return None
