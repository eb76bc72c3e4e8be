"""The part of GitHub's ``${{ }}`` expression language a matrix condition uses, and the matrix.

``continue-on-error: ${{ matrix.experimental }}`` soft-fails only some entries
of a job's matrix, so whether it hides a test failure depends on which entries
GitHub builds and what the expression is for each. This module builds the
entries (``expand_matrix``) and evaluates expressions against them: literals,
``matrix.<name>``, ``env.<name>`` and ``inputs.<name>`` paths (env and inputs when
the caller knows their values), ``! == != < <= > >= && ||``, parentheses and the
functions ``contains``, ``startsWith``, ``endsWith``, ``format``, ``join``,
``toJSON`` and ``fromJSON``, with GitHub's loose comparison (case-insensitive
strings, other mixed types compared as numbers). Any other context (``github``,
``needs``, ``vars``...), a status function or a value the caller does not know
raises Unknown, so the caller reports the knob as known only at run time.
"""

from __future__ import annotations

import itertools
import json
import math
import operator
import re
from collections.abc import Callable
from typing import Any

from detlint.readers.ci.yaml_spans import key_name
from detlint.readers.yaml.tree import YMap, YNode, YSeq

_EXPRESSION = re.compile(r"^\s*\$\{\{(.*)\}\}\s*$", re.DOTALL)


def unwrap(text: str) -> str | None:
    """The expression inside ``${{ ... }}`` when that is the whole text, else None."""
    match = _EXPRESSION.match(text)
    return match.group(1) if match else None


class Unknown(Exception):
    """An expression or matrix whose value cannot be known from the file."""


_TOKEN = re.compile(
    r"\s*(?:(?P<number>0x[0-9a-fA-F]+|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
    r"|(?P<string>'(?:[^']|'')*')|(?P<op>==|!=|<=|>=|&&|\|\||[()!<>.,\[\]])"
    r"|(?P<name>[A-Za-z_][\w-]*))"
)
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}  # fmt: skip
_LITERALS: dict[str, object] = {"true": True, "false": False, "null": None}
Expr = tuple[Any, ...]


def parse_expression(text: str) -> Expr:
    """The syntax tree of an expression (without ``${{ }}``); Unknown when outside the subset."""
    parser = _ExpressionParser(_tokenise(text))
    tree = parser.expression()
    if parser.index != len(parser.tokens):
        raise Unknown
    return tree


def _tokenise(text: str) -> list[tuple[str, str]]:
    """The tokens of an expression as (kind, text); Unknown where no token starts."""
    tokens: list[tuple[str, str]] = []
    text, position = text.strip(), 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.lastgroup is None:
            raise Unknown
        tokens.append((match.lastgroup, match.group(match.lastgroup)))
        position = match.end()
    return tokens


