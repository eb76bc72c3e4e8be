"""How many of a parametrized test's instances a knob in its body reaches, as a fact."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Covered:
    """The instances of one test a knob in its body reaches, when its guards read the
    test's parametrize arguments: ``count`` of ``of`` where they can be evaluated on
    the literal tables, else None, and ``where`` quotes the guards that decide it."""

    count: int | None
    of: int | None
    where: str
