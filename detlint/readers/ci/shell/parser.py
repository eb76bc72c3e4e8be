"""Parsing CI shell text into a syntax tree, reading around what it cannot parse.

A recursive-descent parser over the tokens of ``lexer.py`` builds the usual
bash shapes (``nodes.py``): lists, and-or lists, pipelines, subshells,
groups, ``if``/``while``/``until``/``for``/``case`` and function definitions.
Command substitutions, and the script strings of ``bash -c '...'`` and
``eval``, are parsed as nested scripts, so a ``bash -c 'pytest || true'`` is
read like the same text written out.

It is tolerant: bash stops at a syntax error, but CI text holds constructs a
small parser does not know, and the pytest runs around them still matter. What
cannot be placed is stepped over and noted in ``broken``. Text that is lines of
plain words never reaches the lexer: ``plain.py`` builds its tree directly.

The module is longer than most because the grammar is one set of mutually
recursive methods; cutting it in two would leave each half unreadable alone.
"""

from __future__ import annotations

import re

from detlint.readers.ci.shell.containers import contained_start
from detlint.readers.ci.shell.lexer import ASSIGNMENT, MAX_LEX_DEPTH, Lexer, Op, Token, Word
from detlint.readers.ci.shell.nodes import (
    AndOr,
    Case,
    CommandList,
    Function,
    Group,
    If,
    Loop,
    Node,
    Pipeline,
    Redirect,
    Simple,
    Subshell,
)
from detlint.readers.ci.shell.plain import may_run_script, plain_commands
from detlint.readers.ci.shell.wrappers import script_argument

# Nesting deeper than this is not read (and marks the text broken): it keeps
# recursion far from Python's limit on hostile input.
_MAX_PARSE_DEPTH = 60

_GLOB = re.compile(r"[*?\[{]")
_REDIRECTS = frozenset({"<", ">", ">>", ">&", "<&", "<<", "<<-", "<<<", "<>", ">|", "&>", "&>>"})
# Words that end a list when they stand where a command would start.
_CLOSERS = frozenset({"then", "elif", "else", "fi", "do", "done", "esac", "}"})


def parse(
    text: str, shift: int = 0, lex_depth: int = 0, parse_depth: int = 0
) -> tuple[CommandList, bool, bool]:
    """Parse ``text`` (found at offset ``shift`` of the outermost text); the first flag
    says that some of it could not be tokenised or parsed and was stepped over, the
    second that some of that was nested past the depth limits (hostile or generated
    text whose inner commands are then not read at all)."""
    if parse_depth < _MAX_PARSE_DEPTH:
        commands = plain_commands(text, shift)
        if commands is not None:  # lines of plain words: the fast path (shell_plain)
            broken = too_deep = False
            if may_run_script(text):
                for command in commands:
                    inner_broken, inner_deep = attach_script(command, parse_depth + 1)
                    broken, too_deep = broken or inner_broken, too_deep or inner_deep
            return CommandList([(command, None) for command in commands]), broken, too_deep
    lexer = Lexer(text, shift, lex_depth)
    tokens = lexer.tokens()
    parser = _Parser(tokens, parse_depth)
    program = parser.program()
    return program, lexer.broken or parser.broken, lexer.too_deep or parser.too_deep


# `$(seq 3)`, `$(seq 1 3)` and `{1..3}`: words whose expansion has a literal length.
_SEQ = re.compile(r"\$\(\s*seq\s+(?:(\d+)\s+)?(\d+)\s*\)")
_BRACES = re.compile(r"\{(\d+)\.\.(\d+)\}")


def _rounds(items: list[Word]) -> int:
    """How many rounds ``for x in ITEMS`` makes: literal words count one each, and
    ``$(seq A B)`` and ``{A..B}`` their length; 1 (unknown) when any other word
    expands (a variable, a glob)."""
    rounds = 0
    for item in items:
        pattern = _SEQ if item.dynamic else _BRACES
        match = pattern.fullmatch(item.raw)
        if match is not None:
            rounds += max(0, int(match.group(2)) - int(match.group(1) or 1) + 1)
        elif item.dynamic or _GLOB.search(item.raw):
            return 1
        else:
            rounds += 1
    return rounds or 1


