"""The rules: small functions over linked facts that yield findings.

Kept empty on purpose: the command line reads the catalogue on every run, and
importing a package runs its ``__init__``; the rules themselves load from
``detlint.rules.registry`` only when there is something to judge.
"""
