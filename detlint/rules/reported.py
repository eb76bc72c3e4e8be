"""Which findings a run on some files of a tree reports.

A run with the repository's pipelines as context (a pre-commit hook on the files a
commit touches) reads more than it was given: the conftest.py aliases, the pipelines
that run the files. What it reports is about the files it was given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detlint.readers.project.pytest_config import PytestConfig
    from detlint.rules.finding import Finding


def about_linted_files(
    findings: tuple[Finding, ...], linted: frozenset[str], configs: tuple[PytestConfig, ...]
) -> tuple[Finding, ...]:
    """A run with the repository's pipelines as context reports what is in the linted
    files and the pytest config that reaches them, and a finding elsewhere (a pipeline,
    a file it includes, tox.ini) only when it involves a linted file: a related span
    there, such as the marker a job retries again."""
    keep = linted | {config.path for config in configs if config.path is not None}
    return tuple(
        finding
        for finding in findings
        if finding.span.path in keep or any(related.path in linted for related in finding.related)
    )
