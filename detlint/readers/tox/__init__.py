"""tox's configuration, read statically: what each environment runs (for the CI
steps that call ``tox -e ENV``) and what it installs (for the dependency readers).

tox.ini and setup.cfg are INI (``ini_format.py``), tox.toml and pyproject.toml's
``[tool.tox]`` TOML (``toml_format.py``); ``config_file.py`` picks the file tox would
read and gives either the same interface.
"""
