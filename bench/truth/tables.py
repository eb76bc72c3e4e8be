"""The harness's tables, as Markdown, so that its README can hold them as printed."""

from __future__ import annotations


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """``header`` and ``rows`` as a Markdown table, each column as wide as its widest cell."""
    lines = [header, *rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |"
        for line in lines
    ]
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)
