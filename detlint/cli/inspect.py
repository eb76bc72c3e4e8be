"""What ``--show-settings``, ``--show-files`` and ``-v`` print: how a run was set up.

A linter that reports nothing may be misconfigured rather than clean; these
say which config file was read, what each setting is and where it came from,
which files would be checked, and which pytest config and plugin declarations
the numbers rest on, so that a surprising result can be traced without
reading detlint's source.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from detlint.base.paths import display_path
from detlint.cli.config_keys import KEYS

if TYPE_CHECKING:
    from detlint.cli.config_files import Resolved
    from detlint.engine import Analysis
    from detlint.readers.project.settings import Settings

# What a key left unset means, for the keys whose default is "not set".
_UNSET = {
    "select": "the rules that are on by default",
    "fail-on": "any finding fails the run",
    "quarantine-reason": "DET201 offers no fix until it is set",
}


def _toml(value: Any) -> str:
    """A setting's value as TOML, as a user would write it in [tool.detlint]."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string for every value a setting holds
    if isinstance(value, frozenset):
        value = sorted(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, tuple | list) and value and all(isinstance(v, tuple) for v in value):
        pairs = ", ".join(f"{_toml(glob)} = {_toml(codes)}" for glob, codes in value)
        return "{" + pairs + "}"
    return "[" + ", ".join(_toml(item) for item in value) + "]"


def _shown_value(settings: Settings, key: str) -> str:
    field, _ = KEYS[key]
    value = getattr(settings, field)
    if key == "exclude" and value is None:
        value = settings.walk_excludes()[0]  # the defaults it replaces
    if key == "per-file-ignores" and not value:
        return "{}"
    return _toml(value)


def render_settings(resolved: Resolved, selected: Iterable[str], cwd: Path) -> str:
    """Every setting, as TOML, with the source of each: the file, a flag, or the default."""
    settings = resolved.settings
    source = display_path(resolved.config, cwd) if resolved.config else "no config file"
    lines = [f"# detlint settings ({source})"]
    rows = []
    for key, (field, _) in KEYS.items():
        origin = resolved.origins.get(key, "default")
        if getattr(settings, field) is None and key in _UNSET:
            lines_for_unset = f"# {key} is not set: {_UNSET[key]}"
            rows.append((lines_for_unset, ""))
            continue
        rows.append((f"{key} = {_shown_value(settings, key)}", f"# {origin}"))
    # Sources line up in a column, except after the few values too long for it.
    width = min(max(len(text) for text, origin in rows if origin), 40)
    for text, origin in rows:
        lines.append(f"{text:<{width}}  {origin}" if origin else text)
    codes = sorted(selected)
    lines.append(f"# rules that run ({len(codes)}): {' '.join(codes)}")
    return "\n".join(lines) + "\n"


def render_files(settings: Settings, paths: Sequence[Path], cwd: Path) -> str:
    """The files a check of ``paths`` would read, one per line, as findings name them,
    and the paths it could not."""
    from detlint.readers.project.discovery import discover_files
    from detlint.readers.project.scope import widened

    discovery = discover_files(widened(paths, cwd), cwd, settings)
    lines = [display_path(path, cwd) for path in discovery.files]
    lines += [f"# {p.span.path}: {p.message}" for p in discovery.problems]
    return "".join(f"{line}\n" for line in lines)


def show_setup(
    resolved: Resolved,
    selected: Iterable[str],
    paths: Sequence[Path],
    cwd: Path,
    files: bool,
    settings: bool = True,
) -> str:
    """``--show-settings`` and ``--show-files``: the settings, then the files, as asked."""
    parts = []
    if settings:
        parts.append(render_settings(resolved, selected, cwd))
    if files:
        parts.append(render_files(resolved.settings, paths, cwd))
    return "".join(parts)


def verbose_lines(resolved: Resolved, described: Sequence[str], cwd: Path) -> list[str]:
    """What ``-v`` says on stderr: the config file, then what the analysis read
    (``described``, as :func:`described_analysis` words it)."""
    config = resolved.config
    line = "config: " + (display_path(config, cwd) if config else "none found; defaults")
    return [f"detlint: {line}" for line in (line, *described)]


def described_analysis(analysis: Analysis) -> tuple[str, ...]:
    """The pytest configs, the plugin evidence and the number of files an analysis read:
    words, so that a run reusing a stored result says the same without the analysis."""
    configs = sorted({c.path for c in analysis.configs if c.path is not None})
    lines = ["pytest config: " + (", ".join(configs) if configs else "none found")]
    evidence = analysis.evidence
    if evidence is None:
        lines.append("plugin evidence: not read (no rerun marker to interpret)")
    elif evidence.requirements:
        lines.append(f"plugin evidence: {evidence.describe()}")
    else:
        lines.append("plugin evidence: no rerun plugin declared in the files read")
    lines.append(f"files checked: {analysis.files_checked}")
    return tuple(lines)
