"""detlint's own configuration: ``[tool.detlint]`` in pyproject.toml or ``detlint.toml``.

Found by walking up from the first scanned path (or the working directory);
``--config`` names a file directly. Unknown keys and bad values are errors that
name the key: a silently ignored typo in a linter's config is a rule that
quietly stops running. Rule codes are checked against the catalogue here, for
the same reason.

``exclude`` and ``extend-exclude`` both add to the directories detlint never
walks (version control, virtualenvs, caches, build output; see
``detlint.discover.DEFAULT_EXCLUDES``): those hold other projects' tests and
config, so no setting brings them back. ``vendored-dirs`` names the directories of
vendored code skipped by default (``detlint.discover.DEFAULT_VENDORED``; ``[]`` reads
them). ``per-file-ignores`` is applied to findings by :mod:`detlint.file_ignores`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from detlint.discover import DEFAULT_VENDORED
from detlint.reasons import DEFAULT_TRACKING_PATTERN
from detlint.severity import SEVERITIES
from detlint.span import display_path

if TYPE_CHECKING:
    pass

"""Finding severities from least to most severe; ``fail-on`` names one of them."""


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
    vendored_dirs: tuple[str, ...] = DEFAULT_VENDORED
    respect_gitignore: bool = True
    tracking_issue_pattern: str = DEFAULT_TRACKING_PATTERN
    # The reason a quarantine fix writes, a placeholder for the tracking issue; None
    # when not configured (DET201 then offers no fix: nobody knows the issue).
    quarantine_reason: str | None = None
    fix: bool = False  # `fix = true`: `detlint check` applies fixes unless --no-fix
    unsafe_fixes: bool = False  # `unsafe-fixes = true`: as --unsafe-fixes
    retry_decorators: frozenset[str] = frozenset()
    trial_env_readers: frozenset[str] = frozenset()
    # (glob, codes or prefixes) in file order; globs are relative to the config file's directory.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    fail_on: str | None = None  # the least severity that fails a run; None: any finding


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


def _parse(table: dict[str, Any], path: Path | None) -> Settings:
    settings = Settings(path=path)
    for key, value in table.items():
        if key == "reference-rate":
            settings = replace(settings, reference_rate=_probability(key, value))
        elif key == "target":
            settings = replace(settings, target=_probability(key, value))
        elif key == "select":
            settings = replace(settings, select=_codes(key, value))
        elif key == "ignore":
            settings = replace(settings, ignore=_codes(key, value))
        elif key == "extend-select":
            settings = replace(settings, extend_select=_codes(key, value))
        elif key == "per-file-ignores":
            settings = replace(settings, per_file_ignores=_per_file_ignores(key, value))
        elif key == "fail-on":
            settings = replace(settings, fail_on=_severity(key, value))
        elif key in ("exclude", "extend-exclude"):
            settings = replace(settings, exclude=settings.exclude + _strings(key, value))
        elif key == "vendored-dirs":
            settings = replace(settings, vendored_dirs=_strings(key, value))
        elif key == "respect-gitignore":
            settings = replace(settings, respect_gitignore=_boolean(key, value))
        elif key == "tracking-issue-pattern":
            settings = replace(settings, tracking_issue_pattern=_pattern(key, value))
        elif key == "fix":
            settings = replace(settings, fix=_boolean(key, value))
        elif key == "unsafe-fixes":
            settings = replace(settings, unsafe_fixes=_boolean(key, value))
        elif key == "quarantine-reason":
            settings = replace(settings, quarantine_reason=_reason_text(key, value))
        elif key == "retry-decorators":
            settings = replace(settings, retry_decorators=_dotted_names(key, value))
        elif key == "trial-env-readers":
            settings = replace(settings, trial_env_readers=_dotted_names(key, value))
        else:
            raise SettingsError(f"unknown key {key!r} in [tool.detlint]")
    return settings


def _table(path: Path) -> dict[str, Any] | None:
    from detlint.toml_reader import TOMLDecodeError, load_toml  # only when a file exists

    try:
        document = load_toml(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as error:
        raise SettingsError(f"cannot read {path}: {error}") from None
    except TOMLDecodeError as error:
        raise SettingsError(f"{path} is not valid TOML: {error}") from None
    tool = document.get("tool", {})
    if path.name != "pyproject.toml":
        # detlint.toml, or any file --config names: keys at the top level, or under
        # [tool.detlint] as in pyproject.toml.
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
    """Settings from ``config`` if given, else from the nearest file above ``start``.

    A pyproject.toml is read for its ``[tool.detlint]`` table; any other file
    (detlint.toml, or a file ``--config`` names) may also hold the keys at its
    top level. A pyproject.toml that ``--config`` names must have the table.
    """
    path = config if config is not None else find_settings_file(start)
    if path is None:
        return Settings()
    table = _table(path)
    if table is None and config is not None:
        raise SettingsError(f"{config} has no [tool.detlint] table")
    return parse_settings(table or {}, path)
