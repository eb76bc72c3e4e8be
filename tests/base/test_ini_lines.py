"""The INI scanner that gives value lines their positions agrees with configparser
on what each value is, and points at the right line and column."""

from __future__ import annotations

import configparser

import pytest

from detlint.base.ini_lines import IniLine, ini_options

SAMPLES = [
    "[testenv]\ncommands =\n    pytest --reruns 2 tests\n\n    coverage report\ndeps = flaky\n",
    "[options]\ninstall_requires = a\n  b>=2\n# comment\n\n  c\n[other]\nkey: value\n",
    "[tox]\nenvlist = py3{10,11}\r\n[testenv:py310]\nsetenv =\n  N = 3\n  M=4\n",
    "; a comment\n[s]\n  indented_key = 1\nKEY = Upper\nempty =\n",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_values_agree_with_configparser(text: str) -> None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read_string(text)
    found = {(o.section, o.option): o for o in ini_options(text)}
    expected = {
        (section, option): parser.get(section, option, raw=True)
        for section in parser.sections()
        for option in parser.options(section)
    }
    assert set(found) == set(expected)
    for key, value in expected.items():
        # configparser keeps the blank lines inside a value; they hold no text to point at.
        texts = [line.strip() for line in value.splitlines() if line.strip()]
        assert [line.text for line in found[key].lines] == texts


def test_positions_point_at_the_value_text() -> None:
    text = "[testenv]\ncommands = pytest -x\n    pytest --reruns 2\n"
    (option,) = ini_options(text)
    assert option.lines == (IniLine(2, 12, "pytest -x"), IniLine(3, 5, "pytest --reruns 2"))
    rows = text.split("\n")
    for line in option.lines:
        assert rows[line.line - 1][line.column - 1 :].startswith(line.text)
