"""The one line index: offsets as lines and columns, the same whichever way it counts."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from detlint.base.line_index import LineIndex

TEXTS = st.text(alphabet="ab \t\r\n\x85", max_size=80)


def _naive(text: str, offset: int, breaks: str) -> tuple[int, int]:
    """Line and column by splitting the text before ``offset`` at ``breaks``."""
    lines = re.split(breaks, text[:offset])
    return len(lines), len(lines[-1]) + 1


@given(TEXTS, st.data())
def test_a_newline_index_counts_only_newlines(text, data):
    offsets = data.draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=20))
    index = LineIndex(text)
    for offset in offsets:  # the first points counted, the rest by bisection
        assert index.position(offset) == _naive(text, offset, "\n")


@given(TEXTS, st.integers(0, 80))
def test_a_universal_index_ends_lines_as_the_parser_does(text, offset):
    offset = min(offset, len(text))
    assert LineIndex(text, universal=True).position(offset) == _naive(text, offset, "\r\n|\r|\n")


@given(TEXTS)
def test_line_starts_and_ends_cover_the_text(text):
    index = LineIndex(text, universal=True)
    spans = [(index.line_start(n), index.line_end(n)) for n in range(1, index.line_count() + 1)]
    assert "".join(text[start:end] for start, end in spans) == text
    assert all(index.position(start) == (n, 1) for n, (start, _) in enumerate(spans, 1))
