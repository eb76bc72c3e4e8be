"""The output formats of ``detlint check``: one report record, one dispatch.

Every format renders the same :class:`Report`, so the formats cannot disagree
about what was found, and none of them decides the exit status: the command
line derives that from the findings alone, whatever the format.

The renderers are imported only when chosen, so that a pre-commit run printing
the concise lines never pays for XML, SARIF or Markdown code.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

    from detlint.rules.finding import Finding

RULES_URL = "https://github.com/detlint/detlint/blob/main/docs/rules.md"
"""Where the rules are documented; each rule has the anchor ``#det101`` etc."""

INFORMATION_URL = "https://github.com/detlint/detlint"

FORMATS: tuple[str, ...] = (
    "concise",
    "full",
    "json",
    "sarif",
    "gitlab",
    "github",
    "junit",
    "buildkite",
)


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


# Each format's renderer, imported only when chosen: a pre-commit run printing the
# concise lines never pays for XML, SARIF or Markdown code.
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


def render(output_format: str, report: Report) -> str:
    """The whole output of ``detlint check`` in ``output_format``, one of :data:`FORMATS`."""
    if output_format not in _RENDERERS:
        choices = ", ".join(FORMATS)
        raise ValueError(f"unknown output format {output_format!r}; choose from {choices}")
    import importlib

    module, function = _RENDERERS[output_format]
    renderer: Callable[[Report], str] = getattr(importlib.import_module(module), function)
    return renderer(report)


def summary(report: Report) -> str:
    """The closing line of the text formats: ``Found 3 findings in 4 files.``"""
    from detlint.report.findings import summary_line

    return summary_line(report)


def render_statistics(report: Report, output_format: str = "concise") -> str:
    """``--statistics``: how many findings each code has, the most frequent first
    (ties by code), so that the knob a project leans on most is read first.

    With ``--output-format json`` it is the JSON array ``ruff check --statistics
    --output-format json`` prints: one object per code with ruff's keys ``code``,
    ``name``, ``count`` and ``fixable`` (every finding of the code would be fixed
    by this run's ``--fix``), ``[]`` for a clean run. Every other format gets the
    text lines, one per code: count, code and name, separated by tabs (the
    summary line when there is nothing to count, nothing at all with ``-q``).
    """
    counts = Counter(finding.code for finding in report.findings)
    names = {finding.code: finding.name for finding in report.findings}
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if output_format == "json":
        import json

        from detlint.report.findings import fixable

        unsafe = report.unsafe_fixes
        rows = [
            {
                "code": code,
                "name": names[code],
                "count": count,
                "fixable": all(
                    fixable(finding, unsafe) for finding in report.findings if finding.code == code
                ),
            }
            for code, count in ordered
        ]
        return json.dumps(rows, indent=2) + "\n"
    if not report.findings:
        return "" if report.quiet else summary(report) + "\n"
    from detlint.report import colour

    width = len(str(max(counts.values())))
    on = report.color
    return "".join(
        f"{colour.number(f'{count:>{width}}', on)}\t{colour.code(code, on)}\t{names[code]}\n"
        for code, count in ordered
    )


# -- source lines, for the formats that quote or fingerprint them -------------

_NEWLINE = re.compile(r"\r\n?|\n")


class SourceLines:
    """The lines of the files findings point at, each file read at most once.

    Spans count lines as the passes do (``\\n``, ``\\r\\n`` or a lone ``\\r``
    ends a line) and columns in characters of the decoded text. A file is read
    with the same guards as the passes (no FIFOs, no huge files) and never
    raises: a file that cannot be read, or holds binary data, has no lines and
    the finding is shown without its source. Text that is not valid in its
    encoding is decoded with replacement characters, since it is only shown.
    """

    def __init__(self, cwd: Path) -> None:
        self._cwd = cwd
        self._files: dict[str, tuple[str, ...] | None] = {}

    def lines(self, path: str) -> tuple[str, ...] | None:
        """The file's lines without their line ends, or None when it cannot be shown."""
        if path not in self._files:
            self._files[path] = self._read(path)
        return self._files[path]

    def line(self, path: str, number: int) -> str | None:
        """Line ``number`` (1-based) of ``path``, or None."""
        lines = self.lines(path)
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]

    def _read(self, path: str) -> tuple[str, ...] | None:
        from detlint.base.source import decode_python, decode_text, read_bytes

        data = read_bytes(self._cwd / path, path)
        if not isinstance(data, bytes) or b"\x00" in data:
            return None
        decode = decode_python if path.endswith(".py") else decode_text
        text = decode(data, path)
        if not isinstance(text, str):
            text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
        return tuple(_NEWLINE.split(text))
