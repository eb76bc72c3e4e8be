"""The analysed result of a whole ``detlint check``, kept for a repeat run on an unchanged tree.

The facts cache (``base/facts_cache.py``) spares a repeat run the parsing of
unchanged pipelines, but the run still reads and composes every test. When
nothing at all has changed, the whole result can be reused: the findings left
after per-file ignores and inline suppressions, with the analysis the verbose
lines and the counts need, taken before the baseline and before rendering, so
every output format (and a different baseline file) reads the same entry.

An entry is named by what decides the analysis apart from the files: detlint's
code (the directory, as for the facts cache), the command kind, the working
directory, the paths asked, the resolved settings and the rules they select,
the config file's bytes, today's date (expiry dates in quarantine reasons) and
the environment variables detlint or git read. It holds a signature of the
tree, checked before the entry is taken: every file the discovery walk lists
(path, size, ``mtime_ns``, inode, ``ctime_ns``), every directory holding one
(a file added there, even one the walk leaves out, changes it), and whether
each pytest config file name exists in the directories above the tree (pytest,
and so detlint, looks for its config there). A whole-tree run reads nothing
else: tracing every file opened during runs on five real repositories found
only files of the walk, and the absent config names above the tree. A run on
part of a tree reads the rest as context, so it is never kept.

One entry per name: a changed tree replaces it rather than adding another, so
the cache does not grow with every edit. Entries are written, pruned and
removed (``detlint clean``) as the facts cache's are.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detlint.base.facts_cache import FactsCache
    from detlint.cli.check_run import CheckedFindings
    from detlint.readers.project.discovery import Discovery
    from detlint.readers.project.settings import Settings

# A file modified this close to the moment its state is taken (or after it) may
# change again within the same timestamp and keep its size: as git does for its
# index, the result of such a run is not kept, since a later edit could go unseen.
RACY_SECONDS = 2.0
_HEADER = 41  # the signature's 40 hex digits and a newline, before the pickle


class RunCache:
    """The entry of one check under ``cache`` (a ``FactsCache`` of kind ``runs-check``)."""

    hits = 0  # entries taken in this process, for tests to tell a reused run from a fresh one

    def __init__(self, cache: FactsCache, name: str, signature: str, tree_settled: bool) -> None:
        self.cache, self.name, self.signature = cache, name, signature
        self.tree_settled = tree_settled  # no file of the tree is racily new

    def get(self) -> CheckedFindings | None:
        """The stored result when the tree's signature is the same, else None."""
        from detlint.base.cache_pickle import load
        from detlint.base.facts_cache import open_entry
        from detlint.cli.check_run import CheckedFindings

        if not self.cache.readable():
            return None
        try:
            with open_entry(self.cache.directory / self.name) as stream:
                if stream.read(_HEADER) != f"{self.signature}\n".encode():
                    return None
                value = load(stream)
        except Exception:  # absent, unreadable or not an entry: analyse afresh
            return None
        if not isinstance(value, CheckedFindings):
            return None
        RunCache.hits += 1
        with contextlib.suppress(OSError):
            os.utime(self.cache.directory / self.name)  # used now: kept for MAX_AGE more
        return value

    def put(self, value: CheckedFindings) -> None:
        """Store the result, unless a file of the tree was modified too recently."""
        if not self.tree_settled:
            return
        from detlint.base.facts_cache import dumps

        self.cache.write(self.name, f"{self.signature}\n".encode() + dumps(value))
        self.cache.prune()


def run_cache(
    cache: FactsCache,
    paths: Sequence[Path],
    cwd: Path,
    settings: Settings,
    selected: frozenset[str],
    discovery: Discovery,
) -> RunCache:
    """The entry a check of ``paths`` reads and fills, for this tree as walked now."""
    import time

    from detlint.base.facts_cache import digest

    started = time.time()  # before the first stat of the signature

    parts = _key(paths, cwd, settings, selected)
    name = digest(*(part.encode("utf-8", "surrogateescape") for part in parts))
    signature, newest = tree_signature(discovery)
    return RunCache(cache, name, signature, newest < started - RACY_SECONDS)


def _key(
    paths: Sequence[Path], cwd: Path, settings: Settings, selected: frozenset[str]
) -> list[str]:
    """What decides a check's result apart from the tree's files, one string per part."""
    from detlint.readers.expiries import today

    config = b""
    if settings.path is not None:
        try:
            config = settings.path.read_bytes()
        except OSError:
            config = b"\0unreadable"
    environment = sorted(
        (name, value)
        for name, value in os.environ.items()
        if name.startswith("GIT_") or name == "DETLINT_TODAY"
    )
    return [
        "check\0",
        f"{os.path.abspath(cwd)}\0",
        f"{[os.fspath(path) for path in paths]!r}\0",
        f"{canonical(settings)!r}\0",
        f"{sorted(selected)!r}\0",
        config.decode("utf-8", "surrogateescape") + "\0",
        f"{today().isoformat()}\0{environment!r}",
    ]


def canonical(value: object) -> object:
    """``value`` (settings: dataclasses of tuples, frozensets, paths) as plain data whose
    ``repr`` is the same in every process: sets sorted, whatever the hash seed."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(f.name, canonical(getattr(value, f.name))) for f in dataclasses.fields(value)]
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(item) for item in value), key=repr)
    if isinstance(value, (tuple, list)):
        return [canonical(item) for item in value]
    if isinstance(value, dict):
        return sorted(((repr(k), canonical(v)) for k, v in value.items()), key=repr)
    if isinstance(value, Path):
        return os.fspath(value)
    return value


def tree_signature(discovery: Discovery) -> tuple[str, float]:
    """The digest of the tree's state as the module docstring lists it, and the latest
    modification or change time (seconds) among the files and directories it covers.

    Tens of thousands of files on a large tree: one ``stat`` each and nothing else,
    names as the walk gave them (relative to the working directory, which is in the key).
    """
    import hashlib

    from detlint.readers.project.pytest_config_files import CANDIDATES

    names = [os.fspath(path) for path in discovery.files]
    directories = sorted({name.rpartition(os.sep)[0] or os.curdir for name in names})
    root = os.path.abspath(discovery.root)
    above = []
    while (parent := os.path.dirname(root)) != root:
        above += [os.path.join(parent, candidate) for candidate, _ in CANDIDATES]
        root = parent
    states: list[str] = []
    newest = 0
    stat = os.stat
    for name in (*names, *directories, *above):
        try:
            info = stat(name)
        except OSError as error:
            states.append(f"{name}\0{error.errno}")
            continue
        newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
        states.append(f"{name}\0{info.st_size}:{info.st_mtime_ns}:{info.st_ino}:{info.st_ctime_ns}")
    found = hashlib.blake2b("\n".join(states).encode("utf-8", "surrogateescape"), digest_size=20)
    return found.hexdigest(), newest / 1e9
