"""The catalogue rendered for people and programs: rule pages, docs/rules.md, JSON.

``detlint rule`` and docs/rules.md show the same page for a rule, built here from
the data files alone, so the two cannot drift apart; a test keeps the committed
docs/rules.md equal to what this module generates. Regenerate it with::

    python -m detlint.rules.docs > docs/rules.md
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import Any

from detlint.rules.catalogue import RuleInfo
from detlint.rules.catalogue_pages import Example, RulePage

RULES_SCHEMA = "detlint.rules/1"
REGENERATE = "python -m detlint.rules.docs > docs/rules.md"
_FIX = {
    "none": "none (no automatic fix)",
    "safe": "safe (`--fix` applies it)",
    "unsafe": "unsafe (applied only with `--unsafe-fixes`)",
}
_LANGUAGES = {
    ".py": "python",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
}


def _fence(text: str) -> str:
    """A backtick fence longer than any backtick run inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _language(path: str) -> str:
    suffix = path[path.rfind(".") :] if "." in path.rsplit("/", 1)[-1] else ""
    return _LANGUAGES.get(suffix.lower(), "text")


def _example(example: Example, number: int, level: int) -> list[str]:
    title = "Invalid" if example.kind == "invalid" else "Valid"
    lines = [f"{'#' * level} {title} {number}: {example.description}", ""]
    if example.kind == "invalid":
        lines += [f"Reported at `{example.path}:{example.line}`.", ""]
    else:
        lines += ["Not reported.", ""]
    for file in example.files:
        fence = _fence(file.content)
        body = file.content if file.content.endswith("\n") else file.content + "\n"
        lines += [f"`{file.path}`:", "", f"{fence}{_language(file.path)}", body + fence, ""]
    return lines


def rule_page(page: RulePage, level: int = 1) -> str:
    """One rule as Markdown; ``level`` is the heading level of its title."""
    info = page.info
    sub = "#" * (level + 1)
    default = "yes" if info.default else f"no (turn it on with `--extend-select {info.code}`)"
    lines = [
        f"{'#' * level} {info.code} {info.name}",
        "",
        info.summary[0].upper() + info.summary[1:] + ".",
        "",
        f"- Severity: {info.severity}",
        f"- On by default: {default}",
        f"- Fix: {_FIX[info.fix]}",
        "",
        f"{sub} Why it matters",
        "",
        page.why,
        "",
        f"{sub} What it flags",
        "",
        page.what,
        "",
        f"{sub} What to do instead",
        "",
        page.alternative,
        "",
        *([f"{sub} What `--fix` does", "", page.fixed, ""] if page.fixed else []),
        f"{sub} Examples",
        "",
    ]
    numbers = {"invalid": 0, "valid": 0}
    for example in page.examples:
        numbers[example.kind] += 1
        lines += _example(example, numbers[example.kind], level + 2)
    return "\n".join(lines).rstrip("\n") + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def catalogue_markdown(pages: Iterable[RulePage]) -> str:
    """docs/rules.md: a table of contents, then one section per rule (anchor ``#det101``)."""
    ordered = list(pages)
    lines = [
        "# Rules",
        "",
        "<!-- Generated from rules/*.toml; do not edit. Regenerate with:",
        f"     {REGENERATE} -->",
        "",
        "Every rule detlint reports, from the catalogue in `rules/` (`detlint rule CODE` prints "
        "one page).",
        "Rules that are off by default run with `--extend-select CODE` or `select` in "
        "`[tool.detlint]`.",
        "",
        "| code | name | severity | on by default | fix | summary |",
        "|---|---|---|---|---|---|",
    ]
    for page in ordered:
        info = page.info
        lines.append(
            f"| [{info.code}](#{info.code.lower()}) | {info.name} | {info.severity} | "
            f"{'yes' if info.default else 'no'} | {info.fix} | {_cell(info.summary)} |"
        )
    for page in ordered:
        lines += ["", f'<a id="{page.info.code.lower()}"></a>', "", rule_page(page, 2).rstrip()]
    return "\n".join(lines) + "\n"


def rule_table(infos: Iterable[RuleInfo]) -> str:
    """Every rule on one line each, as ``detlint rule`` prints with no argument.

    An aligned plain-text table under a header line, in the order given (code
    order from the catalogue): the code, the name, whether it runs by default
    (``no``: only when selected) and the fix it offers (``safe``, ``unsafe`` or
    ``none``). It needs the rules' headers alone, so listing them never parses
    the prose and examples of every file.
    """
    rows = [("code", "name", "default", "fix")] + [
        (info.code, info.name, "yes" if info.default else "no", info.fix) for info in infos
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        + "\n"
        for row in rows
    )


def rule_json(page: RulePage) -> dict[str, Any]:
    """One rule as the JSON object ``detlint rule --output-format json`` prints."""
    info = page.info
    return {
        "code": info.code,
        "name": info.name,
        "summary": info.summary,
        "severity": info.severity,
        "default": info.default,
        "fix": info.fix,
        "why": page.why,
        "what": page.what,
        "alternative": page.alternative,
        "examples": [
            {
                "kind": example.kind,
                "description": example.description,
                "path": example.path,
                "line": example.line,
                "files": [{"path": file.path, "content": file.content} for file in example.files],
            }
            for example in page.examples
        ],
    }


def catalogue_json(pages: Iterable[RulePage]) -> dict[str, Any]:
    return {"schema": RULES_SCHEMA, "rules": [rule_json(page) for page in pages]}


def main() -> None:
    """Print docs/rules.md (as UTF-8 with "\\n" line ends, whatever the platform)."""
    from detlint.rules.catalogue_pages import pages

    sys.stdout.buffer.write(catalogue_markdown(pages().values()).encode("utf-8"))


if __name__ == "__main__":
    main()