class _Parser:
    """Recursive descent over the tokens; tolerant: what it cannot place it
    steps over and notes in ``broken``."""

    def __init__(self, tokens: list[Token], depth: int = 0) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = depth
        self.broken = False
        self.too_deep = False  # some of the text is nested past _MAX_PARSE_DEPTH

    # -- helpers

    def _peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _word_is(self, token: Token | None, *values: str) -> bool:
        return isinstance(token, Word) and token.raw in values

    def _op_is(self, token: Token | None, *ops: str) -> bool:
        return isinstance(token, Op) and token.op in ops

    def _skip_newlines(self) -> None:
        while self._op_is(self._peek(), "\n"):
            self.i += 1

    def _expect(self, word: str) -> None:
        if self._word_is(self._peek(), word):
            self.i += 1
        else:
            self.broken = True

    def _end_of_previous(self, default: int) -> int:
        index = min(self.i, len(self.tokens)) - 1
        return self.tokens[index].end if index >= 0 else default

    # -- grammar

    def program(self) -> CommandList:
        body = self._list(frozenset())
        while self.i < len(self.tokens):
            self.broken = True  # a closer with nothing to close
            self.i += 1
            body.items.extend(self._list(frozenset()).items)
        return body

    def _list(self, stops: frozenset[str]) -> CommandList:
        tokens = self.tokens
        count = len(tokens)
        items: list[tuple[Node, Op | None]] = []
        while self.i < count:
            token = tokens[self.i]
            if isinstance(token, Op):
                if token.op in ("\n", ";"):
                    self.i += 1
                    continue
                if token.op in stops:
                    break
            elif token.raw in stops:
                break
            node = self._and_or(stops)
            if node is None:
                self.broken = True
                self.i = min(self.i + 1, count)  # step over what cannot start one
                continue
            background = None
            if self.i < count:
                token = tokens[self.i]
                if isinstance(token, Op):
                    if token.op == "&":
                        background = token
                        self.i += 1
                        if self._op_is(self._peek(), ";"):
                            self.broken = True  # "&;" is a syntax error in bash
                    elif token.op in (";", "\n"):
                        self.i += 1
                    elif token.op not in stops:
                        self.broken = True  # two commands with no separator, e.g. "a (b)"
                elif token.raw not in stops:
                    self.broken = True  # likewise, e.g. "(a) b"
            items.append((node, background))
        return CommandList(items)

    def _and_or(self, stops: frozenset[str]) -> Node | None:
        first = self._pipeline(stops)
        if first is None:
            return None
        tokens = self.tokens
        rest: list[tuple[Op, Node]] = []
        while self.i < len(tokens):
            token = tokens[self.i]
            if not isinstance(token, Op) or token.op not in ("&&", "||"):
                break
            self.i += 1
            self._skip_newlines()
            node = self._pipeline(stops)
            if node is None:
                self.broken = True
                break
            rest.append((token, node))
        if not rest:
            return first
        return AndOr(first, rest, first.start, rest[-1][1].end)

    def _pipeline(self, stops: frozenset[str]) -> Node | None:
        tokens = self.tokens
        count = len(tokens)
        bang = None
        inverted = False
        while self.i < count:
            token = tokens[self.i]
            if not isinstance(token, Word) or token.raw != "!":
                break
            bang = bang or token
            inverted = not inverted
            self.i += 1
        if self.i < count and self._word_is(tokens[self.i], "time"):
            self.i += 1
            if self._word_is(self._peek(), "-p"):
                self.i += 1
        first = self._command(stops)
        if first is None:
            if bang is not None:
                self.broken = True
            return None
        commands = [first]
        bars: list[Op] = []
        while self.i < count:
            token = tokens[self.i]
            if not isinstance(token, Op) or token.op not in ("|", "|&"):
                break
            self.i += 1
            self._skip_newlines()
            node = self._command(stops)
            if node is None:
                self.broken = True
                break
            bars.append(token)
            commands.append(node)
        start = bang.start if bang is not None else first.start
        if not inverted:
            bang = None  # "! !" cancels out
        if len(commands) == 1 and bang is None:
            return first
        return Pipeline(commands, bars, bang, start, commands[-1].end)

    def _command(self, stops: frozenset[str]) -> Node | None:
        token = self._peek()
        if token is None:
            return None
        if self.depth >= _MAX_PARSE_DEPTH:
            self.broken = self.too_deep = True
            self.i = len(self.tokens)
            return None
        self.depth += 1
        try:
            return self._command_at(token, stops)
        finally:
            self.depth -= 1

    def _command_at(self, token: Token, stops: frozenset[str]) -> Node | None:
        if isinstance(token, Op):
            if token.op == "(":
                self.i += 1
                body = self._list(stops | {")"})
                if self._op_is(self._peek(), ")"):
                    self.i += 1
                else:
                    self.broken = True
                end = self._end_of_previous(token.end)
                return Subshell(body, token.start, end, self._redirects())
            if token.op in _REDIRECTS:
                return self._simple()
            return None
        if token.raw in _CLOSERS or token.raw == "!":  # "a | ! b" is a syntax error
            return None
        keyword = token.raw
        if keyword == "{":
            self.i += 1
            body = self._list(stops | {"}"})
            self._expect("}")
            return Group(body, token.start, self._end_of_previous(token.end), self._redirects())
        if keyword == "if":
            return self._if(token, stops)
        if keyword in ("while", "until"):
            self.i += 1
            condition = self._list(stops | {"do"})
            self._expect("do")
            body = self._list(stops | {"done"})
            self._expect("done")
            end = self._end_of_previous(token.end)
            self._redirects()
            return Loop(keyword, condition, body, token.start, end)
        if keyword in ("for", "select"):
            return self._for(token, stops)
        if keyword == "case":
            return self._case(token, stops)
        if keyword == "function":
            self.i += 1
            name = self._peek()
            if not isinstance(name, Word):
                self.broken = True
                return None
            self.i += 1
            if self._op_is(self._peek(), "(") and self._op_is(self._following(), ")"):
                self.i += 2
            return self._function_body(name.raw, token.start, stops)
        return self._simple()

    def _following(self) -> Token | None:
        return self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None

    def _function_body(self, name: str, start: int, stops: frozenset[str]) -> Node | None:
        self._skip_newlines()
        body = self._command(stops)
        if body is None:
            self.broken = True
            return None
        return Function(name, body, start, body.end)

    def _redirects(self) -> list[Redirect]:
        """Redirections after a compound command (``done < file``, ``} > log``)."""
        found: list[Redirect] = []
        while True:
            token = self._peek()
            if isinstance(token, Word) and token.io_number:
                self.i += 1
                continue
            if not isinstance(token, Op) or token.op not in _REDIRECTS:
                return found
            self.i += 1
            found.append(self._redirect(token))

    def _redirect(self, op: Op) -> Redirect:
        """The redirection whose operator ``op`` was just read, with its target word."""
        target = self._peek()
        if not isinstance(target, Word):
            return op, None
        self.i += 1
        return op, target

    def _if(self, keyword: Word, stops: frozenset[str]) -> If:
        clauses: list[tuple[CommandList, CommandList, Word]] = []
        orelse = None
        clause_word = keyword
        self.i += 1
        while True:
            condition = self._list(stops | {"then"})
            self._expect("then")
            body = self._list(stops | {"elif", "else", "fi"})
            clauses.append((condition, body, clause_word))
            token = self._peek()
            if isinstance(token, Word) and token.raw == "elif":
                clause_word = token
                self.i += 1
                continue
            if self._word_is(token, "else"):
                self.i += 1
                orelse = self._list(stops | {"fi"})
            self._expect("fi")
            break
        end = self._end_of_previous(keyword.end)
        self._redirects()
        return If(clauses, orelse, keyword.start, end)

    def _for(self, keyword: Word, stops: frozenset[str]) -> Loop:
        self.i += 1
        if isinstance(self._peek(), Word):
            self.i += 1  # the variable, or ((init; test; step))
        self._skip_newlines()
        rounds = 1
        if self._word_is(self._peek(), "in"):
            self.i += 1
            items: list[Word] = []
            while isinstance(token := self._peek(), Word):
                items.append(token)
                self.i += 1
            rounds = _rounds(items)
        while self._op_is(self._peek(), ";", "\n"):
            self.i += 1
        self._expect("do")
        body = self._list(stops | {"done"})
        self._expect("done")
        end = self._end_of_previous(keyword.end)
        self._redirects()
        return Loop(keyword.raw, None, body, keyword.start, end, rounds)

    def _case(self, keyword: Word, stops: frozenset[str]) -> Case:
        self.i += 1
        subject = self._peek()
        subject_word = subject if isinstance(subject, Word) else None
        if subject_word is not None:
            self.i += 1
        self._skip_newlines()
        self._expect("in")
        arms: list[tuple[list[Word], CommandList]] = []
        while True:
            self._skip_newlines()
            token = self._peek()
            if token is None:
                self.broken = True
                break
            if self._word_is(token, "esac"):
                self.i += 1
                break
            if self._op_is(token, "("):
                self.i += 1
            patterns: list[Word] = []
            while True:
                token = self._peek()
                if isinstance(token, Word):
                    patterns.append(token)
                    self.i += 1
                elif self._op_is(token, "|"):
                    self.i += 1
                else:
                    break
            if not self._op_is(self._peek(), ")"):
                self.broken = True
                break
            self.i += 1
            body = self._list(stops | {";;", ";&", ";;&", "esac"})
            arms.append((patterns, body))
            if self._op_is(self._peek(), ";;", ";&", ";;&"):
                self.i += 1
        end = self._end_of_previous(keyword.end)
        self._redirects()
        return Case(subject_word, arms, keyword.start, end)

    def _simple(self) -> Node | None:
        tokens = self.tokens
        count = len(tokens)
        i = self.i
        first = tokens[i]
        if isinstance(first, Word) and first.raw == "[[":
            return self._double_bracket()
        assigns: list[Word] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        while i < count:
            token = tokens[i]
            if isinstance(token, Word):
                i += 1
                if token.io_number:
                    continue
                if not words and "=" in token.raw and ASSIGNMENT.match(token.raw):
                    assigns.append(token)
                    continue
                words.append(token)
                if len(words) == 1 and not assigns and i + 1 < count:
                    opening, closing = tokens[i], tokens[i + 1]
                    if (
                        isinstance(opening, Op)
                        and opening.op == "("
                        and isinstance(closing, Op)
                        and closing.op == ")"
                    ):
                        self.i = i + 2  # name () compound: a function definition
                        return self._function_body(token.raw, token.start, frozenset())
            elif token.op in _REDIRECTS:
                self.i = i + 1
                redirect = self._redirect(token)
                i = self.i
                redirects.append(redirect)
                if redirect[1] is None:
                    self.broken = True
            else:
                break
        self.i = i
        end = tokens[i - 1].end  # the loop took at least the first token
        command = Simple(assigns, words, redirects, first.start, end)
        self._attach_nested(command)
        return command

    def _double_bracket(self) -> Simple:
        """``[[ ... ]]``: operators inside are part of the test, not the script."""
        words: list[Word] = []
        start = self.tokens[self.i].start
        while True:
            token = self._peek()
            if token is None or self._op_is(token, "\n"):
                self.broken = True
                break
            self.i += 1
            if isinstance(token, Op):
                words.append(Word(token.op, token.op, token.start, token.end, False, []))
                continue
            words.append(token)
            if token.raw == "]]":
                break
        command = Simple([], words, [], start, self._end_of_previous(start))
        self._attach_nested(command)  # [[ $(pytest ...) == *passed* ]] runs pytest
        return command

    def _attach_nested(self, command: Simple) -> None:
        """Parse the command substitutions in a simple command, and the script
        string of ``bash -c`` and ``eval``."""
        for words in (command.assigns, command.words):
            for word in words:
                for tokens in word.subs:
                    command.subs.append(self._sub_program(tokens))
        for _, target in command.redirects:
            if target is not None:
                for tokens in target.subs:
                    command.subs.append(self._sub_program(tokens))
        broken, too_deep = attach_script(command, self.depth)
        self.broken = broken or self.broken
        self.too_deep = too_deep or self.too_deep

    def _sub_program(self, tokens: list[Token]) -> CommandList:
        parser = _Parser(tokens, self.depth + 1)
        program = parser.program()
        self.broken = self.broken or parser.broken
        self.too_deep = self.too_deep or parser.too_deep
        return program


