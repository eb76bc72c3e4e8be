"""The conftest.py files whose fixtures can skip or xfail the tests of a directory.

A conftest fixture that calls ``pytest.skip()`` skips every test that uses it; the
files that reach each directory are worked out once (every test asks), and only those
whose bytes hold an imperative skip or xfail are parsed for it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.readers.python.conftest_chain import ConftestChain
from detlint.readers.python.prefilter import IMPERATIVE_TOKENS

if TYPE_CHECKING:
    from detlint.readers.python.module_exports import ModuleExports


class SkippingConftests:
    """The conftest.py files that reach each directory and can skip in a fixture."""

    def __init__(
        self, chain: ConftestChain, exports: Callable[[Path], ModuleExports | None]
    ) -> None:
        self.chain = chain
        self.exports = exports
        self._found: dict[str, tuple[tuple[str, ModuleExports], ...]] = {}

    def of(self, directory: str, own: str = "") -> tuple[ModuleExports, ...]:
        """The files that reach a directory, nearest first; ``own`` is the file asking,
        when it is a conftest.py itself."""
        return tuple(exports for path, exports in self._chain(directory) if path != own)

    def _chain(self, directory: str) -> tuple[tuple[str, ModuleExports], ...]:
        found = self._found.get(directory)
        if found is None:
            found = self._found[directory] = tuple(
                (path, exports)
                for path, data in self.chain.of(directory)
                if any(token in data for token in IMPERATIVE_TOKENS)
                and (exports := self.exports(Path(path))) is not None
            )
        return found