class _ExpressionParser:
    """A recursive descent over the tokens, one method per precedence level from the
    loosest (``||``, then ``&&``, comparisons, ``!``) to a literal, a parenthesised
    expression or a ``matrix`` path; ``index`` is the next token, shared by all."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.index = 0

    def _peek(self) -> tuple[str, str]:
        return self.tokens[self.index] if self.index < len(self.tokens) else ("end", "")

    def _take(self) -> tuple[str, str]:
        token = self._peek()
        self.index += 1
        return token

    def _binary(self, operand: Callable[[], Expr], operators: tuple[str, ...]) -> Expr:
        left = operand()
        while self._peek()[0] == "op" and self._peek()[1] in operators:
            left = ("op", self._take()[1], left, operand())
        return left

    def expression(self) -> Expr:
        return self._binary(self._both, ("||",))

    def _both(self) -> Expr:
        return self._binary(self._comparison, ("&&",))

    def _comparison(self) -> Expr:
        return self._binary(self._unary, tuple(_COMPARE))

    def _unary(self) -> Expr:
        if self._peek() == ("op", "!"):
            self._take()
            return ("not", self._unary())
        return self._primary()

    def _primary(self) -> Expr:
        kind, word = self._take()
        if (kind, word) == ("op", "("):
            inner = self.expression()
            if self._take() != ("op", ")"):
                raise Unknown
            return inner
        if kind == "number":
            return ("lit", int(word, 16) if word.lower().startswith("0x") else float(word))
        if kind == "string":
            return ("lit", word[1:-1].replace("''", "'"))
        if kind == "name" and word.lower() in _LITERALS:
            return ("lit", _LITERALS[word.lower()])
        if kind == "name" and self._peek() == ("op", "("):
            return self._call(word.lower())
        if kind != "name" or word.lower() not in _CONTEXTS:
            raise Unknown  # another context (github, needs, vars...): known at run time
        parts: list[object] = [word.lower()]
        while self._peek() in (("op", "."), ("op", "[")):
            if self._take()[1] == ".":
                kind, word = self._take()
                if kind != "name":
                    raise Unknown
                parts.append(word)
                continue
            item = self._primary()
            if item[0] != "lit" or self._take() != ("op", "]"):
                raise Unknown
            parts.append(item[1])
        return ("ctx", tuple(parts))

    def _call(self, name: str) -> Expr:
        """``name(arg, ...)`` for a function whose value the file decides."""
        if name not in _FUNCTIONS:
            raise Unknown  # success(), always(), hashFiles()...: known at run time
        self._take()  # "("
        args: list[Expr] = []
        if self._peek() != ("op", ")"):
            args.append(self.expression())
            while self._peek() == ("op", ","):
                self._take()
                args.append(self.expression())
        if self._take() != ("op", ")"):
            raise Unknown
        return ("call", name, tuple(args))


def evaluate(
    tree: Expr, entry: dict[str, object], known: dict[str, dict[str, object]] | None = None
) -> object:
    """The value of ``tree`` for one matrix entry; ``known`` holds the ``env`` and
    ``inputs`` values the caller knows (a name it does not know raises Unknown)."""
    if tree[0] == "lit":
        return tree[1]
    if tree[0] == "ctx":
        context, *parts = tree[1]
        value: object = entry
        if context != "matrix":
            values = (known or {}).get(context)
            name = str(parts[0]).lower() if parts else ""
            if values is None or not any(str(key).lower() == name for key in values):
                raise Unknown
            value = values
        for part in parts:
            value = _member(value, part)
        return value
    if tree[0] == "call":
        return _FUNCTIONS[tree[1]](*(evaluate(arg, entry, known) for arg in tree[2]))
    if tree[0] == "not":
        return not truthy(evaluate(tree[1], entry, known))
    operator_, left = tree[1], evaluate(tree[2], entry, known)
    if operator_ == "&&":
        return evaluate(tree[3], entry, known) if truthy(left) else left
    if operator_ == "||":
        return left if truthy(left) else evaluate(tree[3], entry, known)
    return _compare(operator_, left, evaluate(tree[3], entry, known))


def contexts_of(tree: Expr) -> set[str]:
    """The contexts an expression reads (``matrix``, ``env``, ``inputs``)."""
    if tree[0] == "ctx":
        return {str(tree[1][0])}
    if tree[0] == "lit":
        return set()
    if tree[0] == "call":
        return set().union(*(contexts_of(arg) for arg in tree[2]))
    return set().union(*(contexts_of(t) for t in tree[1:] if isinstance(t, tuple)))


def referenced_names(tree: Expr) -> set[str]:
    """The matrix keys an expression reads (lower-cased)."""
    if tree[0] == "ctx":
        parts = tree[1]
        return {str(parts[1]).lower()} if parts[0] == "matrix" and len(parts) > 1 else set()
    if tree[0] == "call":
        return set().union(*(referenced_names(arg) for arg in tree[2]))
    return set().union(*(referenced_names(t) for t in tree[1:] if isinstance(t, tuple)))


_CONTEXTS = frozenset({"matrix", "env", "inputs"})


def as_text(value: object) -> str:
    """A value as GitHub's string functions see it, and as ``${{ }}`` writes it into text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else json.dumps(value)


def _contains(search: object, item: object) -> bool:
    if isinstance(search, list):
        return any(not {_kind(v), _kind(item)} & {"object"} and _compare("==", v, item)
                   for v in search)  # fmt: skip
    return as_text(item).lower() in as_text(search).lower()


def _format(template: object, *args: object) -> str:
    text = as_text(template)

    def fill(match: re.Match[str]) -> str:
        if match.group(0) in ("{{", "}}"):
            return match.group(0)[0]
        index = int(match.group(1))
        if index >= len(args):
            raise Unknown
        return as_text(args[index])

    return re.sub(r"\{\{|\}\}|\{(\d+)\}", fill, text)


def _from_json(value: object) -> object:
    try:
        return json.loads(as_text(value))
    except ValueError:
        raise Unknown from None


