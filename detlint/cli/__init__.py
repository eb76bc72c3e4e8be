"""The command line: the ``detlint`` group (``main.py``), one module per command, loaded
only when it runs, and what the commands share (options, configuration, writing).
"""