def attach_script(command: Simple, depth: int) -> tuple[bool, bool]:
    """Parse the script string of ``bash -c`` or ``eval`` in ``command`` (met at
    parse depth ``depth``) into ``command.nested``; returns whether it was broken, and
    whether some of it was nested too deep to read (a script past the depth limit is
    not parsed at all)."""
    values = [word.value for word in command.words]
    script = script_argument(values)
    if script is None:  # docker exec CONTAINER bash -c '...': the container's command's
        start = contained_start(values) if len(values) > 3 else None
        inner = script_argument(values[start:]) if start is not None else None
        script = None if inner is None or start is None else (start + inner[0], inner[1])
    if script is None:
        return False, False
    if depth >= _MAX_PARSE_DEPTH // 2:
        return True, True
    index, shell = script
    word = command.words[index]
    if shell is None and index + 1 < len(command.words):
        args = command.words[index:]
        joined = " ".join(arg.value for arg in args)  # eval joins its words with spaces
        word = Word("", joined, args[0].start, args[-1].end, True, [])
    exact = word.raw[:1] in ("'", '"') and word.raw[1:-1] == word.value
    shift = word.start + 1 if exact else word.start
    command.nested, broken, too_deep = parse(word.value, shift, MAX_LEX_DEPTH // 2, depth + 1)
    command.nested_shell = shell
    return broken, too_deep
