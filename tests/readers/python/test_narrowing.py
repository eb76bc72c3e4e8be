"""Parsing only the blocks that matter must not change a single finding."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_expectations import run_check

import detlint.readers.python.narrowing as narrowing
from detlint.readers.python.blocks import top_level_starts
from detlint.readers.python.body_stubs import member_trial_names
from detlint.readers.python.narrowing import narrow
from detlint.readers.python.prefilter import Prefilter

REPOS = Path(__file__).parents[2] / "fixtures" / "repos"
WANTED = Prefilter().wants_block

SOURCE = '''import os
import pytest

DOC = """
def not_a_function():
@pytest.mark.flaky
"""
TRIALS = int(os.getenv("T", "5"))


def helper(n):
    for _ in range(n):
        pass


def unrelated():
    return (
1)


@pytest.mark.flaky(reruns=2)
def test_knob():
    helper(TRIALS)


def test_plain():
    assert "#" == "#"
'''


def test_top_level_starts_respect_strings_brackets_and_comments():
    starts = top_level_starts(SOURCE)
    lines = [SOURCE.count("\n", 0, start) + 1 for start in starts]
    assert lines == [1, 2, 4, 8, 11, 16, 21, 22, 26]


def kept_lines(narrowed):
    """Original line number -> text, for every line the narrowed text keeps."""
    return {
        narrowed.original_line(number): line
        for number, line in enumerate(narrowed.text.splitlines(), 1)
    }


def test_narrowed_text_keeps_the_blocks_that_matter_with_their_lines():
    narrowed = narrow(SOURCE, WANTED)
    assert narrowed is not None
    kept = kept_lines(narrowed)
    original = SOURCE.splitlines()
    for number, line in kept.items():
        assert line == original[number - 1]
    assert 21 in kept  # the test with the knob
    assert 11 in kept  # the helper it calls
    assert 8 in kept  # the trial constant
    assert 16 not in kept  # unrelated code is dropped
    assert 26 not in kept


def test_crlf_text_stays_crlf():
    narrowed = narrow(SOURCE.replace("\n", "\r\n"), WANTED)
    assert narrowed is not None
    assert "\r\n" in narrowed.text
    assert "\n" not in narrowed.text.replace("\r\n", "")


@pytest.mark.parametrize(
    "text",
    [
        "import pytest\npytestmark = pytest.mark.flaky\n\ndef test_a():\n    pass\n\nx = 1\n",
        # A top-level skip of the whole module reaches tests that hold no token.
        "import pytest\nif X:\n    pytest.skip('r', allow_module_level=True)\n\n"
        "def test_a():\n    pass\n\nx = 1\n",
        "import unittest\nraise unittest.SkipTest('r')\n\ndef test_a():\n    pass\n\nx = 1\n",
        "def broken(:\n    pass\n",
        "x = (\n",
    ],
)
def test_whole_file_when_the_cut_cannot_be_trusted(text):
    assert narrow(text, WANTED) is None


@pytest.mark.parametrize("repo", sorted(p.name for p in REPOS.iterdir() if p.is_dir()))
def test_findings_identical_with_and_without_narrowing(repo, monkeypatch):
    narrowed = run_check(REPOS / repo, "--select", "ALL")
    monkeypatch.setattr(narrowing, "narrow", lambda text, wanted, imported=frozenset(): None)
    whole = run_check(REPOS / repo, "--select", "ALL")
    assert narrowed == whole


def test_test_bodies_without_anything_to_read_are_stubbed():
    source = (
        "import pytest\n\n\n"
        "@pytest.mark.xfail(reason='x')\n"
        "def test_big(a,\n"
        "             b):  # a long signature\n"
        "    value = compute(a, b)\n"
        "    assert value == 3\n\n\n"
        "@pytest.mark.xfail(reason='y')\n"
        "def test_loop():\n"
        "    for _ in range(5):\n"
        "        assert True\n"
    )
    narrowed = narrow(source, WANTED)
    assert narrowed is not None
    kept = kept_lines(narrowed)
    assert kept[4] == "@pytest.mark.xfail(reason='x')"
    assert kept[6] == "             b):  # a long signature"
    assert kept[7] == "    pass"  # the body of test_big is not needed
    assert 8 not in kept
    assert kept[14] == "        assert True"  # a trial loop's body is kept


def test_statement_starts_are_the_same_for_non_ascii_text():
    # Offsets are characters: a multi-byte character before a bracket must not shift them.
    accented = SOURCE.replace('DOC = """', 'DOC = """ é ⟨ ').replace("(\n1)", "(\n'ü', [1])")
    starts = top_level_starts(accented)
    assert [accented.count("\n", 0, start) + 1 for start in starts] == [
        1,
        2,
        4,
        8,
        11,
        16,
        21,
        22,
        26,
    ]


def test_a_trial_hint_in_a_nested_function_belongs_to_its_method():
    block = (
        "class TestKernel:\n"
        "    def setup(self):\n"
        "        self.x = 1\n"
        "    def trials(self):\n"
        "        def inner():\n"
        "            return int(os.getenv('N', '5'))\n"
        "        return inner()\n"
        "    def plain(self):\n"
        "        return 2\n"
        "    def loop(self, n):\n"
        "        for _ in range(n):\n"
        "            pass\n"
    )
    assert member_trial_names(block) == {"trials", "inner", "loop"}
