"""What a sourced file does to the shell options of the script that sources it.

``source common.sh`` runs that file in the current shell, so a ``set -e`` in it
turns errexit on for the rest of the sourcing script: a pytest failure after it
ends the script, and nothing later can hide it. The shell reader reads one text
and does not open files; scripts are read here, where the repository is at hand,
so each top-level ``source FILE`` (or ``. FILE``) whose file is found is replaced,
in the text the reader sees, by the option changes the file makes at its top
level (``set -e``, ``set +e``, ``set -o pipefail``...), padded to the same length
so that every offset, line and column stays as written. A sourced file that is not
found, or sets no option, leaves the line as it is (read as a command that succeeds).

The file is found by its path as written from the script's directory (scripts
commonly source ``"$(dirname "$0")/common.sh"`` or ``${THIS_DIR}/common.sh``: the
expansion is dropped and the rest taken from the script's directory), then from the
repository root.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from detlint.base.paths import join

# A top-level source line: `source FILE`, `. FILE`, optionally quoted, nothing after it
# but a comment.
_SOURCE = re.compile(r"^([ \t]*)(?:source|\.)[ \t]+(['\"]?)([^\s'\";&|]+)\2[ \t]*(?:#.*)?$", re.M)
# A top-level set of shell options in the sourced file: `set -eux`, `set -o errexit`, `set +e`.
_SET = re.compile(
    r"^[ \t]*set[ \t]+((?:[-+][A-Za-z]+(?:[ \t]+(?:errexit|pipefail|nounset|xtrace))?[ \t]*)+)",
    re.M,
)
_EXPANSION = re.compile(r"^(?:\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_]\w*)/?")


def inline_sourced_options(
    text: str, script: str, read_file: Callable[[str], str | None], depth: int = 0
) -> str:
    """``text`` (of the script at repository path ``script``) with each found sourced
    file's top-level option changes in place of its source line."""
    if "source" not in text and ". " not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        written = match.group(3)
        found = _sourced_text(written, script, read_file)
        if found is None:
            return match.group(0)
        path, sourced = found
        if depth < 2:
            sourced = inline_sourced_options(sourced, path, read_file, depth + 1)
        changes = [f"set {flags.strip()}" for flags in _SET.findall(sourced)]
        if not changes:
            return match.group(0)
        replacement = match.group(1) + "; ".join(changes)
        width = len(match.group(0))
        if len(replacement) > width:
            return match.group(0)  # no room to say it in place: read as written
        return replacement.ljust(width)

    return _SOURCE.sub(replace, text)


def _sourced_text(
    written: str, script: str, read_file: Callable[[str], str | None]
) -> tuple[str, str] | None:
    """The repository path and text of the file ``source written`` reads, if found."""
    directory = posixpath.dirname(script)
    relative = _EXPANSION.sub("", written)
    if not relative or "$" in relative or relative.startswith("/"):
        return None
    for base in (directory, ""):
        path = join(base, relative)
        text = read_file(path)
        if text is not None:
            return path, text
    return None
