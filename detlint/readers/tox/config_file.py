"""Which file holds tox's configuration, read as INI or TOML into one interface.

tox 4 reads ``tox.ini``, else a ``setup.cfg`` with a ``[tox:tox]`` section, else
pyproject.toml's ``[tool.tox]``, else ``tox.toml``. The INI forms are read by
``ini_format.py`` and the TOML forms by ``toml_format.py`` (imported only for a TOML
file); both answer the questions the CI pass asks of tox (``ToxSettings``), so that
following ``tox -e ENV`` does not depend on the file's format.
"""

from __future__ import annotations

from typing import Protocol

from detlint.readers.tox.ini_format import ToxEnv, read_tox_ini

# Where tox 4 looks for its configuration in a directory, in its order. setup.cfg and
# pyproject.toml count only when they hold it.
TOX_CONFIG_FILES = ("tox.ini", "setup.cfg", "pyproject.toml", "tox.toml")


class ToxSettings(Protocol):
    """tox's settings as the CI pass asks them, from INI (``ToxConfig``) or native TOML
    (:class:`~detlint.readers.tox.toml_format.TomlToxConfig`)."""

    @property
    def envlist(self) -> tuple[str, ...]: ...

    @property
    def gh_actions_envs(self) -> tuple[str, ...]: ...

    @property
    def defined_envs(self) -> tuple[str, ...]: ...

    def env(self, name: str) -> ToxEnv | None: ...


def read_tox_config(name: str, text: str) -> ToxSettings | None:
    """The tox configuration a file named ``name`` (one of ``TOX_CONFIG_FILES``) holds,
    or None: setup.cfg holds one when it has a ``[tox:tox]`` section, pyproject.toml
    when it has a ``tool.tox`` table (INI text in its ``legacy_tox_ini``, or native
    TOML tables), tox.toml when it is valid TOML."""
    if name == "setup.cfg":
        config = read_tox_ini(text, core="tox:tox")
        return config if "tox:tox" in config.sections else None
    if name in ("pyproject.toml", "tox.toml"):
        from detlint.readers.tox.toml_format import read_tox_toml

        return read_tox_toml(text, pyproject=name == "pyproject.toml")
    return read_tox_ini(text)
