"""Whether an edited file still parses, by the file's kind.

Each builder checks its own edit against the document it changes; this check
is the last one, on a file with all of a round's edits in it together.
"""

from __future__ import annotations

from detlint.readers.ci import YAML_SUFFIXES

_INI = (".ini", ".cfg")


def parse_problem(path: str, text: str) -> str | None:
    """Why ``text`` would not parse as the file at ``path``, or None."""
    try:
        if path.endswith((".py", ".pyi")):
            import ast

            ast.parse(text)
        elif path.endswith(YAML_SUFFIXES):
            from ruamel.yaml import YAML

            for _ in YAML(typ="safe", pure=True).load_all(text):
                pass
        elif path.endswith(".toml"):
            from detlint.base.toml_reader import load_toml

            load_toml(text)
        elif path.endswith(_INI):
            import configparser

            configparser.ConfigParser(interpolation=None, strict=False).read_string(text)
    except Exception as error:  # each parser raises its own errors
        return f"{type(error).__name__}: {error}"
    return None
