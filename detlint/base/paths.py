"""Paths in the three forms detlint moves them between, by string operations.

A file is listed relative to the working directory (or absolute), linked relative
to the repository root, and shown relative to the working directory again. Large
CI setups link thousands of runs over the same files, and pathlib costs more per
path than the rest of linking a run, so every conversion here is done on strings,
with the general ``os.path`` function only for paths that are not plain (``..``,
``.``, empty parts) and on systems whose separator is not ``/``.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Sequence
from pathlib import Path


def display_path(path: Path, cwd: Path) -> str:
    """How a path is shown and serialised: relative to ``cwd``, POSIX separators.

    A path beside or above the working directory is shown with ``..`` as ruff and
    git do (``cd tests/unit && detlint check`` shows ``../../ci.yml``), so that
    output does not change with the directory a run starts in beyond that prefix;
    only a path sharing nothing but the filesystem root with ``cwd`` stays absolute.
    """
    absolute = os.path.abspath(path)
    here = os.path.abspath(cwd)
    try:
        return Path(absolute).relative_to(here).as_posix()
    except ValueError:
        pass
    try:
        common = os.path.commonpath([absolute, here])
    except ValueError:  # different drives on Windows
        return Path(absolute).as_posix()
    if os.path.dirname(common) == common:  # only the filesystem root in common
        return Path(absolute).as_posix()
    return Path(os.path.relpath(absolute, here)).as_posix()


def is_plain(path: str) -> bool:
    """Whether a relative POSIX path is already normal: no ``.``, ``..`` or empty parts
    (searched for between slashes rather than split out: this runs for every file)."""
    wrapped = f"/{path}/"
    return "//" not in wrapped and "/./" not in wrapped and "/../" not in wrapped


def join(base: str, relative: str) -> str:
    """``relative`` from repository directory ``base``; an absolute path is taken from the
    repository root. ``""`` is the root itself."""
    if relative.startswith("/"):
        return relative.lstrip("/")
    if not base or is_plain(base):  # plain paths join as they are: no normalising
        if not relative:
            return base
        if is_plain(relative):
            return f"{base}/{relative}" if base else relative
    joined = posixpath.normpath(posixpath.join(base, relative)) if base or relative else ""
    return "" if joined == "." else joined


def mounted_tail(path: str, exists: Callable[[str], bool], base: str = "") -> str | None:
    """An absolute path as a repository path: the CI image mounts the checkout somewhere
    (``/workspace/<repo>/tests``), so the longest tail of it that ``exists`` (joined to
    ``base``) is taken; None when no tail does (a path outside the repository)."""
    parts = [part for part in path.split("/") if part and part != "."]
    for start in range(len(parts)):
        candidate = join(base, "/".join(parts[start:]))
        if exists(candidate):
            return candidate
    return None


def relativer(root: Path, cwd: Path) -> Callable[[Path | str], str]:
    """A path given relative to ``cwd`` (or absolute) as a POSIX path relative to ``root``:
    ``os.path.relpath`` by string operations for the plain paths a listing holds."""

    def general(path: Path | str) -> str:
        return os.path.relpath(os.path.join(cwd, path), root).replace(os.sep, "/")

    if os.sep != "/":
        return general
    root_prefix = os.path.abspath(root).rstrip("/") + "/"
    cwd_prefix = os.path.abspath(cwd).rstrip("/") + "/"

    from_root = root_prefix == cwd_prefix

    def relative(path: Path | str) -> str:
        text = os.fspath(path)
        if from_root and not text.startswith("/") and is_plain(text):
            return text  # the usual run, from the root: a listed path is relative to it
        full = text if text.startswith("/") else cwd_prefix + text
        if full.startswith(root_prefix):
            rest = full[len(root_prefix) :]
            if is_plain(rest):
                return rest
        return general(path)

    return relative


def displayer(root: Path, cwd: Path) -> Callable[[str], str]:
    """``display_path(root / path, cwd)`` for repository paths, by string operations.

    Linking shows thousands of test paths; pathlib's version costs more than the
    rest of linking a run. Paths that are not plain (``..``, ``.``, empty parts)
    and non-POSIX systems take the general function.
    """
    root_text = os.path.abspath(root)
    cwd_text = os.path.abspath(cwd)

    def general(path: str) -> str:
        return display_path(root / path, cwd)

    if os.sep != "/":
        return general
    if root_text == cwd_text:  # the usual run, from the root: a plain path is shown as is

        def as_is(path: str) -> str:
            return path if is_plain(path) else general(path)

        return as_is
    prefix = cwd_text.rstrip("/") + "/"

    def display(path: str) -> str:
        if not is_plain(path):
            return general(path)
        full = root_text.rstrip("/") + "/" + path
        if full == cwd_text:
            return "."
        if full.startswith(prefix):
            return full[len(prefix) :]
        return general(path)

    return display


def display_paths(files: Sequence[Path], root: Path, cwd: Path) -> frozenset[str]:
    """``display_path`` of every file, by the string operations CI linking uses
    (pathlib's version is a visible cost over thousands of files)."""
    relative, display = relativer(root, cwd), displayer(root, cwd)
    return frozenset(display(relative(path)) for path in files)


def printable(path: str) -> str:
    """A path as the text outputs print it: unchanged when every character prints, else
    with backslashes, control characters (a newline in a file name) and other
    characters that do not print written as Python escapes, so that one finding stays
    one line and ``a\\nb`` and a name holding a newline read differently."""
    if path.isprintable():
        return path
    return "".join(_escaped(character) for character in path)


def _escaped(character: str) -> str:
    if character == "\\":
        return "\\\\"
    if character.isprintable():
        return character
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(character)
    if named is not None:
        return named
    code = ord(character)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )
