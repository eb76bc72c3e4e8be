"""The keys of ``[tool.detlint]``: what each accepts, checked as the table is read.

Unknown keys and bad values are errors that name the key: a silently ignored typo
in a linter's config is a rule that quietly stops running. Rule codes are checked
against the catalogue here, for the same reason. The keys become one
:class:`~detlint.readers.project.settings.Settings` value.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from detlint.base.paths import display_path
from detlint.base.severity import SEVERITIES
from detlint.readers.project.settings import Settings

if TYPE_CHECKING:
    from collections.abc import Callable


class SettingsError(ValueError):
    """A configuration problem, reported as a one-line usage error."""


def _strings(key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SettingsError(f"{key} must be a list of strings, got {value!r}")
    return tuple(value)


def _probability(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise SettingsError(f"{key} must be a probability in (0, 1), got {value!r}")
    return float(value)


def _boolean(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(f"{key} must be true or false, got {value!r}")
    return value


def _reason_text(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        raise SettingsError(f"{key} must be a non-empty one-line string, got {value!r}")
    return value


def _pattern(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise SettingsError(f"{key} must be a regular expression string, got {value!r}")
    try:
        re.compile(value)
    except re.error as error:
        raise SettingsError(f"{key} is not a valid regular expression: {error}") from None
    return value


def _codes(key: str, value: Any) -> tuple[str, ...]:
    """A list of rule codes or prefixes (``ALL`` too), each one known to the catalogue."""
    from detlint.rules.catalogue import unknown_codes  # only when a code list is configured

    codes = _strings(key, value)
    unknown = unknown_codes(codes)
    if unknown:
        raise SettingsError(f"{key} has an unknown rule code {unknown[0]!r}")
    return codes


def _dotted_names(key: str, value: Any) -> frozenset[str]:
    """Importable names such as ``ourlib.testing.retry_test``; an empty or odd name would
    match every file's bytes in the prefilter, or nothing at all."""
    names = _strings(key, value)
    for name in names:
        if not all(part.isidentifier() for part in name.split(".")):
            raise SettingsError(f"{key} must hold dotted Python names, got {name!r}")
    return frozenset(names)


def _per_file_ignores(key: str, value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise SettingsError(f'{key} must be a table of "glob" = [codes], got {value!r}')
    entries = []
    for glob, codes in value.items():
        if not glob.removeprefix("!").strip():
            raise SettingsError(f"{key} has an empty glob")
        entries.append((glob, _codes(f"{key} {glob!r}", codes)))
    return tuple(entries)


def _size(key: str, value: Any) -> int:
    """A size in bytes: a positive integer (``5_000_000`` in TOML)."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise SettingsError(f"{key} must be a positive number of bytes, got {value!r}")
    return value


def _severity(key: str, value: Any) -> str:
    if value not in SEVERITIES:
        raise SettingsError(f"{key} must be one of {', '.join(SEVERITIES)}, got {value!r}")
    return str(value)


def parse_settings(table: dict[str, Any], path: Path | None) -> Settings:
    """Settings from a ``[tool.detlint]`` table; raises SettingsError naming the key
    (and the file, when there is one)."""
    try:
        return _parse(table, path)
    except SettingsError as error:
        if path is None:
            raise
        raise SettingsError(f"{display_path(path, Path.cwd())}: {error}") from None


# Each key, the Settings field it sets and the function that checks its value, in the
# order --show-settings prints them.
KEYS: dict[str, tuple[str, Callable[[str, Any], Any]]] = {
    "select": ("select", _codes),
    "ignore": ("ignore", _codes),
    "extend-select": ("extend_select", _codes),
    "per-file-ignores": ("per_file_ignores", _per_file_ignores),
    "fail-on": ("fail_on", _severity),
    "reference-rate": ("reference_rate", _probability),
    "target": ("target", _probability),
    "exclude": ("exclude", _strings),
    "extend-exclude": ("extend_exclude", _strings),
    "force-exclude": ("force_exclude", _boolean),
    "vendored-dirs": ("vendored_dirs", _strings),
    "respect-gitignore": ("respect_gitignore", _boolean),
    "max-file-size": ("max_file_size", _size),
    "tracking-issue-pattern": ("tracking_issue_pattern", _pattern),
    "quarantine-reason": ("quarantine_reason", _reason_text),
    "retry-decorators": ("retry_decorators", _dotted_names),
    "trial-env-readers": ("trial_env_readers", _dotted_names),
    "fix": ("fix", _boolean),
    "unsafe-fixes": ("unsafe_fixes", _boolean),
}


def _parse(table: dict[str, Any], path: Path | None) -> Settings:
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in KEYS:
            raise SettingsError(f"unknown key {key!r} in [tool.detlint]")
        field, check = KEYS[key]
        values[field] = check(key, value)
    return replace(Settings(path=path), **values)
