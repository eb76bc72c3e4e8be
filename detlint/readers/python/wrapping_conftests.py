"""The conftest.py hooks that wrap tests by name, as the files they reach are sifted.

A hook that replaces ``item.obj`` of the items it picks (``if item.nodeid in FLAKY:
item.obj = retry(item.obj)``) retries tests whose files may hold no knob token at all;
such a file is read whole when a hook that reaches it may pick one of its tests. The
hooks of each directory are worked out once, and only conftest.py files whose bytes can
hold such a statement are parsed for them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.readers.python.conftest_chain import ConftestChain
from detlint.readers.python.prefilter import HOOK_WRAP_TOKEN, may_pick

if TYPE_CHECKING:
    from detlint.readers.python.facts import NamedWrap
    from detlint.readers.python.module_exports import ModuleExports


class WrappingConftests:
    """The named wraps of the conftest.py hooks that reach each directory of a repository."""

    def __init__(
        self, chain: ConftestChain, exports: Callable[[Path], ModuleExports | None]
    ) -> None:
        self.chain = chain
        self.exports = exports
        self._found: dict[str, tuple[NamedWrap, ...]] = {}

    def hooked(self, path: Path, data: bytes) -> bool:
        """Whether a conftest hook that reaches a test file wraps tests by name and may
        pick one of this file's: the file is then read whole, whatever its bytes hold."""
        if path.name == "conftest.py":
            return False
        wraps = self.of(os.path.dirname(os.path.abspath(path)))
        return any(may_pick(wrap, path.name, data) for wrap in wraps)

    def of(self, directory: str) -> tuple[NamedWrap, ...]:
        """The wraps of the hooks that reach a directory, nearest first."""
        found = self._found.get(directory)
        if found is None:
            found = self._found[directory] = tuple(
                wrap
                for path, data in self.chain.of(directory)
                if HOOK_WRAP_TOKEN.search(data)
                and (exports := self.exports(Path(path))) is not None
                for wrap in exports.hook_wraps
            )
        return found
