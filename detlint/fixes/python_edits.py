"""The Python side of ``--fix``: a marker plan made into character edits.

Each plan names the marker by the span of its expression at the use site (a
decorator, an item of ``pytestmark`` or of ``pytest.param(marks=...)``). The
edits touch that expression and the punctuation or lines that belong to it, and
nothing else, so that a fix never reflows code, drops a comment or changes line
ends. Whatever cannot be done that way is declined with a reason for the user;
and the edited text is parsed again before the edits are returned, since a fix
that breaks the module is worse than none. Both parses are of the top-level
statements the fix edits (:mod:`~detlint.fixes.python_pieces`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from detlint.base.span import Span
from detlint.fixes.edits import Declined, Edit
from detlint.fixes.line_length import file_limit, fitted_call
from detlint.fixes.python_locate import Edit3, Parsed, dotted, kept_comments, mark_name
from detlint.fixes.python_locate import remove_item as _remove_item
from detlint.fixes.python_pieces import PythonFile
from detlint.fixes.source_text import SourceText
from detlint.rules.plans import AddReason, DropMark, QuarantineMark

Reader = Callable[[str], SourceText]


@dataclass(frozen=True)
class _Place:
    """Where a marker is applied. ``kind`` is ``decorator`` (``owner`` the decorator),
    ``item`` (``owner`` the list or tuple element; ``holder`` the ``pytestmark``
    assignment or the ``marks=`` argument), ``value`` (``owner`` the ``pytestmark``
    assignment) or ``marks`` (``owner`` the ``marks=`` argument)."""

    kind: str
    owner: cst.CSTNode
    holder: cst.CSTNode | None = None


class _Files:
    """The files a fix reads, each read and cut into pieces once; across the fixes of a
    run when the reader keeps them (:class:`~detlint.fixes.build.Sources`)."""

    def __init__(self, read: Reader) -> None:
        self._read = read
        self._kept: dict[str, object] = getattr(read, "parsed", {})
        self.files: dict[str, PythonFile] = {}

    def __call__(self, span: Span) -> Parsed:
        """The parsed lines holding ``span``."""
        path = span.path
        if path not in self.files:
            source = self._read(path)
            kept = self._kept.get(path)
            if not isinstance(kept, PythonFile) or kept.source is not source:
                wanted: dict[str, set[int]] = getattr(self._read, "wanted", {})
                kept = PythonFile(source, wanted.get(path, ()))
                self._kept[path] = kept
            self.files[path] = kept
        return self.files[path].at_line(span.line)


def python_edits(plan: DropMark | QuarantineMark | AddReason, read: Reader) -> tuple[Edit, ...]:
    """The edits that carry out ``plan``; ``Declined`` when they cannot be made safely."""
    files = _Files(read)
    parsed = files(plan.mark)
    mark = _in_list(parsed.at(plan.mark), "xfail" if isinstance(plan, AddReason) else "flaky")
    edits: list[Edit] = []
    if isinstance(plan, DropMark):
        edits += _edits(parsed, _drop(parsed, mark))
        if plan.trials is not None and plan.count is not None:
            edits.append(_raise_default(files(plan.trials), plan.trials, plan.env, plan.count))
    elif isinstance(plan, QuarantineMark):
        limit = file_limit(read, plan.mark.path)
        replaced = _quarantine(parsed, mark, plan.reason, limit)
        edits += _edits(parsed, [*kept_comments(parsed.source, *replaced[:2]), replaced])
    elif isinstance(plan, AddReason):
        edits += _edits(parsed, [_add_reason(parsed, mark, plan.reason)])
    else:
        raise Declined("there is no Python fix for this plan")
    if isinstance(plan, DropMark | QuarantineMark):
        from detlint.fixes.python_imports import unused_import_edits

        root = (mark_name(mark) or "").partition(".")[0]
        own = [edit for edit in edits if edit.path == parsed.source.path]
        edits += unused_import_edits(parsed.source, own, root)
    for path, file in files.files.items():
        own = [edit for edit in edits if edit.path == path]
        if own:
            file.check(own)
    return tuple(sorted(edits))


def _in_list(node: cst.BaseExpression, name: str) -> cst.BaseExpression:
    """The marker itself where the span covers a whole ``marks=[...]`` list (the
    Python pass reports a ``pytest.param``'s marks as one): the one item named
    ``name``, so that the list's other marks (``pytest.mark.slow``) are kept."""
    if not isinstance(node, cst.List | cst.Tuple):
        return node
    items = [
        element.value
        for element in node.elements
        if (mark_name(element.value) or "").rpartition(".")[2] == name
    ]
    if len(items) != 1:
        raise Declined(f"the marks list holds {len(items) or 'no'} `{name}` markers")
    return items[0]


def _edits(parsed: Parsed, ranges: list[Edit3]) -> list[Edit]:
    return [Edit(parsed.source.path, start, end, content) for start, end, content in ranges]


def _place(parsed: Parsed, mark: cst.BaseExpression) -> _Place:
    parent = parsed.parent(mark)
    if isinstance(parent, cst.Decorator):
        return _Place("decorator", parent)
    if isinstance(parent, cst.Element):
        container = parsed.parent(parent)
        if isinstance(container, cst.List | cst.Tuple):
            holder = parsed.parent(container)
            if holder is not None and (
                _is_pytestmark(holder, container) or _is_marks(holder, container)
            ):
                return _Place("item", parent, holder)
    if parent is not None and _is_pytestmark(parent, mark):
        return _Place("value", parent)
    if parent is not None and _is_marks(parent, mark):
        return _Place("marks", parent)
    raise Declined("the marker is not a decorator, a pytestmark entry or a marks= entry")


def _is_pytestmark(node: cst.CSTNode, value: cst.CSTNode) -> bool:
    """Whether ``node`` is ``pytestmark = value`` (or ``pytestmark: ... = value``)."""
    if isinstance(node, cst.Assign) and node.value is value and len(node.targets) == 1:
        return _target_name(node.targets[0].target) == "pytestmark"
    if isinstance(node, cst.AnnAssign) and node.value is value:
        return _target_name(node.target) == "pytestmark"
    return False


def _target_name(node: cst.BaseExpression) -> str | None:
    return node.value if isinstance(node, cst.Name) else None


def _is_marks(node: cst.CSTNode, value: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.Arg)
        and node.value is value
        and node.keyword is not None
        and node.keyword.value == "marks"
    )


