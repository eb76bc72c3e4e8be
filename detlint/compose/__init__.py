"""Composing: every layer that applies to a test, as one policy the model turns into numbers.

A test's policy is composed from the facts the readers found (its marks, trial loop,
pytest's config, the plugin that reads ``flaky``) in ``test_policy.py``, for each
environment its conditional knobs make; ``ci/`` composes it again under each CI run
that runs it (the run's command line, its job retries and its soft fail).
"""
