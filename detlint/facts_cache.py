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

The cache lives outside the repository (``--cache-dir``, ``$DETLINT_CACHE_DIR``,
else the user's cache directory), so a run without ``--fix`` still writes nothing into the
tree it lints. Each entry is one file, written to a temporary name and renamed,
so parallel runs (a pre-commit batch) never see half an entry. Entries are
detlint's own pickles in a directory only the user can write; anything that
cannot be read back is treated as absent, and a cache that cannot be written
is skipped without a word: it only ever saves time.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

# hashlib (OpenSSL) and pickle are imported where they are used: a run that reads
# no pipeline, such as a pre-commit check of one test file, never loads them.

_FINGERPRINT_LENGTH = 32  # hex digits of the directory named after detlint's code


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

    package = Path(__file__).parent
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

    @staticmethod
    def key(data: bytes, *parts: str) -> str:
        """The entry name for a file's ``data`` read as ``parts`` say (path, kind...)."""
        return digest(data, "\0".join(("", *parts)).encode("utf-8", "surrogateescape"))

    def get(self, key: str) -> object | None:
        """The value stored under ``key`` when ``prepare`` listed it, or None."""
        if key not in self._stored:
            return None
        import pickle

        try:
            with open(self.directory / key, "rb") as stream:
                return pickle.load(stream)  # type: ignore[no-any-return]
        except Exception:  # unreadable or not an entry: read the file instead
            return None

    def put(self, key: str, value: object) -> None:
        """Store ``value`` (not None) under ``key``; failures are ignored.

        The entry is written under a name of this process's own and then renamed,
        so that a reader, or another run storing the same entry, never sees half of it.
        """
        import pickle

        path = self.directory / key
        temporary = f"{path}.{os.getpid()}.tmp"
        try:
            self._make_directory()
            blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
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
        try:
            self._stored = frozenset(os.listdir(self.directory))
        except OSError:
            self._stored = frozenset()

    def _make_directory(self) -> None:
        """Create the directory for this code (once), and drop the ones of other code:
        their entries can never be read again."""
        if self._made:
            return
        import shutil

        self._made = True
        try:
            fresh = not self.directory.parent.is_dir()
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not fresh:
                return
            for entry in os.scandir(self.root):
                name = entry.name
                if (
                    name != self.fingerprint
                    and len(name) == _FINGERPRINT_LENGTH
                    and all(c in "0123456789abcdef" for c in name)
                    and entry.is_dir(follow_symlinks=False)
                ):
                    shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            pass  # put finds out for itself, and gives up quietly


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
