"""Which rerun plugins a project declares, and where: the evidence for what ``flaky`` means.

``listing.py`` finds the dependency files with one ``git ls-files``: those picked by name in
``declarations.py``, and those a pipeline, Dockerfile, script, Makefile, tox.ini or
requirements file installs with ``pip install -r`` whatever their names
(``installed_files.py``). ``declarations.py`` gathers the evidence; the formats are read in
``text_files.py`` (requirements, setup.cfg, tox.ini, setup.py), ``toml_files.py``
(pyproject.toml, pixi.toml, lock files, Pipfile) and ``conda_files.py`` (conda environment
files, pixi.lock, conda-lock.yml).
"""
