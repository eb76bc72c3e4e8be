"""Fixes: what a rule proposes to change, and the exact edits that do it.

Rules attach a :mod:`plan <detlint.rules.plans>` to a finding: cheap facts
(spans, values) that say what to change. Only a run that shows or applies
fixes (``--fix``, ``--diff``, JSON, SARIF) turns plans into byte-exact
:class:`~detlint.fixes.edits.Edit` values, reading the files again; a
pre-commit run printing concise lines never parses a file twice.
"""
