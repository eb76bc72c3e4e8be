"""Reading many pipeline files: over the cores, and through the facts cache.

A large CI setup has hundreds of pipeline files, so they are read in forked
worker processes (each returns its files' facts pickled), and a repeat run takes
each unchanged file's facts from the cache instead of parsing it again. A
worker looks a file up and stores what it read itself, so a first run's cache
writes are spread over the cores too. An entry rests on the file's bytes and,
for a GitLab pipeline, on the bytes of every local file it includes: their
digests are kept in the entry and checked before it is taken.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from detlint.base.cache_pickle import loads
from detlint.base.facts_cache import FactsCache, dumps
from detlint.base.parallel import fork_map
from detlint.base.paths import display_path
from detlint.base.source import read_bytes
from detlint.base.span import Problem
from detlint.readers.ci.facts import System
from detlint.readers.ci.pipeline_reader import Input, PipelineReader, Read, content_digest

# Below this many YAML files, forking costs more than it saves.
PARALLEL_FILES = 50


class Stored(NamedTuple):
    """A cache entry: the pickled Read, behind the other files it rests on, so that
    they are checked without unpickling the facts."""

    inputs: tuple[Input, ...]
    blob: bytes


def unchanged(inputs: tuple[Input, ...]) -> bool:
    """Whether every other file a cached read rests on still holds the same bytes."""
    for path, then in inputs:
        data = read_bytes(Path(path), "") if os.path.isfile(path) else None
        if content_digest(data) != then:
            return False
    return True


def read_each(
    reader: PipelineReader,
    items: Sequence[tuple[Path, System | None]],
    jobs: int,
    cache: FactsCache | None,
) -> list[Read]:
    """``reader.read_apart`` of every item, over ``jobs`` processes when there are
    many, and from ``cache`` for every file read before with the same bytes (and,
    for a GitLab pipeline, the same bytes in every file it includes)."""
    jobs = jobs if len(items) >= PARALLEL_FILES else 1
    if cache is None:
        return fork_map(reader.read_apart, items, jobs)

    def read_through(item: tuple[Path, System | None]) -> bytes | None:
        """One file's Read, pickled: from the cache, or read and stored (in a worker
        process, when there are many); None for a file not worth reading."""
        path, system = item
        display = display_path(path, reader.cwd)
        data = read_bytes(path, display)
        if isinstance(data, Problem):
            return dumps(reader.read_apart(item))  # its problem is reported, not stored
        if not reader.worth_reading(data, system):
            return None
        key = cache.key(data, display, reader.relative(path), system or "")
        stored = cache.get(key)
        if isinstance(stored, Stored) and unchanged(stored.inputs):
            return stored.blob
        read = reader.read_apart(item, data)
        blob = dumps(read)
        cache.put(key, Stored(read.inputs, blob))
        return blob

    blobs = fork_map(read_through, items, jobs)
    return [
        Read(None, []) if blob is None else _taken(blob) or reader.read_apart(item)
        for item, blob in zip(items, blobs, strict=True)
    ]


def _taken(blob: bytes) -> Read | None:
    """The Read pickled in ``blob``, which may come from the cache: read back as any
    entry is (only detlint's facts), and None when it holds anything else."""
    try:
        value = loads(blob)
    except Exception:  # not an entry of this detlint's: the file is read afresh
        return None
    return value if isinstance(value, Read) else None
