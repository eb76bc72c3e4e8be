"""Pausing Python's cyclic garbage collector while many acyclic facts are built.

Reading pipelines and linking their runs builds tens of thousands of small
objects with no reference cycles; the collector's passes over them find
nothing and cost a visible share of a large run. Reference counting still
frees everything; only the cycle search waits until the block ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Disable the cycle collector inside the block; restore its state after (nested
    blocks leave it as the outermost found it)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
