"""A content-addressed cache of what detlint read from one file, for repeat runs.

Reading a pipeline (YAML, then the shell text of every step) is the costliest
per-file work detlint does, and between two runs almost every file is
unchanged. So the facts read from a file are kept under a key made of the
file's bytes (a BLAKE2 digest), how it is shown and where it sits, and read
back instead of parsed when the same key comes again. A different file, a
different place or a different detlint is a different key; no entry is ever
updated in place, so there is nothing to invalidate. (Facts that rest on other
files too, a GitLab pipeline's includes, carry those files' digests, and the
reader checks them before it takes the entry.)

Entries of files that have since changed are never asked for again, so each
entry's modification time says when a run last used it, and entries unused for
``MAX_AGE`` are removed, at most once every ``PRUNE_EVERY`` per directory.
``detlint clean`` removes the whole cache.

The cache lives outside the repository (``--cache-dir``, ``$DETLINT_CACHE_DIR``,
else the user's cache directory), so a run without ``--fix`` still writes nothing into the
tree it lints. Each entry is one file, written to a temporary name and renamed,
so parallel runs (a pre-commit batch) never see half an entry.

Entries are detlint's own pickles, read back by an unpickler that builds only
detlint's fact classes (:mod:`detlint.base.cache_pickle`), so a planted entry
runs nothing. Its directories are made for the user alone (mode 0o700), and a
cache directory someone else owns or can write, or that is not a directory at
all, is not used (the command says so in one line and runs without a cache). An
entry is read only when it is a regular file of the user's, opened without
waiting (a FIFO planted there never blocks a run); anything that cannot be read
back is treated as absent, and a cache that cannot be written is skipped without
a word: it only ever saves time.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import stat
import sys
import time
from pathlib import Path

# hashlib (OpenSSL) and pickle are imported where they are used: a run that reads
# no pipeline, such as a pre-commit check of one test file, never loads them.

_FINGERPRINT_LENGTH = 32  # hex digits of the directory named after detlint's code
MAX_AGE = 30 * 24 * 3600  # seconds an entry is kept after the last run that used it
PRUNE_EVERY = 24 * 3600  # seconds between two looks for such entries
_PRUNED = ".pruned"  # the file whose modification time says when the last look was


def default_directory() -> Path:
    """``$XDG_CACHE_HOME/detlint``, else ``~/.cache/detlint`` (``--cache-dir`` and
    ``$DETLINT_CACHE_DIR`` choose another)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "detlint"


