"""pytest-enabler's configuration: the options it adds for the plugins it finds installed.

pytest-enabler (jaraco) reads ``[tool.pytest-enabler.<plugin>]`` tables from its own
``default.toml`` and then from the ``pyproject.toml`` of the directory pytest runs in, a
project table replacing the default one of the same plugin, and adds each installed
plugin's ``addopts`` to the command line. Its default for pytest-ignore-flaky is
``--ignore-flaky``, which makes every failing ``flaky``-marked test an XFAIL.
"""

from __future__ import annotations

from detlint.base.toml_reader import TOMLDecodeError, shared_toml


def enabler_addopts(text: str, plugin: str) -> str | None:
    """The ``addopts`` of ``[tool.pytest-enabler.<plugin>]`` in a pyproject.toml's
    ``text`` ("" when the table has none), or None without that table (or valid TOML)."""
    try:
        data = shared_toml(text)
    except (TOMLDecodeError, RecursionError):
        return None
    tool = data.get("tool")
    tables = tool.get("pytest-enabler") if isinstance(tool, dict) else None
    if not isinstance(tables, dict) or not isinstance(tables.get(plugin), dict):
        return None
    addopts = tables[plugin].get("addopts", "")
    return addopts if isinstance(addopts, str) else ""
