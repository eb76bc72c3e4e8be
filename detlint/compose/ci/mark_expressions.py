"""Which tests a run's ``-m`` expression keeps, read as pytest reads it.

A CI step that runs ``pytest -m integration`` runs only the tests marked so; the
numbers a CI rule quotes must be of a test the step runs. pytest's grammar is
marker names joined by ``and``, ``or``, ``not`` and parentheses; detlint reads
that grammar itself and never evaluates the expression as Python. An expression
it cannot read (keyword matching, ``mark(kw=1)``, of pytest 8.3) keeps every test,
and so does a test whose markers are not all known.
"""

from __future__ import annotations

import re

# pytest's identifier: anything but whitespace, parentheses, commas and quotes that is
# not a keyword (src/_pytest/mark/expression.py).
_TOKEN = re.compile(r"\s*(\(|\)|(?:\w|:|\+|-|\.|\[|\]|\\|/)+)")
_KEYWORDS = frozenset({"and", "or", "not"})


def _tokens(expression: str) -> list[str] | None:
    found: list[str] = []
    position = 0
    while position < len(expression):
        if expression[position:].strip() == "":
            break
        match = _TOKEN.match(expression, position)
        if match is None:
            return None
        found.append(match.group(1))
        position = match.end()
    return found


class _Reader:
    """A recursive-descent reading over the tokens: or of ands of nots of atoms."""

    def __init__(self, tokens: list[str], names: frozenset[str]) -> None:
        self.tokens, self.names, self.at = tokens, names, 0

    def _peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self) -> str:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expression(self) -> bool:
        value = self._conjunction()
        while self._peek() == "or":
            self._take()
            value = self._conjunction() or value
        return value

    def _conjunction(self) -> bool:
        value = self._negation()
        while self._peek() == "and":
            self._take()
            value = self._negation() and value
        return value

    def _negation(self) -> bool:
        if self._peek() == "not":
            self._take()
            return not self._negation()
        token = self._peek()
        if token is None or token == ")" or token in _KEYWORDS:
            raise ValueError("expected a marker name")
        self._take()
        if token == "(":
            value = self.expression()
            if self._peek() != ")":
                raise ValueError("unclosed parenthesis")
            self._take()
            return value
        return token in self.names


def keeps(expression: str | None, markers: frozenset[str] | None) -> bool:
    """Whether ``pytest -m expression`` runs a test with these marker names (True when
    there is no expression, the expression is not read, or the markers are unknown)."""
    if not expression or markers is None:
        return True
    tokens = _tokens(expression)
    if not tokens:
        return True
    reader = _Reader(tokens, markers)
    try:
        value = reader.expression()
    except ValueError:
        return True
    return value if reader.at == len(tokens) else True
