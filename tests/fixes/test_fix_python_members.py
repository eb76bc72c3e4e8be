"""An edit inside one member of a class is checked on that member alone, and says
what a check of the whole file would."""

from __future__ import annotations

import ast

import pytest

from detlint.fixes.edits import Declined, Edit, apply_edits
from detlint.fixes.python_members import Member, member_parses, members
from detlint.fixes.python_pieces import PythonFile
from detlint.fixes.source_text import SourceText

MODULE = """\
import pytest


class TestA:
    x = 1; y = 2

    @pytest.mark.flaky(reruns=3)
    def test_a(self):
        assert x

\t# a comment
    @pytest.mark.flaky(reruns=4)
    async def test_b(self):
        pass
class TestB: z = 3
"""


def source() -> SourceText:
    return SourceText.decode("test_m.py", MODULE.encode())


def test_members_that_start_their_own_lines() -> None:
    found = members(ast.parse(MODULE).body, source())
    assert found == [Member(7, 9, "    "), Member(12, 14, "    ")]


def edit(old: str, new: str) -> Edit:
    start = MODULE.index(old)
    return Edit("test_m.py", start, start + len(old), new)


def parses_whole(edits: list[Edit]) -> bool:
    try:
        ast.parse(apply_edits(MODULE, edits))
    except SyntaxError:
        return False
    return True


CASES = {
    "replace marker": [edit("flaky(reruns=3)", "xfail(strict=False)")],
    "drop decorator line": [edit("    @pytest.mark.flaky(reruns=3)\n", "")],
    "break it": [edit("flaky(reruns=3)", "flaky(reruns=3")],
    "indent the def": [edit("    def test_a", "      def test_a")],
    "leave the class": [
        edit("    @pytest.mark.flaky(reruns=4)\n", "@pytest.mark.flaky(reruns=4)\n")
    ],
    "remove the member": [
        edit("    @pytest.mark.flaky(reruns=4)\n    async def test_b(self):\n        pass\n", "")
    ],
}


@pytest.mark.parametrize("name", CASES)
def test_a_member_passes_alone_only_where_the_whole_file_parses(name: str) -> None:
    edits = CASES[name]
    found = members(ast.parse(MODULE).body, source())
    if member_parses(source(), found, edits):
        assert parses_whole(edits)
    try:
        PythonFile(source()).check(edits)
        checked = True
    except Declined:
        checked = False
    assert checked == parses_whole(edits)


def test_what_passes_alone_and_what_is_left_to_the_whole_check() -> None:
    found = members(ast.parse(MODULE).body, source())
    alone = {name: member_parses(source(), found, edits) for name, edits in CASES.items()}
    assert alone == {
        "replace marker": True,
        "drop decorator line": True,
        "break it": False,
        "indent the def": False,
        "leave the class": False,  # a line at column 0 ends the class: checked whole
        "remove the member": False,  # nothing left alone; the class still parses
    }
