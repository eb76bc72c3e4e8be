"""INI options with the position of every value line, by configparser's line rules.

configparser validates an INI file and gives its values, but no positions, and
a finding must point at the line that sets a value (a dependency pin in
setup.cfg, a command in tox.ini). So this scanner repeats configparser's rules
for where a value is: full-line ``#``/``;`` comments are dropped, blank lines
do not end a value, and a line indented deeper than its option line continues
it. It never validates; callers that must reject a broken file ask
configparser first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# configparser's SECTCRE and OPTCRE.
_SECTION = re.compile(r"\[(?P<name>.+)\]")
_OPTION = re.compile(r"(?P<key>.*?)\s*[=:]\s*(?P<value>.*)$")


@dataclass(frozen=True)
class IniLine:
    """One value line of an option: its 1-based line, 1-based column and text."""

    line: int
    column: int
    text: str


@dataclass(frozen=True)
class IniOption:
    """An option (lowercased, as configparser stores it) and its value lines."""

    section: str
    option: str
    lines: tuple[IniLine, ...]


def ini_options(text: str) -> list[IniOption]:
    """Every option of every section, in file order, with its value lines."""
    options: list[IniOption] = []
    section: str | None = None
    key: str | None = None
    lines: list[IniLine] = []
    indent = 0

    def close() -> None:
        if section is not None and key is not None:
            options.append(IniOption(section, key, tuple(lines)))

    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        level = len(line) - len(line.lstrip())
        if key is not None and level > indent:
            lines.append(IniLine(number, level + 1, stripped))
            continue
        close()
        indent, key, lines = level, None, []
        header = _SECTION.match(stripped)
        option = _OPTION.match(stripped)
        if header is not None:
            section = header["name"]
        elif section is not None and option is not None and option["key"]:
            key = option["key"].lower()
            if option["value"]:
                lines.append(IniLine(number, level + option.start("value") + 1, option["value"]))
    close()
    return options