def _drop(parsed: Parsed, mark: cst.BaseExpression) -> list[Edit3]:
    """Remove the marker: a decorator's lines, a list item with its comma, and the
    whole ``pytestmark`` statement or ``marks=`` argument the marker is alone in."""
    place = _place(parsed, mark)
    if place.kind == "decorator":
        lines = parsed.whole_lines(parsed.start(place.owner), parsed.end(place.owner))
        if lines is None:
            raise Declined("the decorator shares its line with other code")
        return [(*lines, "")]
    if place.kind == "item":
        assert isinstance(place.owner, cst.Element)
        container = parsed.parent(place.owner)
        assert isinstance(container, cst.List | cst.Tuple)
        elements = list(container.elements)
        if len(elements) > 1:
            index = elements.index(place.owner)
            items = parsed.items(elements)
            return _remove_item(parsed, items, index, isinstance(container, cst.Tuple))
        assert place.holder is not None
        owner = place.holder
    else:
        owner = place.owner
    if isinstance(owner, cst.Arg):
        return _remove_argument(parsed, owner)
    return _remove_statement(parsed, owner)


def _remove_argument(parsed: Parsed, argument: cst.Arg) -> list[Edit3]:
    call = parsed.parent(argument)
    assert isinstance(call, cst.Call)
    arguments = list(call.args)
    return _remove_item(parsed, parsed.items(arguments), arguments.index(argument), False)


def _remove_statement(parsed: Parsed, statement: cst.CSTNode) -> list[Edit3]:
    line = parsed.parent(statement)
    block = parsed.parent(line) if line is not None else None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        raise Declined("the pytestmark assignment shares its line with other statements")
    if not isinstance(block, cst.Module | cst.IndentedBlock):
        raise Declined("the pytestmark assignment is not in a module or class body")
    if isinstance(block, cst.IndentedBlock) and len(block.body) < 2:
        raise Declined("the pytestmark assignment is the only statement of its block")
    lines = parsed.whole_lines(parsed.start(statement), parsed.end(statement))
    if lines is None:
        raise Declined("the pytestmark assignment shares its line with other code")
    return [(*lines, "")]


