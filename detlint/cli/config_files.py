"""Where detlint's settings come from: the config file, ``--config``, the command line.

Discovery follows ruff: the nearest ``detlint.toml``, or ``pyproject.toml`` with a
``[tool.detlint]`` table, at or above the first path checked, but never above the
git root (or, outside git, the working directory): a config file in a home
directory or a parent checkout belongs to some other project. ``--config FILE``
names a file anywhere; ``--config KEY=VALUE`` overrides one key, written as TOML
(``--config 'fail-on = "error"'``); ``--isolated`` reads no file at all.

A ``pyproject.toml`` on the way up that is not valid TOML stops the run with a
usage error whichever of its tables is broken: detlint cannot tell whether it
configures detlint, and defaults in place of a project's settings would print
findings the project had configured away.

Each key remembers where it came from (the file, ``--config``, a command-line
flag), so that ``--show-settings`` can say so. Flags that add to a list
(``--ignore``, ``--extend-select``, ``--extend-exclude``) add to the file's list;
every other source replaces the key.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from detlint.base.paths import display_path
from detlint.cli.config_keys import SettingsError, parse_settings
from detlint.readers.project.settings import Settings

CONFIG_NAMES = ("detlint.toml", "pyproject.toml")


class Layer(NamedTuple):
    """One source of keys: a config file, one ``--config KEY=VALUE``, or a flag.

    NamedTuples rather than frozen dataclasses, as immutable and much cheaper to
    define: this module is imported by every run, a one-file pre-commit run included."""

    origin: str  # as --show-settings names it: a path, "--config", "--select"
    table: dict[str, Any]
    adds: bool = False  # list values add to the keys' earlier values instead of replacing them


class Resolved(NamedTuple):
    """The settings of a run, the config file read (None: none) and each key's source."""

    settings: Settings
    config: Path | None
    origins: dict[str, str]  # key -> source; keys not in it are defaults


