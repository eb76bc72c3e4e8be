"""The shell reader's fast path: text that is lines of plain words.

Most CI command texts give the shell little to interpret but quotes, line
breaks and a ``$NAME`` here and there: ``pip install -r requirements.txt``,
``pytest -k "not slow" tests -n 4``, ``echo "--- :python: unit (smoke)"``. For
such a text the general lexer and the recursive-descent parser
(``parser.py``) can only build a list of simple commands, one per line, and
they spend most of their time finding that out one token at a time. This module
builds the same nodes (``Word`` and ``Simple``, as ``lexer.py`` and
``nodes.py`` define them) with one regex over the text, so that the walk and
the exit-status interpreter read them as they read the parser's.

It declines (returns None) whenever its result could differ from the parser's,
and ``parse`` then takes the full way: on text holding a backquote or a
backslash anywhere; an operator, ``#``, a brace or whitespace other than space,
tab and newline outside quotes; a ``$`` that starts anything but a plain
parameter (``$NAME``, ``$1``, ``${NAME:-x}``) outside single quotes; a quote
left open; or a line starting with a word the parser treats specially (``if``,
``for``, ``!``, ``[[``, ``time``, a closer such as ``fi``...). What is left is
read as the lexer reads it: parameters are kept as written and everything else
between quotes is literal, line breaks included, so a word's value is its text
without the quotes, and the word is dynamic when a parameter stands outside
single quotes. ``tests/ci/test_shell_plain.py`` holds both ways to the same result.
"""

from __future__ import annotations

import re

from detlint.readers.ci.shell.lexer import ASSIGNMENT, Word
from detlint.readers.ci.shell.nodes import Simple

# Characters that only the full lexer reads right wherever they stand.
_UNPLAIN = re.compile(r"[`\\]")
# A parameter expansion the lexer keeps as written: $NAME, $1, $?, or ${...}
# with no brace, quote, blank, "$", backquote or backslash inside.
_PARAMETER = r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9?$!@*#-]|\{[^{}'\"\s`$\\]*\})"
# Each match: a word (plain runs, parameters and closed quotes, glued), a newline,
# or a character the fast path does not read: an operator, a comment, a brace, a
# "$" of another kind or whitespace other than space, tab and newline outside
# quotes, or a quote left open. Spaces and tabs between matches are skipped.
_TOKEN = re.compile(
    rf"""(?:[^\s'"|&;()<>#{{}}$]+|'[^']*'|"[^"$]*(?:{_PARAMETER}[^"$]*)*"|{_PARAMETER})+"""
    r"|(\n)|([^ \t])"
)
_NEWLINE, _OTHER = 1, 2
# The quoted parts of a word, single-quoted ones apart (group 1 for double quotes).
_DOUBLE_OR_SINGLE = re.compile(r"""("[^"]*")|'[^']*'""")
_QUOTED = re.compile(r"""'([^']*)'|"([^"]*)\"""")
# Words that mean more than a command name where a command starts (shell_parser).
_SPECIAL_FIRST = frozenset(
    (
        *("!", "[[", "time", "{", "}", "function"),
        *("if", "then", "elif", "else", "fi", "case", "esac"),
        *("while", "until", "for", "select", "do", "done"),
    )
)


def _unquote(raw: str) -> str:
    """The value of a word of a plain text: its quotes removed, nothing else."""
    if "'" not in raw:
        return raw.replace('"', "")
    if '"' not in raw:
        return raw.replace("'", "")
    return _QUOTED.sub(lambda quoted: quoted.group(1) or quoted.group(2) or "", raw)


def _dynamic(raw: str) -> bool:
    """Whether a word holding "$" expands a parameter: unless it is single-quoted."""
    if "'" not in raw:
        return True
    return "$" in _DOUBLE_OR_SINGLE.sub(lambda quoted: quoted.group(1) or "", raw)


def _simple(assigns: list[Word], words: list[Word]) -> Simple:
    first = assigns[0] if assigns else words[0]
    return Simple(assigns, words, [], first.start, words[-1].end if words else assigns[-1].end)


def plain_commands(text: str, shift: int = 0) -> list[Simple] | None:
    """The simple commands of ``text`` (found at offset ``shift`` of the outermost
    text), one per non-empty line, as ``parser.parse`` reads them but
    without the scripts of ``bash -c``/``eval``; None when the text is not plain."""
    if _UNPLAIN.search(text):
        return None
    commands: list[Simple] = []
    assigns: list[Word] = []
    words: list[Word] = []
    for token in _TOKEN.finditer(text):
        kind = token.lastindex
        if kind is None:  # a word
            raw = token.group()
            start, end = token.span()
            value = _unquote(raw) if "'" in raw or '"' in raw else raw
            word = Word(raw, value, start + shift, end + shift, "$" in raw and _dynamic(raw), [])
            if words:
                words.append(word)
            elif assigns or raw not in _SPECIAL_FIRST:
                if "=" in raw and ASSIGNMENT.match(raw):
                    assigns.append(word)
                else:
                    words.append(word)
            else:
                return None  # a keyword, "!", "[[" or "time" where a command starts
        elif kind == _NEWLINE:
            if words or assigns:
                commands.append(_simple(assigns, words))
                assigns, words = [], []
        else:
            return None
    if words or assigns:
        commands.append(_simple(assigns, words))
    return commands


def may_run_script(text: str) -> bool:
    """Whether a word of the plain ``text`` may start a script string: only a word
    whose value ends in "sh" or "eval" can (``wrappers.script_argument``),
    and every value is a piece of the text with its quotes removed."""
    if "'" in text or '"' in text:
        text = text.replace("'", "").replace('"', "")
    return "sh" in text or "eval" in text
