"""``--output-format buildkite``: Markdown for ``buildkite-agent annotate``.

A build page has room for a summary, not a log: a heading with the totals, a
table with one row per rule (how many findings, and its worst loss), then the
findings that cost most, ranked by how much of the chance of a report each
knob takes away (the largest ``reported_without - reported`` first, then the
most severe), with the findings that carry no numbers after them. The
difference, not the ratio, is what a reader loses: a knob that turns 10% into
0.01% costs a build less than one that turns 65% into 42%. The list
stops at :data:`MAX_DETAILED` findings and long texts are cut, which keeps the
annotation far below Buildkite's 1 MiB limit however many findings there are.

Finding texts quote code and YAML, so they are escaped for Markdown (backslash
before punctuation outside code spans), and the annotation can never inject
HTML: ``<`` is escaped outside code spans and literal inside them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

from detlint.base.paths import printable
from detlint.base.percentages import percent, percent_label
from detlint.base.severity import severity_rank
from detlint.report.findings import summary_line
from detlint.report.formats import rule_url

if TYPE_CHECKING:
    from detlint.report.formats import Report
    from detlint.rules.finding import Finding, Loss

MAX_DETAILED = 50  # findings described one by one; the rest are counted
SHOWN_OPEN = 10  # of those, shown before a <details> fold
MAX_TEXT = 1000  # characters of one message, help text or path
ANNOTATION_LIMIT = 1024 * 1024  # Buildkite's limit on an annotation body, in bytes

_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_PUNCTUATION = re.compile(r"([\\`*_\[\]<>&|~#!])")


def annotation_style(report: Report) -> str:
    """The ``--style`` for ``buildkite-agent annotate``: the most severe finding's."""
    severities = {finding.severity for finding in report.findings}
    if "error" in severities:
        return "error"
    if "warning" in severities:
        return "warning"
    return "info" if severities else "success"


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\N{HORIZONTAL ELLIPSIS}"


def escape_markdown(text: str) -> str:
    """``text`` as literal Markdown: code spans kept, punctuation elsewhere escaped.

    Everything outside a code span gets a backslash before the characters
    Markdown or HTML would act on, so that ``*``, ``|``, ``<b>`` and ``[x](y)``
    in a message show as written. Code spans are copied as they are, since
    nothing inside them is interpreted.
    """
    pieces = []
    position = 0
    for match in _CODE_SPAN.finditer(text):
        pieces.append(_PUNCTUATION.sub(r"\\\1", text[position : match.start()]))
        pieces.append(match.group(0))
        position = match.end()
    pieces.append(_PUNCTUATION.sub(r"\\\1", text[position:]))
    return "".join(pieces).replace("\n", " ")


def code_span(text: str) -> str:
    """``text`` as one Markdown code span, whatever backticks it holds."""
    text = text.replace("\n", " ")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def lost(loss: Loss) -> float:
    """The chance of a report the knob takes away, in absolute terms: 0.099 for a
    violation reported 0.1% of the time instead of 10%."""
    return max(loss.reported_without - loss.reported, 0.0)


def ranked(findings: tuple[Finding, ...]) -> list[Finding]:
    """Worst first: by the chance of a report lost, then severity; findings without
    numbers last."""

    def key(finding: Finding) -> tuple[int, float, int, tuple[str, int, int, str]]:
        severity = -severity_rank(finding.severity)  # the most severe first
        if finding.loss is None:
            return (1, 0.0, severity, finding.sort_key)
        return (0, -lost(finding.loss), severity, finding.sort_key)

    return sorted(findings, key=key)


def _reported(loss: Loss) -> str:
    rate = percent_label(loss.reference_rate)
    return (
        f"a {rate} violation is reported {percent(loss.reported)} "
        f"instead of {percent(loss.reported_without)}"
    )


def _table(report: Report) -> list[str]:
    by_code: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_code[finding.code].append(finding)
    rows = []
    for code, group in by_code.items():
        worst = ranked(tuple(group))[0]
        cell = _reported(worst.loss) if worst.loss is not None else "no numbers"
        order = -lost(worst.loss) if worst.loss is not None else 1.0
        link = f"[{code}]({rule_url(code)})"
        rows.append((order, code, f"| {link} | {worst.name} | {len(group)} | {cell} |"))
    rows.sort()
    header = ["| rule | name | findings | worst |", "|---|---|--:|---|"]
    return header + [row for _, _, row in rows]


def _item(number: int, finding: Finding) -> list[str]:
    span = finding.span
    where = code_span(_cut(f"{printable(span.path)}:{span.line}:{span.column}"))
    head = f"{number}. **{finding.code}** {finding.name} at {where}"
    if finding.loss is not None:
        head += f": {_reported(finding.loss)}"
    indent = " " * len(f"{number}. ")  # continuation paragraphs of the list item
    lines = [head, "", f"{indent}{escape_markdown(_cut(finding.message))}"]
    if finding.help:
        lines += ["", f"{indent}help: {escape_markdown(_cut(finding.help))}"]
    lines.append("")
    return lines


def render_buildkite(report: Report) -> str:
    """The annotation body; pipe it to ``buildkite-agent annotate --style ...``."""
    heading = f"### detlint: {summary_line(report).removesuffix('.')}"
    if not report.findings:
        return heading + "\n"
    lines = [heading, "", *_table(report), ""]
    worst = ranked(report.findings)
    detailed = worst[:MAX_DETAILED]
    lines += ["#### Worst findings", ""]
    for number, finding in enumerate(detailed[:SHOWN_OPEN], start=1):
        lines += _item(number, finding)
    folded = detailed[SHOWN_OPEN:]
    if folded:
        more = f"{len(folded)} more finding{'s' if len(folded) != 1 else ''}"
        lines += ["<details>", f"<summary>{more}</summary>", ""]
        for number, finding in enumerate(folded, start=SHOWN_OPEN + 1):
            lines += _item(number, finding)
        lines += ["</details>", ""]
    rest = len(worst) - len(detailed)
    if rest:
        lines.append(
            f"{rest} more finding{'s are' if rest != 1 else ' is'} not shown here; "
            "`detlint check` lists every one."
        )
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
