"""The check after a YAML edit: load both texts and compare what they mean.

An edit located by position can still change more than it should: a key in
a mapping an alias repeats, an anchor the edit removed, a plain scalar that
now reads as a number. So the edited text is loaded again and compared with
the original, structurally; the fix is made only when the one difference is
the intended one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from ruamel.yaml import YAML

from detlint.fixes.edits import Declined
from detlint.fixes.yaml_locate import Path, quiet_yaml


class _Missing:
    """Stands for a key one side of a difference does not have."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


@dataclass(frozen=True)
class Difference:
    """Where the loaded documents differ, and the two values there."""

    path: Path
    old: object
    new: object


@functools.lru_cache(maxsize=8)
def load(text: str) -> list[object]:
    """The loaded documents of ``text``; ``Declined`` when it does not load. Kept for
    the last few texts (the file before its fixes is loaded for each of them), so the
    result is shared: callers only read it."""
    try:
        with quiet_yaml():
            return list(YAML(typ="safe", pure=True).load_all(text))
    except Exception as error:  # ruamel raises many kinds for text it cannot read
        raise Declined(f"the edited file would not load as YAML: {error}") from None


def load_value(text: str) -> object:
    """A flow-style value, as the plan writes it, loaded as the file will load it."""
    documents = load(f"value: {text}\n")
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise Declined("the new value is not a YAML value")
    return documents[0]["value"]


def differences(old: object, new: object, path: Path = (), depth: int = 0) -> list[Difference]:
    """Every place ``old`` and ``new`` differ, the outermost one of each branch.

    A value repeated by an alias is the same object in several places and is
    compared in each of them, so an edit to it shows once per place.
    """
    if depth > 200:
        raise Declined("the document nests too deeply (a recursive alias?)")
    if isinstance(old, dict) and isinstance(new, dict):
        found: list[Difference] = []
        for key in [*old, *(key for key in new if key not in old)]:
            found += differences(
                old.get(key, MISSING), new.get(key, MISSING), (*path, key), depth + 1
            )
        return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        found = []
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            found += differences(before, after, (*path, index), depth + 1)
        return found
    if type(old) is type(new) and old == new:
        return []
    return [Difference(path, old, new)]


def require_removed(old_text: str, new_text: str, path: Path) -> None:
    """The edit removed the key at ``path`` and changed nothing else."""
    found = differences(load(old_text), load(new_text))
    if [(diff.path, diff.new) for diff in found] != [(path, MISSING)]:
        raise Declined(_unexpected(found, "removing the key"))


def require_replaced(old_text: str, new_text: str, path: Path, value: object) -> None:
    """The value at ``path`` is now ``value`` and nothing outside it changed."""
    new = load(new_text)
    found = differences(load(old_text), new)
    if any(diff.path[: len(path)] != path for diff in found):
        raise Declined(_unexpected(found, "replacing the value"))
    current: object = new
    for item in path:
        if isinstance(current, dict):
            current = current.get(item, MISSING)
        elif isinstance(current, list) and isinstance(item, int) and item < len(current):
            current = current[item]
        else:
            current = MISSING
    if differences(current, value):
        raise Declined("the edited file does not read back the new value")


def require_string(
    old_text: str, new_text: str, path: Path | None, check: Callable[[str, str], bool]
) -> None:
    """One string, at ``path``, changed, and ``check(old, new)`` accepts the change."""
    found = differences(load(old_text), load(new_text))
    if (
        path is None
        or len(found) != 1
        or found[0].path != path
        or not isinstance(found[0].old, str)
        or not isinstance(found[0].new, str)
        or not check(found[0].old, found[0].new)
    ):
        raise Declined(_unexpected(found, "editing the string"))


def _unexpected(found: list[Difference], what: str) -> str:
    if len(found) > 1:
        return (
            f"{what} would change the document in {len(found)} places "
            "(an anchor or alias repeats it)"
        )
    return f"{what} would not change the document as intended"
