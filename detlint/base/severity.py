"""Severities, least to most severe: one order for the catalogue, the config, the
command line's ``--fail-on`` and the formats that sort by severity. No imports,
so the command line can name the choices for free."""

from __future__ import annotations

SEVERITIES: tuple[str, ...] = ("info", "warning", "error")


def severity_rank(severity: str) -> int:
    """0 for info up to 2 for error; a severity detlint does not know counts as an error."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES) - 1
