"""Deciding a knob's condition against the ``if`` a test class is defined under."""

from __future__ import annotations

import pytest

from detlint.compose.branch_conditions import atom, reaches
from detlint.readers.python.facts import Branch


def _reaches(knob: str, *branches: tuple[str, bool]) -> bool | None:
    return reaches((atom(knob),), tuple(Branch(code, holds) for code, holds in branches))


@pytest.mark.parametrize(
    ("knob", "branch", "expected"),
    [
        ("sys.platform == 'win32'", ("sys.platform != 'win32'", True), False),
        ("sys.platform == 'win32'", ("sys.platform != 'win32'", False), True),
        ("sys.platform == 'linux'", ("sys.platform in ('win32', 'cygwin')", True), False),
        ("sys.platform == 'linux'", ("sys.platform not in ('win32', 'cygwin')", True), True),
        ("sys.platform.startswith('freebsd')", ("sys.platform == 'freebsd14'", True), True),
        ("sys.platform.startswith('win')", ("sys.platform.startswith('linux')", True), False),
        ("not sys.platform.startswith('win')", ("sys.platform == 'win32'", True), False),
        ("platform.system() == 'Darwin'", ("platform.system() != 'Darwin'", True), False),
        ("os.name == 'nt'", ("sys.platform == 'linux'", True), None),
        ("sys.platform == 'linux'", ("hasattr(selectors, 'EpollSelector')", True), None),
    ],
)
def test_pairs(knob: str, branch: tuple[str, bool], expected: bool | None) -> None:
    assert _reaches(knob, branch) is expected


def test_nested_branches_decided_together() -> None:
    # `if sys.platform != 'win32':` then `if sys.platform == 'darwin':` under it.
    assert (
        _reaches(
            "sys.platform == 'darwin'",
            ("sys.platform != 'win32'", True),
            ("sys.platform == 'darwin'", True),
        )
        is True
    )
    assert (
        _reaches(
            "sys.platform == 'linux'",
            ("sys.platform != 'win32'", True),
            ("sys.platform == 'darwin'", True),
        )
        is False
    )


def test_any_alternative_that_holds_reaches() -> None:
    either = (atom("sys.platform == 'win32'"), atom("sys.platform == 'linux'"))
    assert reaches(either, (Branch("sys.platform == 'linux'", True),)) is True
    assert reaches(either, (Branch("sys.platform == 'darwin'", True),)) is False
    assert reaches(None, (Branch("sys.platform == 'darwin'", True),)) is True
