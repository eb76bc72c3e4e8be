"""Splitting CI shell text into words and operators, each with its source offsets.

Findings point at columns, so every token keeps where it was written. The
standard library's ``shlex`` does not fit: it reports no offsets, treats ``#``
inside a word as a comment and swallows the newline with it, splits ``$(...)``
into ``$`` and ``(``, fuses ``)||`` into one token and walks the text one
character at a time in Python. Nor does ``bashlex`` (a port of bash's own
parser): its last release is 0.18 from January 2023, it is GPLv3+, and it fails
the whole parse on ``[[ ]]``, ``case`` arms and array assignments, all common
in CI scripts, where detlint needs to read around what it cannot parse. So this
is a small regex-driven lexer that never raises: what it cannot close (a quote,
a ``$(``) it keeps as literal text and notes in ``Lexer.broken``.

Words keep their source text and their value after quote removal, with
expansions (``$x``, ``${x}``, ``$(...)``) kept as written; the command
substitutions inside a word are lexed too, for the parser to parse as scripts.
Which words assign a variable (``NAME=value``, ``export NAME=value``) is
decided here too, once, for the parser, the walk and the interpreter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Nesting deeper than this is not read (and marks the text broken): it keeps
# recursion far from Python's limit on hostile input.
MAX_LEX_DEPTH = 24

# One token after any blanks (line continuations count as blanks), by group:
# 1, a word of ordinary characters only (its value is its text; the lookahead
# checks that no quote, expansion or backslash continues it); 2, a newline;
# 3, a comment; 4, ``((`` or a process substitution; 5, an operator. No group:
# the blanks ran to the end, or a word that needs ``Lexer._word`` starts here.
_TOKEN = re.compile(
    r"(?:[ \t\r\f\v]|\\\r?\n)*"
    r"(?:([^\s'\"\\$`;&|()<>#][^\s'\"\\$`;&|()<>]*)(?=[\s;&|)<>]|\Z)"
    r"|(\n)|(#)|(\(\(|[<>]\()"
    r"|(&&|\|\||;;&|;;|;&|\|&|&>>|&>|>>|>&|<&|<<<|<<-|<<|<>|>\||[;&|()<>]))?"
)
_WORD, _NEWLINE, _COMMENT, _SPECIAL, _OPERATOR = 1, 2, 3, 4, 5
_PLAIN = re.compile(r"[^\s'\"\\$`;&|()<>]+")
_DOUBLE_PLAIN = re.compile(r'[^"\\$`]+')
_PARAMETER = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9?$!@*#-])")
_ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'", re.S)
_BACKTICK = re.compile(r"`((?:[^`\\]|\\.)*)`", re.S)
_PARENS = re.compile(r"[()]")
_BRACES = re.compile(r"[{}]")
_ARRAY_START = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


@dataclass(eq=False)
class Word:
    """A shell word; offsets are positions in the outermost text."""

    raw: str  # source text
    value: str  # after quote removal; expansions kept as written
    start: int
    end: int
    dynamic: bool  # holds an expansion ($x, ${x}, $(...), `...`) outside single quotes
    subs: list[list[Token]]  # token lists of the command substitutions inside
    io_number: bool = False  # the "2" of "2>&1"


@dataclass(eq=False)
class Op:
    """An operator (``&&``, ``|``, ``;;``, ``>>``...) or a newline."""

    op: str
    start: int
    end: int
    heredoc: tuple[int, int] | None = None  # body offsets, for << and <<-


Token = Word | Op


class Lexer:
    """Splits bash text into words and operators.

    Offsets are positions in the outermost text: ``shift`` is added to every
    offset so that a nested script (the string of ``bash -c '...'``) points
    back into the text it came from.
    """

    def __init__(self, text: str, shift: int = 0, depth: int = 0) -> None:
        self.text = text
        self.size = len(text)
        self.shift = shift
        self.depth = depth
        self.broken = False
        self.too_deep = False  # a substitution nested past MAX_LEX_DEPTH was not read

    def tokens(self) -> list[Token]:
        return self._run(0, closing=False)[0]

    def _run(self, pos: int, *, closing: bool) -> tuple[list[Token], int]:
        """Tokens from ``pos`` to the end, or, when ``closing``, to the ``)`` that
        closes a ``$(`` (returned position is just after it)."""
        text, shift, size = self.text, self.shift, self.size
        tokens: list[Token] = []
        pending: list[tuple[Op, str, bool]] = []  # here-docs waiting for the next newline
        wants_delimiter: Op | None = None
        parens = 0
        match_token = _TOKEN.match
        while pos < size:
            found = match_token(text, pos)
            assert found is not None  # every group is optional
            kind = found.lastindex
            word: Word
            if kind == _WORD:
                start, pos = found.span(_WORD)
                raw = found.group(_WORD)
                word = Word(raw, raw, start + shift, pos + shift, False, [])
            elif kind is None:
                pos = found.end()
                if pos >= size:
                    break
                word, pos = self._word(pos)
            elif kind == _NEWLINE:
                pos = found.end()
                tokens.append(Op("\n", pos - 1 + shift, pos + shift))
                if pending:
                    pos = self._heredoc_bodies(pos, pending)
                    pending = []
                continue
            elif kind == _COMMENT:
                newline = text.find("\n", found.end())
                pos = size if newline < 0 else newline
                continue
            elif kind == _SPECIAL:
                word, pos = self._special_word(found.start(_SPECIAL))
                tokens.append(word)
                continue
            else:
                op = found.group(_OPERATOR)
                start = found.start(_OPERATOR)
                if closing and op == "(":
                    parens += 1
                elif closing and op == ")":
                    if parens == 0:
                        return tokens, start + 1
                    parens -= 1
                pos = found.end()
                token = Op(op, start + shift, pos + shift)
                tokens.append(token)
                if op in ("<<", "<<-"):
                    wants_delimiter = token
                continue
            if wants_delimiter is not None:
                pending.append((wants_delimiter, word.value, wants_delimiter.op == "<<-"))
                wants_delimiter = None
            elif word.raw.isdigit() and pos < size and text[pos] in "<>":
                word.io_number = True
            tokens.append(word)
        if closing:
            self.broken = True
        return tokens, pos

    def _heredoc_bodies(self, pos: int, pending: list[tuple[Op, str, bool]]) -> int:
        """Skip the here-document bodies that start after a newline; returns the new position."""
        for op, delimiter, strip_tabs in pending:
            tabs = r"\t*" if strip_tabs else ""
            end = re.compile(rf"^{tabs}{re.escape(delimiter)}\r?$", re.M).search(self.text, pos)
            if end is None:
                op.heredoc = (pos + self.shift, self.size + self.shift)
                return self.size
            op.heredoc = (pos + self.shift, end.start() + self.shift)
            pos = min(end.end() + 1, self.size)
        return pos

    def _word(self, pos: int) -> tuple[Word, int]:
        text = self.text
        start = pos
        parts: list[str] = []
        subs: list[list[Token]] = []
        dynamic = False
        while pos < self.size:
            plain = _PLAIN.match(text, pos)
            if plain:
                parts.append(plain.group())
                pos = plain.end()
                continue
            char = text[pos]
            if char == "'":
                close = text.find("'", pos + 1)
                if close < 0:
                    self.broken = True
                    parts.append(char)
                    pos += 1
                else:
                    parts.append(text[pos + 1 : close])
                    pos = close + 1
            elif char == '"':
                pos, found = self._double_quoted(pos, parts, subs)
                dynamic = dynamic or found
            elif char == "\\":
                pos = self._backslash(pos, parts, quoted=False)
            elif char == "$":
                pos, found = self._dollar(pos, parts, subs)
                dynamic = dynamic or found
            elif char == "`":
                pos = self._backtick(pos, parts, subs)
                dynamic = True
            elif char == "(" and _ARRAY_START.fullmatch(text, start, pos):
                # An array assignment, name=(a b c): one word up to the closing parenthesis.
                _, pos = self._run(pos + 1, closing=True)
                parts = [text[start:pos]]
            else:
                break
        if pos == start:  # a lone character no rule took: keep it as a word
            pos += 1
            parts.append(text[start])
        word = Word(
            text[start:pos], "".join(parts), start + self.shift, pos + self.shift, dynamic, subs
        )
        return word, pos

    def _special_word(self, pos: int) -> tuple[Word, int]:
        """``((arithmetic))`` or a process substitution ``<(...)``/``>(...)`` as one word."""
        text = self.text
        if text.startswith("((", pos):
            close = self._closing(pos, _PARENS)
            end = self.size if close < 0 else close
            if close < 0:
                self.broken = True
            raw = text[pos:end]
            return Word(raw, raw, pos + self.shift, end + self.shift, True, []), end
        tokens, end = self._nested(pos + 2)
        raw = text[pos:end]
        return Word(raw, raw, pos + self.shift, end + self.shift, True, [tokens]), end

    def _closing(self, pos: int, brackets: re.Pattern[str]) -> int:
        """The position just after the bracket (``_PARENS`` or ``_BRACES``) that
        matches the opening one at ``pos``, or -1."""
        depth = 0
        for bracket in brackets.finditer(self.text, pos):
            depth += 1 if bracket.group() in "({" else -1
            if depth == 0:
                return bracket.end()
        return -1

    def _nested(self, pos: int) -> tuple[list[Token], int]:
        """Tokens of a ``$(...)``-style substitution starting at ``pos``."""
        if self.depth >= MAX_LEX_DEPTH:
            self.broken = self.too_deep = True
            close = self._closing(pos - 1, _PARENS)
            return [], self.size if close < 0 else close
        self.depth += 1
        try:
            return self._run(pos, closing=True)
        finally:
            self.depth -= 1

    def _backslash(self, pos: int, parts: list[str], *, quoted: bool) -> int:
        text = self.text
        if pos + 1 >= self.size:
            parts.append("\\")
            return pos + 1
        following = text[pos + 1]
        if following == "\n":
            return pos + 2
        if following == "\r" and text.startswith("\n", pos + 2):
            return pos + 3
        if quoted and following not in '$`"\\':
            parts.append("\\" + following)
        else:
            parts.append(following)
        return pos + 2

    def _double_quoted(
        self, pos: int, parts: list[str], subs: list[list[Token]]
    ) -> tuple[int, bool]:
        """Read ``"..."`` from ``pos``; an unclosed quote is kept as a literal character."""
        text = self.text
        kept_parts, kept_subs = len(parts), len(subs)
        dynamic = False
        i = pos + 1
        while i < self.size:
            plain = _DOUBLE_PLAIN.match(text, i)
            if plain:
                parts.append(plain.group())
                i = plain.end()
                continue
            char = text[i]
            if char == '"':
                return i + 1, dynamic
            if char == "\\":
                i = self._backslash(i, parts, quoted=True)
            elif char == "$":
                i, found = self._dollar(i, parts, subs)
                dynamic = dynamic or found
            else:
                i = self._backtick(i, parts, subs)
                dynamic = True
        self.broken = True
        del parts[kept_parts:]
        del subs[kept_subs:]
        parts.append('"')
        return pos + 1, False

    def _dollar(self, pos: int, parts: list[str], subs: list[list[Token]]) -> tuple[int, bool]:
        """Read an expansion starting with ``$``; returns the new position and
        whether it expands to something unknown."""
        text = self.text
        if text.startswith("$'", pos):
            ansi = _ANSI_C.match(text, pos)
            if ansi:
                parts.append(re.sub(r"\\(.)", r"\1", ansi.group(1)))
                return ansi.end(), False
        elif text.startswith("$((", pos):
            close = self._closing(pos + 1, _PARENS)
            if close > 0:
                parts.append(text[pos:close])
                return close, True
        elif text.startswith("$(", pos):
            tokens, end = self._nested(pos + 2)
            subs.append(tokens)
            parts.append(text[pos:end])
            return end, True
        elif text.startswith("${", pos):
            close = self._closing(pos + 1, _BRACES)
            if close > 0:
                parts.append(text[pos:close])
                return close, True
            self.broken = True
        else:
            parameter = _PARAMETER.match(text, pos)
            if parameter:
                parts.append(parameter.group())
                return parameter.end(), True
        parts.append("$")
        return pos + 1, False

    def _backtick(self, pos: int, parts: list[str], subs: list[list[Token]]) -> int:
        quoted = _BACKTICK.match(self.text, pos)
        if quoted is None:
            self.broken = True
            parts.append("`")
            return pos + 1
        if self.depth < MAX_LEX_DEPTH:
            inner = Lexer(quoted.group(1), self.shift + pos + 1, self.depth + 1)
            subs.append(inner.tokens())
            self.broken = self.broken or inner.broken
        else:
            self.broken = True
        parts.append(quoted.group())
        return quoted.end()


# ----------------------------------------------------------------- assignments

# A word that assigns a variable: NAME=, NAME+=, NAME[index]=.
ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=")
# Builtins whose NAME=value arguments assign variables.
DECLARATIONS = frozenset({"export", "declare", "typeset", "local", "readonly"})


def split_assignment(word: Word) -> tuple[str, str]:
    """The name and value of an assignment word (``NAME=value``, ``NAME+=value``)."""
    match = ASSIGNMENT.match(word.value)
    if match is None:
        return word.value, ""
    return match.group(1), word.value[match.end() :]