_FUNCTIONS: dict[str, Callable[..., object]] = {
    "contains": _contains,
    "startswith": lambda text, start: as_text(text).lower().startswith(as_text(start).lower()),
    "endswith": lambda text, end: as_text(text).lower().endswith(as_text(end).lower()),
    "format": _format,
    "join": lambda items, sep=",": (
        as_text(sep).join(as_text(v) for v in items) if isinstance(items, list) else as_text(items)
    ),
    "tojson": lambda value: json.dumps(value, indent=2),
    "fromjson": _from_json,
}


def truthy(value: object) -> bool:
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, int | float):
        return value != 0 and not math.isnan(value)
    return value != "" if isinstance(value, str) else True


def _member(value: object, part: object) -> object:
    if isinstance(value, dict) and isinstance(part, str):
        return next((v for k, v in value.items() if str(k).lower() == part.lower()), None)
    if isinstance(value, list) and isinstance(part, float) and part.is_integer():
        return value[int(part)] if 0 <= part < len(value) else None
    return None


def _kind(value: object) -> str:
    if value is None or isinstance(value, bool | str):
        return type(value).__name__
    return "number" if isinstance(value, int | float) else "object"


def _number(value: object) -> float:
    if value is None or isinstance(value, bool | int | float):
        return float(value or 0)
    text = str(value).strip()
    try:
        return float(int(text, 16)) if text.lower().startswith("0x") else float(text or 0)
    except ValueError:
        return math.nan


def _compare(operator_: str, left: object, right: object) -> bool:
    kinds = {_kind(left), _kind(right)}
    if "object" in kinds:  # arrays and objects are equal only to themselves
        same = left is right
        return same if operator_ == "==" else not same if operator_ == "!=" else False
    if kinds == {"str"}:
        return _COMPARE[operator_](str(left).lower(), str(right).lower())
    return _COMPARE[operator_](_number(left), _number(right))


def expand_matrix(node: YNode | None) -> list[dict[str, object]] | None:
    """The entries of ``strategy.matrix`` as GitHub builds them; None when unknowable.

    Lists are multiplied out, ``exclude`` drops every combination it matches
    partially, then each ``include`` entry extends every combination whose
    original values it does not contradict, or becomes a new entry when it
    extends none. No matrix is one empty entry.
    """
    if node is None:
        return [{}]
    if not isinstance(node, YMap):
        return None  # an expression such as ${{ fromJSON(...) }}
    try:
        fields = {key_name(key): _python(value) for key, value in node.items}
    except Unknown:
        return None
    include, exclude = fields.pop("include", []), fields.pop("exclude", [])
    lists = [value for value in fields.values() if isinstance(value, list)]
    extra = [row for row in (include, exclude) if not isinstance(row, list)]
    if len(lists) != len(fields) or extra or math.prod(len(v) for v in lists) > 256:
        return None
    rows = [row for row in [*include, *exclude] if not isinstance(row, dict)]
    if rows:
        return None
    names = list(fields)
    combos = (
        [dict(zip(names, values, strict=True)) for values in itertools.product(*lists)]
        if names
        else []
    )
    combos = [c for c in combos if not any(_matches(c, row, set(c)) for row in exclude)]
    added: list[dict[str, object]] = []
    for row in include:
        matched = [combo for combo in combos if _matches(combo, row, set(names))]
        for combo in matched:
            combo.update(row)
        if not matched:
            added.append(dict(row))
    return combos + added


def _matches(combo: dict[str, object], row: dict[str, object], keys: set[str]) -> bool:
    """Whether ``row`` agrees with ``combo`` on every one of ``keys`` that it names."""
    return all(combo.get(k) == v for k, v in row.items() if k in keys)


def _python(node: YNode) -> Any:
    if isinstance(node, YMap):
        return {key_name(key): _python(value) for key, value in node.items}
    if isinstance(node, YSeq):
        return [_python(item) for item in node.items]
    if isinstance(node.value, str) and "${{" in node.value:
        raise Unknown
    return node.value


def describe_entry(entry: dict[str, object], skip: set[str], only: set[str] | None = None) -> str:
    """``python=3.13, os=ubuntu-latest``, without the keys in ``skip`` (or with those in
    ``only`` alone) unless nothing remains."""
    shown = {
        k: v
        for k, v in entry.items()
        if k.lower() not in skip and (only is None or k.lower() in only)
    } or entry
    return ", ".join(f"{k}={_show(v)}" for k, v in shown.items()) or "(empty)"


def _show(value: object) -> str:
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) + "}"
    return str(value)
