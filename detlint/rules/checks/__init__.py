"""One module per rule code, named after the rule: each holds the function that
yields its findings from the facts and composed gates in a ``RuleContext``.

``rules/registry.py`` maps each code to its function. To add a rule: its data file
in the top-level ``rules/`` (code, name, severity, prose, examples), a module here,
and a line in the registry.
"""