def _quarantine(parsed: Parsed, mark: cst.BaseExpression, reason: str, limit: int) -> Edit3:
    """The marker becomes ``<prefix>.xfail(strict=False, reason=...)``, the prefix the
    one it was written with; a marker without one (``@flaky``) gets ``pytest.mark``.
    A decorator that fitted the line length and would no longer is wrapped."""
    place = _place(parsed, mark)
    siblings: list[cst.BaseExpression] = []
    if place.kind == "decorator":
        decorated = parsed.parent(place.owner)
        if isinstance(decorated, cst.FunctionDef | cst.ClassDef):
            siblings = [decorator.decorator for decorator in decorated.decorators]
    elif place.kind == "item":
        container = parsed.parent(place.owner)
        if isinstance(container, cst.List | cst.Tuple):
            siblings = [element.value for element in container.elements]
    if any(_is_xfail(sibling) for sibling in siblings if sibling is not mark):
        raise Declined("the test already has an xfail marker")
    name = mark_name(mark) or ""
    owner = name.rpartition(".")[0]
    if owner == "mark" or owner.endswith(".mark"):
        prefix = owner
    elif parsed.imports_pytest:
        prefix = "pytest.mark"
    else:
        raise Declined("the module does not import pytest")
    kept = _kept_arguments(parsed, mark)
    if "reason" not in kept:
        kept["reason"] = string_literal(reason, '"', parsed.source.encoding)
    condition = [kept["condition"]] if "condition" in kept else []
    arguments = [*condition, "strict=False", f"reason={kept['reason']}"]
    start, end = parsed.start(mark), parsed.end(mark)
    if place.kind != "decorator":
        return start, end, f"{prefix}.xfail({', '.join(arguments)})"
    return start, end, fitted_call(parsed.source, start, end, f"{prefix}.xfail", arguments, limit)


def _kept_arguments(parsed: Parsed, mark: cst.BaseExpression) -> dict[str, str]:
    """The rerun marker's ``condition=`` and ``reason=`` as written: the quarantine
    applies where the reruns did, and a reason that names the issue is the one to keep
    (dask's ``reason="... See https://github.com/dask/distributed/issues/6045"``)."""
    kept: dict[str, str] = {}
    if not isinstance(mark, cst.Call):
        return kept
    for argument in mark.args:
        name = argument.keyword.value if argument.keyword is not None else None
        if name in ("condition", "reason") and not argument.star:
            value = argument.value
            kept[name] = parsed.source.text[parsed.start(value) : parsed.end(value)]
    return kept


def _is_xfail(node: cst.BaseExpression) -> bool:
    name = mark_name(node)
    return name is not None and (name == "xfail" or name.endswith(".xfail"))


def _add_reason(parsed: Parsed, mark: cst.BaseExpression, reason: str) -> Edit3:
    """Name the tracking issue in an xfail's reason: a ``reason=`` added as the last
    argument, or the issue appended to a literal reason in its own parentheses."""
    name = mark_name(mark) or ""
    owner = name.rpartition(".")[0]
    if name.endswith(".xfail") and isinstance(mark, cst.Call) and owner == "pytest":
        raise Declined("a pytest.xfail() call in a test's body is not fixed yet")
    if not name.endswith(".xfail") or not (owner == "mark" or owner.endswith(".mark")):
        raise Declined("the marker is not written as pytest.mark.xfail")
    _place(parsed, mark)  # only where a marker is applied, never the callee of a call
    if not isinstance(mark, cst.Call):
        literal = string_literal(reason, '"', parsed.source.encoding)
        return parsed.end(mark), parsed.end(mark), f"(reason={literal})"
    if any(argument.star for argument in mark.args):
        raise Declined("the xfail passes arguments with * or **")
    for argument in mark.args:
        if argument.keyword is not None and argument.keyword.value == "reason":
            return _extend_reason(parsed, argument.value, reason)
    if any(_is_string(argument.value) for argument in mark.args if argument.keyword is None):
        raise Declined("the xfail has a positional string, a condition pytest evaluates")
    literal = string_literal(reason, '"', parsed.source.encoding)
    return _append_argument(parsed, mark, f"reason={literal}")


def _is_string(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.SimpleString | cst.ConcatenatedString | cst.FormattedString)


