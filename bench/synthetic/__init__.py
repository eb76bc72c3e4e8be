"""The synthetic monorepo ``bench/run.py`` measures by default.

Python test files with a known share of knobs and, with ``--pipelines N``, CI
pipelines and other YAML that run them. ``python_tree.generate_tree`` writes the
tree; the YAML comes from ``pipelines.generate_pipelines``. The modules import
``tree_facts`` and ``prefilter`` from bench/, which run.py puts on sys.path.
"""
