"""The shell text a CI step runs, read statically: a lexer and a parser into a syntax tree,
the walk that finds pytest runs (through launchers and wrappers), and an interpreter that
decides whether a failing run's exit status reaches the step (``|| true``, pipes,
``set +e``). ``commands.py`` is the entry point.
"""
