"""A test under each CI run: which tests a step's pytest runs reach, and their policy there.

``runs.py`` resolves each pytest invocation of a step (directly, or through the scripts,
tox environments and make targets it calls) to the test files it runs; ``gates.py``
composes each test's policy under that run, then the job's retries and soft fail;
``analysis.py`` is the entry point that does both for a run's pipelines. A test module's
own ``pytest.main`` (the run of a file run as a script, as a Bazel ``py_test`` runs it) is
composed the same way, from the same command-line options, in ``script_runs.py``.
"""