def code_fingerprint() -> str:
    """A digest of this detlint's code (every module's name, size and modification
    time) and the Python running it: facts read by other code are never reused,
    even from an editable install between two edits."""
    import hashlib

    package = Path(__file__).parent.parent  # the whole detlint package
    digest = hashlib.blake2b(digest_size=_FINGERPRINT_LENGTH // 2)
    digest.update(sys.version.encode())
    for directory, names, files in sorted(os.walk(package)):
        names.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                info = os.stat(os.path.join(directory, name))
                digest.update(f"{directory}/{name}:{info.st_size}:{info.st_mtime_ns}\0".encode())
    return digest.hexdigest()


class FactsCache:
    """Entries of one kind (``pipelines``) under ``directory``, for this detlint's code."""

    def __init__(self, directory: Path, kind: str) -> None:
        self.root = directory
        self.kind = kind
        self._made = False
        self._stored: frozenset[str] = frozenset()  # the entries prepare() listed

    @functools.cached_property
    def fingerprint(self) -> str:
        """Computed on first use: a run that reads no file of this kind pays nothing."""
        return code_fingerprint()

    @property
    def directory(self) -> Path:
        return self.root / self.fingerprint / self.kind

    def readable(self) -> bool:
        """Whether entries may be read here: every directory from the root down is
        the user's alone (see ``unsafe``)."""
        return not any(unsafe(path) for path in (self.root, self.directory.parent, self.directory))

    @staticmethod
    def key(data: bytes, *parts: str) -> str:
        """The entry name for a file's ``data`` read as ``parts`` say (path, kind...)."""
        return digest(data, "\0".join(("", *parts)).encode("utf-8", "surrogateescape"))

    def get(self, key: str) -> object | None:
        """The value stored under ``key`` when ``prepare`` listed it, or None."""
        if key not in self._stored:
            return None
        from detlint.base.cache_pickle import load

        path = self.directory / key
        try:
            with open_entry(path) as stream:
                value = load(stream)
        except Exception:  # unreadable or not an entry: read the file instead
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # used now: kept for MAX_AGE more
        return value

    def put(self, key: str, value: object) -> None:
        """Store ``value`` (not None) under ``key``; failures are ignored.

        The entry is written under a name of this process's own and then renamed,
        so that a reader, or another run storing the same entry, never sees half of it.
        """
        import pickle

        self.write(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def write(self, key: str, blob: bytes) -> None:
        """Store the bytes ``blob`` under ``key`` as ``put`` stores a value."""
        path = self.directory / key
        temporary = f"{path}.{os.getpid()}.tmp"
        try:
            self._make_directory()
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                with os.fdopen(descriptor, "wb") as stream:
                    stream.write(blob)
                os.replace(temporary, path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            return

    def prepare(self) -> None:
        """Make the directory ready and list the entries there are, once per reading
        of many files, before worker processes fork (so that they find it done).

        Listed, rather than looked for one by one: a reading mostly asks for entries
        that exist (a repeat run) or mostly for ones that do not (a first run), and a
        failed ``open`` per file costs more than one listing.
        """
        self._make_directory()
        self.prune()
        try:
            if not self.readable():
                raise PermissionError(f"{self.directory} is not the user's alone")
            self._stored = frozenset(os.listdir(self.directory))
        except OSError:
            self._stored = frozenset()

    def prune(self, now: float | None = None) -> None:
        """Remove the entries no run has used for MAX_AGE (and temporary files a
        writer left behind), unless that was done less than PRUNE_EVERY ago."""
        now = time.time() if now is None else now
        marker = self.directory / _PRUNED
        try:
            if now - marker.stat().st_mtime < PRUNE_EVERY:
                return
        except OSError:
            pass  # never pruned
        try:
            marker.touch()
            os.utime(marker, (now, now))
            with os.scandir(self.directory) as found:
                for entry in found:
                    if entry.name == _PRUNED:
                        continue
                    age = MAX_AGE if not entry.name.endswith(".tmp") else PRUNE_EVERY
                    if now - entry.stat(follow_symlinks=False).st_mtime > age:
                        os.unlink(entry.path)
        except OSError:
            pass  # a cache that cannot be kept tidy still only saves time

    def _make_directory(self) -> None:
        """Create the directory for this code (once), and drop the ones of other code:
        their entries can never be read again."""
        if self._made:
            return
        import shutil

        self._made = True
        try:
            fresh = not self.directory.parent.is_dir()
            for level in (self.root, self.directory.parent, self.directory):
                level.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not fresh:
                return
            for directory in code_directories(self.root):
                if os.path.basename(directory) != self.fingerprint:
                    shutil.rmtree(directory, ignore_errors=True)
        except OSError:
            pass  # put finds out for itself, and gives up quietly


def unsafe(directory: Path) -> str | None:
    """Why ``directory`` may not hold cache entries, or None when it may: it must be
    a directory the user owns (where the system has owners) that no one else can
    write. A directory that does not exist is fine: it is made, for the user alone,
    when the first entry is written (or, where it cannot be, nothing is kept)."""
    try:
        info = os.stat(directory)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        return error.strerror or type(error).__name__
    if not stat.S_ISDIR(info.st_mode):
        return "not a directory"
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return f"owned by user {info.st_uid}, not by this user ({os.geteuid()})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"writable by others, mode {stat.S_IMODE(info.st_mode):o}"
    if not os.access(directory, os.R_OK | os.W_OK | os.X_OK):
        return "not readable and writable"
    return None


def open_entry(path: Path) -> io.BufferedReader:
    """The entry at ``path``, open for reading: OSError unless it is a regular file
    of the user's. Opened without blocking and without following a symlink, so a
    FIFO or a device planted under an entry's name is refused, never waited on."""
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise OSError(f"{path} is not a regular file")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            raise OSError(f"{path} is not the user's")
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def code_directories(root: Path) -> list[str]:
    """The directories under ``root`` that detlint made, one per version of its code
    (named by ``code_fingerprint``); nothing else there is detlint's to remove."""
    try:
        with os.scandir(root) as found:
            return sorted(
                entry.path
                for entry in found
                if len(entry.name) == _FINGERPRINT_LENGTH
                and all(c in "0123456789abcdef" for c in entry.name)
                and entry.is_dir(follow_symlinks=False)
            )
    except OSError:
        return []


def clear(root: Path) -> tuple[int, int]:
    """Remove every directory of detlint's cache under ``root``; the number of entries
    and bytes removed."""
    import shutil

    entries = size = 0
    for directory in code_directories(root):
        for base, _, files in os.walk(directory):
            for name in files:
                if name == _PRUNED:
                    continue
                with contextlib.suppress(OSError):
                    size += os.lstat(os.path.join(base, name)).st_size
                    entries += 1
        shutil.rmtree(directory, ignore_errors=True)
    return entries, size


def digest(*chunks: bytes) -> str:
    """The BLAKE2 digest (160 bits, in hex) of the bytes of ``chunks`` in a row."""
    import hashlib

    found = hashlib.blake2b(digest_size=20)
    for chunk in chunks:
        found.update(chunk)
    return found.hexdigest()


def dumps(value: object) -> bytes:
    """The blob ``put`` stores for ``value``."""
    import pickle

    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