def _read_document(path: Path) -> dict[str, Any]:
    from detlint.base.toml_reader import TOMLDecodeError, shared_toml  # only when a file exists

    shown = display_path(path, Path.cwd())
    try:
        # A BOM is dropped by hand: the utf-8-sig codec is one more import on every run.
        return shared_toml(path.read_bytes().removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise SettingsError(f"cannot read {shown}: {error}") from None
    except TOMLDecodeError as error:
        raise SettingsError(f"{shown} is not valid TOML: {error}") from None


def read_table(path: Path) -> dict[str, Any] | None:
    """The detlint keys of a config file; None for a pyproject.toml without the table.

    detlint.toml, or any file ``--config`` names other than a pyproject.toml, may
    hold the keys at its top level or under ``[tool.detlint]``.
    """
    document = _read_document(path)
    tool = document.get("tool", {})
    if path.name != "pyproject.toml":
        nested = isinstance(tool, dict) and "detlint" in tool
        table = tool["detlint"] if nested else document
        if nested and len(document) > 1:
            other = next(key for key in document if key != "tool")
            raise SettingsError(f"{path}: unknown key {other!r} outside [tool.detlint]")
        if not isinstance(table, dict):
            raise SettingsError(f"[tool.detlint] in {path} must be a table")
        return table
    table = tool.get("detlint") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise SettingsError(f"[tool.detlint] in {path} must be a table")
    return table


def _boundary(directory: Path, cwd: Path) -> Path:
    """The highest directory discovery may look in: the git root above ``directory``;
    outside git, the working directory when ``directory`` is under it, else
    ``directory`` itself."""
    for base in (directory, *directory.parents):
        if os.path.lexists(base / ".git"):
            return base
    if directory == cwd or cwd in directory.parents:
        return cwd
    return directory


def find_settings_file(start: Path, cwd: Path | None = None) -> Path | None:
    """The nearest detlint.toml, or pyproject.toml with [tool.detlint], from ``start`` up
    to the git root (or the working directory); raises SettingsError for a
    pyproject.toml on the way that is not valid TOML."""
    here = Path(os.path.abspath(cwd if cwd is not None else Path.cwd()))
    absolute = Path(os.path.abspath(start))
    directory = absolute if absolute.is_dir() else absolute.parent
    stop = _boundary(directory, here)
    for base in (directory, *directory.parents):
        candidate = base / "detlint.toml"
        if candidate.is_file():
            return candidate
        candidate = base / "pyproject.toml"
        if candidate.is_file():
            try:
                data = candidate.read_bytes()
            except OSError:
                data = b""
            # `[tool.detlint]`, `[tool.detlint.per-file-ignores]`, `tool.detlint.x = …`
            # all name it; parsing then decides, and a broken file is an error either way.
            if b"detlint" in data and read_table(candidate) is not None:
                return candidate
            if data:
                _read_document(candidate)
        if base == stop:
            break
    return None


def split_config(arguments: Sequence[str]) -> tuple[Path | None, tuple[Layer, ...]]:
    """``--config`` values: at most one file, and ``KEY = VALUE`` overrides in order."""
    path: Path | None = None
    overrides: list[Layer] = []
    for argument in arguments:
        if os.path.isfile(argument):
            if path is not None:
                raise SettingsError(f"--config names two files: {path} and {argument}")
            path = Path(argument)
            continue
        if "=" not in argument:
            raise SettingsError(f"--config {argument!r}: no such file, and not a KEY=VALUE setting")
        from detlint.base.toml_reader import TOMLDecodeError, load_toml  # only for an override

        try:
            table = load_toml(argument)
        except TOMLDecodeError as error:
            raise SettingsError(
                f"--config {argument!r} is not a TOML `key = value` ({error}); "
                "strings need quotes, as in --config 'fail-on = \"error\"'"
            ) from None
        if len(table) != 1:
            raise SettingsError(f"--config {argument!r} must set exactly one key")
        overrides.append(Layer(f"--config {argument}", table))
    return path, tuple(overrides)


def _checked(layer: Layer) -> None:
    """Each layer's keys are checked on their own, so that an error names its source."""
    try:
        parse_settings(layer.table, None)
    except SettingsError as error:
        message = str(error)
        key = next(iter(layer.table))
        if layer.origin == f"--{key}" and message.startswith(f"{key} "):
            raise SettingsError(layer.origin + message[len(key) :]) from None  # --select has …
        raise SettingsError(f"{layer.origin}: {message}") from None


def resolve_settings(
    config: Sequence[str],
    start: Path,
    cwd: Path,
    *,
    isolated: bool = False,
    command_line: Sequence[Layer] = (),
) -> Resolved:
    """The settings of a run: the config file (``--config FILE``, else the nearest one;
    none with ``isolated``), then each ``--config KEY=VALUE``, then the flags."""
    named, overrides = split_config(config)
    if isolated and named is not None:
        raise SettingsError("--isolated reads no config file; --config names one")
    path = None if isolated else named or find_settings_file(start, cwd)
    table: dict[str, Any] = {}
    origins: dict[str, str] = {}
    if path is not None:
        read = read_table(path)
        if read is None and named is not None:
            raise SettingsError(f"{named} has no [tool.detlint] table")
        table = dict(read or {})
        parse_settings(table, path)  # errors name the file
        origins = dict.fromkeys(table, display_path(path, cwd))
    cli_ignores = False
    for layer in (*overrides, *command_line):
        _checked(layer)
        for key, value in layer.table.items():
            if layer.adds and isinstance(value, list) and isinstance(table.get(key), list):
                table[key] = [*table[key], *value]
                origins[key] = f"{origins[key]} + {layer.origin}"
            else:
                table[key] = value
                origins[key] = layer.origin
            if key == "per-file-ignores":
                cli_ignores = True
    settings = parse_settings(table, path)
    if cli_ignores:  # the command line's globs start from the working directory
        settings = replace(settings, ignores_base=Path(os.path.abspath(cwd)))
    return Resolved(settings, path, origins)


def load_settings(config: Path | None, start: Path) -> Settings:
    """Settings from ``config`` if given, else from the nearest file above ``start``."""
    arguments = (os.fspath(config),) if config is not None else ()
    if config is not None and not config.is_file():
        raise SettingsError(f"{config}: no such file")
    return resolve_settings(arguments, start, Path.cwd()).settings
