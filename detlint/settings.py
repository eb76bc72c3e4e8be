"""detlint's own configuration: ``[tool.detlint]`` in pyproject.toml or ``detlint.toml``.

Found by walking up from the first scanned path (or the working directory);
``--config`` names a file directly. Unknown keys and bad values are errors that
name the key: a silently ignored typo in a linter's config is a rule that
quietly stops running.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from detlint.reasons import DEFAULT_TRACKING_PATTERN


class SettingsError(ValueError):
    """A configuration problem, reported as a one-line usage error."""


@dataclass(frozen=True)
class Settings:
    path: Path | None = None
    reference_rate: float = 0.10
    target: float = 0.95
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    tracking_issue_pattern: str = DEFAULT_TRACKING_PATTERN
    retry_decorators: frozenset[str] = frozenset()
    trial_env_readers: frozenset[str] = frozenset()


def _strings(key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SettingsError(f"{key} must be a list of strings, got {value!r}")
    return tuple(value)


def _probability(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise SettingsError(f"{key} must be a number in (0, 1], got {value!r}")
    return float(value)


def _boolean(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(f"{key} must be true or false, got {value!r}")
    return value


def _pattern(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise SettingsError(f"{key} must be a regular expression string, got {value!r}")
    try:
        re.compile(value)
    except re.error as error:
        raise SettingsError(f"{key} is not a valid regular expression: {error}") from None
    return value


def parse_settings(table: dict[str, Any], path: Path | None) -> Settings:
    """Settings from a ``[tool.detlint]`` table; raises SettingsError naming the key."""
    where = f" in {path}" if path is not None else ""
    settings = Settings(path=path)
    for key, value in table.items():
        if key == "reference-rate":
            settings = replace(settings, reference_rate=_probability(key, value))
        elif key == "target":
            settings = replace(settings, target=_probability(key, value))
        elif key == "select":
            settings = replace(settings, select=_strings(key, value))
        elif key == "ignore":
            settings = replace(settings, ignore=_strings(key, value))
        elif key == "extend-select":
            settings = replace(settings, extend_select=_strings(key, value))
        elif key in ("exclude", "extend-exclude"):
            settings = replace(settings, exclude=settings.exclude + _strings(key, value))
        elif key == "respect-gitignore":
            settings = replace(settings, respect_gitignore=_boolean(key, value))
        elif key == "tracking-issue-pattern":
            settings = replace(settings, tracking_issue_pattern=_pattern(key, value))
        elif key == "retry-decorators":
            settings = replace(settings, retry_decorators=frozenset(_strings(key, value)))
        elif key == "trial-env-readers":
            settings = replace(settings, trial_env_readers=frozenset(_strings(key, value)))
        else:
            raise SettingsError(f"unknown key {key!r} in [tool.detlint]{where}")
    return settings


def _table(path: Path) -> dict[str, Any] | None:
    from detlint.toml_reader import TOMLDecodeError, load_toml  # only when a file exists

    try:
        document = load_toml(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as error:
        raise SettingsError(f"cannot read {path}: {error}") from None
    except TOMLDecodeError as error:
        raise SettingsError(f"{path} is not valid TOML: {error}") from None
    if path.name == "detlint.toml":
        table = document.get("tool", {}).get("detlint", document)
        return table if isinstance(table, dict) else None
    tool = document.get("tool", {})
    table = tool.get("detlint") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise SettingsError(f"[tool.detlint] in {path} must be a table")
    return table


def find_settings_file(start: Path) -> Path | None:
    """The nearest detlint.toml, or pyproject.toml with [tool.detlint], at or above start."""
    directory = start if start.is_dir() else start.parent
    for base in (directory.absolute(), *directory.absolute().parents):
        candidate = base / "detlint.toml"
        if candidate.is_file():
            return candidate
        candidate = base / "pyproject.toml"
        if candidate.is_file():
            try:
                if b"[tool.detlint" in candidate.read_bytes():
                    return candidate
            except OSError:
                continue
    return None


def load_settings(config: Path | None, start: Path) -> Settings:
    """Settings from ``config`` if given, else from the nearest file above ``start``."""
    path = config if config is not None else find_settings_file(start)
    if path is None:
        return Settings()
    table = _table(path)
    return parse_settings(table or {}, path)
