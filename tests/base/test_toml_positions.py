"""Where each item of a TOML array is written: strings holding brackets and commas,
comments, items over several lines and nested tables must not shift an item."""

from __future__ import annotations

from detlint.base.toml_positions import array_items, scan_toml

TEXT = """\
[env_run_base]
commands = [
  ["pytest", "--reruns", "3"],  # a comment with ] and ,
  { replace = "ref", of = ["x", "y"], extend = true },
  [ "a", "]b[", 'c,d' ] ,
  ['''multi''', "line",
   "item"],
]
[env.x]
commands = [["one"], ["two", "x"]]
other = "s"
names = ['''a
b''', "c" ]
"""


def _items(path: tuple[str, ...]) -> list[str]:
    lines = TEXT.splitlines()
    keys, code = scan_toml(lines)
    first, _, column = keys[path]
    found = []
    for line, start, end_line, end in array_items(code, first, column):
        rows = lines[line - 1 : end_line]
        rows[-1] = rows[-1][: end - 1]
        rows[0] = rows[0][start - 1 :] if len(rows) > 1 else rows[0][start - 1 : end - 1]
        found.append("\n".join(rows))
    return found


def test_each_item_is_found_where_it_is_written():
    assert _items(("env_run_base", "commands")) == [
        '["pytest", "--reruns", "3"]',
        '{ replace = "ref", of = ["x", "y"], extend = true }',
        '[ "a", "]b[", \'c,d\' ]',
        "['''multi''', \"line\",\n   \"item\"]",
    ]
    assert _items(("env", "x", "commands")) == ['["one"]', '["two", "x"]']


def test_strings_over_several_lines_are_items_of_their_own():
    assert _items(("env", "x", "names")) == ["'''a\nb'''", '"c"']


def test_a_value_that_is_no_array_has_no_items():
    assert _items(("env", "x", "other")) == []
