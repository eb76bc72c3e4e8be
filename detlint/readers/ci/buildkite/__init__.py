"""Buildkite pipelines: steps, their commands and env, and how ``soft_fail``,
``retry.automatic`` and ``skip`` act on a failing test run, in every form they are written.
"""
