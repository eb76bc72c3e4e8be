"""Files into facts: every reader of the repository, statically.

Nothing scanned is imported or run: Python is parsed with ``ast``, YAML with
ruamel.yaml's event parser, TOML and INI with the standard library, shell text with a
small parser of its own. The facts are frozen values with exact spans.

- ``project/``: which files a run reads, detlint's settings, pytest's config and what
  pytest collects; ``dependencies/``: the rerun plugin a project declares;
- ``python/``: test modules into marks, trial loops and tests;
- ``yaml/``, ``tox/``: file formats other readers share;
- ``ci/``: pipelines into knobs and the commands steps run;
- ``repository.py``: the repository as the later stages ask about it during one run.
"""
