"""Which rerun plugins a project declares, and where: the evidence for what ``flaky`` means.

``declarations.py`` picks the dependency files by name and gathers the evidence; the
formats are read in ``text_files.py`` (requirements, setup.cfg, tox.ini, setup.py),
``toml_files.py`` (pyproject.toml, pixi.toml, lock files, Pipfile) and
``conda_files.py`` (conda environment files, pixi.lock, conda-lock.yml).
"""
