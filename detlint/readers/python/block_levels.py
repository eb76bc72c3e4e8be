"""The statements of one level of a file (the module, or a class body), as the
narrowing pass asks about them: what each defines, whether it is a class, whether it
holds a trial hint, and the identifiers it uses (found only when asked).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from detlint.readers.python.blocks import IDENTIFIER, defined_name, definition_head
from detlint.readers.python.body_stubs import CHECK_HINTS, TRIAL_HINTS, loops_and_checks


@dataclass(frozen=True)
class Level:
    """The statements of one level (a module, or a class body) with what each one
    defines, found once: every step of the cut asks about them."""

    blocks: tuple[str, ...]
    heads: tuple[re.Match[str] | None, ...]  # the def/class line of a definition
    defined: tuple[str | None, ...]
    # Whether a block holds a trial hint: it may loop or read the environment.
    hinted: tuple[bool, ...]
    # Whether a block is a function that skips while it runs (a fixture, a gate the
    # test calls first).
    skips: tuple[bool, ...]
    # Whether a block is a fixture that checks (``assert``, ``fail(``, ``raise``): a
    # failure at setup, which pytest-retry does not retry (``setup_checks``).
    checks: tuple[bool, ...] = ()

    @classmethod
    def of(cls, blocks: list[str]) -> Level:
        heads = tuple(map(definition_head, blocks))
        return cls(
            tuple(blocks),
            heads,
            tuple(map(defined_name, blocks, heads)),
            tuple(map(_hinted, blocks, heads)),
            tuple(
                head is not None and head.group(1) != "class" and _skips(block)
                for block, head in zip(blocks, heads, strict=True)
            ),
            tuple(
                head is not None and head.group(1) != "class" and _checking_fixture(block)
                for block, head in zip(blocks, heads, strict=True)
            ),
        )

    def is_class(self, index: int) -> bool:
        head = self.heads[index]
        return head is not None and head.group(1) == "class"

    def candidates(self) -> list[bool]:
        """Whether each definition a kept block uses can change its facts.

        Assignments (trial constants, parametrize tables, aliases) always can; a
        function or class only if it loops or reads the environment (a trial helper,
        a fixture returning a trial count), or a function that skips while it runs (a
        fixture, or a ``skip_unless_mac()`` the test calls first: where it skips, the
        test does not run), or a fixture that checks (``setup_checks``). Others
        (assertion helpers, base classes) are left out, which keeps large real suites
        cheap to parse; the few that matter are kept by ``_checked_by_loops`` and
        ``_bases_of_kept``.
        """
        return [
            head is None or hinted or skips or checks
            for head, hinted, skips, checks in zip(
                self.heads, self.hinted, self.skips, self.checks, strict=True
            )
        ]


class Words:
    """The identifiers of each block, found when first asked for: only kept
    blocks are asked, and few blocks are kept."""

    def __init__(self, blocks: list[str]) -> None:
        self._blocks = blocks
        self._found: list[set[str] | None] = [None] * len(blocks)

    def __getitem__(self, index: int) -> set[str]:
        found = self._found[index]
        if found is None:
            found = self._found[index] = set(IDENTIFIER.findall(self._blocks[index]))
        return found


# What a function that skips while it runs holds (``pytest.skip(``, ``self.skipTest(``,
# ``raise SkipTest``).
_SKIP_HINTS = ("skip(", "skipTest(", "SkipTest")


def _skips(block: str) -> bool:
    return any(hint in block for hint in _SKIP_HINTS)


# A fixture's decorator, ``@pytest.fixture`` or ``@fixture(scope=...)`` (not a step's
# ``target_fixture=`` keyword).
_FIXTURE_DECORATOR = re.compile(r"@(?:\w+\.)*fixture\b(?!\s*=)")


def _checking_fixture(block: str) -> bool:
    return _FIXTURE_DECORATOR.search(block.split("def", 1)[0]) is not None and any(
        hint in block for hint in (*CHECK_HINTS, "raise ")
    )


def _hinted(block: str, head: re.Match[str] | None) -> bool:
    """Whether a block holds a trial hint, or is a function with a loop that checks."""
    if any(hint in block for hint in TRIAL_HINTS):
        return True
    return head is not None and head.group(1) != "class" and loops_and_checks(block)
