"""The output formats of ``detlint check``: one report record, one dispatch.

Every format renders the same :class:`Report`, so the formats cannot disagree
about what was found, and none of them decides the exit status: the command
line derives that from the findings alone, whatever the format.

The renderers are imported only when chosen, so that a pre-commit run printing
the concise lines never pays for XML, SARIF or Markdown code.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

    from detlint.rules.finding import Finding

RULES_URL = "https://github.com/detlint/detlint/blob/main/docs/rules.md"
"""Where the rules are documented; each rule has the anchor ``#det101`` etc."""

INFORMATION_URL = "https://github.com/detlint/detlint"

# Each format of `detlint check` and its renderer, imported only when chosen: a
# pre-commit run printing the concise lines never pays for XML, SARIF or Markdown code.
_RENDERERS = {
    "concise": ("detlint.report.findings", "render_concise"),
    "full": ("detlint.report.full", "render_full"),
    "json": ("detlint.report.findings", "render_json"),
    "sarif": ("detlint.report.sarif", "render_sarif"),
    "gitlab": ("detlint.report.gitlab", "render_gitlab"),
    "github": ("detlint.report.github", "render_github"),
    "junit": ("detlint.report.junit", "render_junit"),
    "buildkite": ("detlint.report.buildkite", "render_buildkite"),
}
FORMATS: tuple[str, ...] = tuple(_RENDERERS)
TEXT_FORMATS = ("concise", "full")  # for people: coloured on a terminal, fixes as hints
EDIT_FORMATS = ("json", "sarif")  # their findings carry their fix's edits


class Report(NamedTuple):
    """What one ``detlint check`` run has to show, independent of the format.

    A NamedTuple rather than a frozen dataclass: it is as immutable, and much
    cheaper to define on the start-up path of every run.
    """

    findings: tuple[Finding, ...]  # sorted, already filtered (suppressions, baseline)
    files_checked: int
    cwd: Path  # span paths are relative to it; formatters read source lines from here
    suppressed: int = 0  # findings hidden by an inline `# detlint: ignore`
    baselined: int = 0  # findings hidden because the baseline has them
    baseline_gone: int | None = None  # baseline entries no longer found; None: no --baseline
    # Each finding's fix made concrete (a Fix, the reason there is none, or None without
    # a plan), for the formats that carry edits; None when not built.
    fixes: tuple[object, ...] | None = None
    unsafe_fixes: bool = False  # --unsafe-fixes: unsafe fixes count as applicable
    fixed: int = 0  # findings --fix fixed before this check
    color: bool = False  # ANSI colour in the text formats (--color, NO_COLOR, a terminal)
    quiet: bool = False  # -q: the text formats print the findings and nothing else
    elapsed: float | None = None  # seconds the analysis took; None when not measured


def rule_url(code: str) -> str:
    """The documentation of one rule: ``DET101`` -> ``.../docs/rules.md#det101``."""
    return f"{RULES_URL}#{code.lower()}"


def render(output_format: str, report: Report) -> str:
    """The whole output of ``detlint check`` in ``output_format``, one of :data:`FORMATS`."""
    if output_format not in _RENDERERS:
        choices = ", ".join(FORMATS)
        raise ValueError(f"unknown output format {output_format!r}; choose from {choices}")
    import importlib

    module, function = _RENDERERS[output_format]
    renderer: Callable[[Report], str] = getattr(importlib.import_module(module), function)
    return renderer(report)