def _extend_reason(parsed: Parsed, value: cst.BaseExpression, reason: str) -> Edit3:
    if not isinstance(value, cst.SimpleString):
        raise Declined("the xfail's reason is not a plain string literal")
    prefix = value.prefix.lower()
    if "b" in prefix or "f" in prefix:
        raise Declined("the xfail's reason is not a plain string literal")
    raw = "r" in prefix
    current = value.evaluated_value
    addition = f" ({reason})" if isinstance(current, str) and current.strip() else reason
    at = parsed.end(value) - len(value.quote)
    encoding = parsed.source.encoding
    return at, at, _escaped(addition, value.quote[0], encoding, raw)


def _append_argument(parsed: Parsed, call: cst.Call, argument: str) -> Edit3:
    """Insert ``argument`` after the call's last one, in the call's layout: on a line
    of its own where the arguments are one per line, with a trailing comma where
    they have one."""
    text = parsed.source.text
    if not call.args:
        opening = text.find("(", parsed.end(call.func))
        if opening < 0 or opening >= parsed.end(call):
            raise Declined("cannot find the xfail's parenthesis")
        return opening + 1, opening + 1, argument
    last = parsed.item(call.args[-1])
    newline = parsed.source.line_end(last.start)
    indent = parsed.indent(last.start)
    if last.comma_end is not None:
        next_line = parsed.line_tail(last.comma_end)
        if next_line is not None and parsed.starts_line(last.start):
            return next_line, next_line, f"{indent}{argument},{newline}"
        return last.comma_end, last.comma_end, f" {argument},"
    if parsed.starts_line(last.start):
        return last.end, last.end, f",{newline}{indent}{argument}"
    return last.end, last.end, f", {argument}"


def _raise_default(parsed: Parsed, span: Span, env: str | None, count: int) -> Edit:
    """The default of the environment read at ``span`` becomes ``count``, written as
    the same kind of literal (``"5"`` -> ``"29"``, ``5`` -> ``29``); a literal loop
    bound (``env`` None) becomes ``count`` itself."""
    read = parsed.at(span)
    if env is None and isinstance(read, cst.Integer):  # a literal loop bound: range(5)
        return Edit(parsed.source.path, parsed.start(read), parsed.end(read), str(count))
    if isinstance(read, cst.Call) and dotted(read.func) == "int" and read.args:
        first = read.args[0]
        read = first.value if first.keyword is None and not first.star else read
    if not isinstance(read, cst.Call) or any(argument.star for argument in read.args):
        raise Declined("the trial count is not an environment read with a default")
    positional = [argument.value for argument in read.args if argument.keyword is None]
    keywords = {arg.keyword.value: arg.value for arg in read.args if arg.keyword is not None}
    key = positional[0] if positional else keywords.get("key", keywords.get("name"))
    if env is not None and not (isinstance(key, cst.SimpleString) and key.evaluated_value == env):
        raise Declined(f"the environment read at the trial count does not read {env}")
    default = positional[1] if len(positional) > 1 else keywords.get("default")
    if default is None:
        raise Declined("the environment read has no default to raise")
    if isinstance(default, cst.Integer):
        content = str(count)
    elif isinstance(default, cst.SimpleString) and not set(default.prefix.lower()) & set("bf"):
        content = f"{default.prefix}{default.quote}{count}{default.quote}"
    else:
        raise Declined(f"the default of {env or 'the trial count'} is not a plain literal")
    return Edit(parsed.source.path, parsed.start(default), parsed.end(default), content)


def string_literal(text: str, quote: str, encoding: str) -> str:
    """``text`` as a Python string literal in ``quote``s, escaped where it must be."""
    return f"{quote}{_escaped(text, quote, encoding, False)}{quote}"


_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(text: str, quote: str, encoding: str, raw: bool) -> str:
    """``text`` as it reads inside a literal quoted with ``quote``: escapes for the
    quote, backslashes, control characters and what the file's encoding lacks. A raw
    literal cannot escape, so text that needs it there is declined."""
    parts: list[str] = []
    for char in text:
        plain = char != quote and char not in _ESCAPES and char.isprintable()
        if plain:
            try:
                char.encode(encoding)
            except UnicodeEncodeError:
                plain = False
        if plain:
            parts.append(char)
        elif raw:
            raise Declined("the reason needs escapes a raw string cannot hold")
        elif char == quote:
            parts.append("\\" + char)
        elif char in _ESCAPES:
            parts.append(_ESCAPES[char])
        else:
            parts.append(char.encode("unicode_escape").decode("ascii"))
    return "".join(parts)
