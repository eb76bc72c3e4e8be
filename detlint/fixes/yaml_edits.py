"""Edits that remove a YAML key (DET401) or replace its value (DET411), by position.

A GitLab job's ``allow_failure`` is set to ``false`` rather than removed where the
job ``extends`` others, which may set it.

The edits are ranges of the file's text found from ruamel's composed nodes,
never a re-dumped document, so comments, quoting, line ends and indentation
outside the ranges stay as written. After the edits the text is loaded again
and must differ from the original by the intended key or value only; anything
else (an anchor repeated by an alias, a merge key, a value that reads back
differently) declines the fix.
"""

from __future__ import annotations

import re

from ruamel.yaml.nodes import ScalarNode

from detlint.fixes.edits import Declined, Edit, apply_edits
from detlint.fixes.source_text import SourceText
from detlint.fixes.yaml_locate import (
    Pair,
    compose,
    content_end,
    find_pair,
    is_flow,
    key_end,
    start,
    value_end,
)
from detlint.fixes.yaml_verify import load_value, require_removed, require_replaced
from detlint.rules.plans import RemoveKey, ReplaceValue

# What may follow a value on its last line: blanks and a comment.
_LINE_REST = re.compile(r"[ \t]*(#[^\r\n]*)?")
# What may sit before the first key of a list item on its line.
_ITEM_PREFIX = re.compile(r"[ \t]*(-[ \t]+)+")
# Between a first key's value and the next key: its comment, one line end, indentation.
_TO_NEXT_KEY = re.compile(r"[ \t]*(#[^\r\n]*)?(\r\n|\r|\n)[ \t]*")
_FLOW_SEPARATOR = re.compile(r"\s*,\s*")
_COLON = re.compile(r"[ \t]*:")


def yaml_edits(plan: RemoveKey | ReplaceValue, source: SourceText) -> tuple[Edit, ...]:
    """The edits that carry out ``plan`` on a YAML file, checked by loading the result."""
    document = compose(source.text)
    offset = source.offset(plan.span.line, plan.span.column)
    pair = find_pair(document, source, offset, plan.key)
    if isinstance(plan, RemoveKey) and extends(pair):
        # The job would inherit the key from the job it extends: override it instead.
        edits = _replace_value(pair, "false", source)
        require_replaced(source.text, apply_edits(source.text, edits), _value_path(pair), False)
    elif isinstance(plan, RemoveKey):
        edits = _remove_key(pair, source)
        require_removed(source.text, apply_edits(source.text, edits), _value_path(pair))
    else:
        edits = _replace_value(pair, plan.value, source)
        new_value = load_value(plan.value)
        require_replaced(source.text, apply_edits(source.text, edits), _value_path(pair), new_value)
    return edits


def extends(pair: Pair) -> bool:
    """Whether ``pair`` is a GitLab job's ``allow_failure`` in a job that ``extends``
    others: removed, the job would take theirs (GitLab merges the job over what it
    extends), so the fix writes ``allow_failure: false`` where the job's own key is."""
    if not isinstance(pair.key, ScalarNode) or pair.key.value != "allow_failure":
        return False
    return any(
        isinstance(key, ScalarNode) and key.value == "extends" for key, _ in pair.mapping.value
    )


def _value_path(pair: Pair) -> tuple[object, ...]:
    if pair.key_item is None:
        raise Declined("the key is not a plain scalar")
    return (*pair.path, pair.key_item)


def _edit(source: SourceText, begin: int, end: int, content: str) -> Edit:
    return Edit(source.path, begin, end, content)


def _line_start(source: SourceText, offset: int) -> int:
    return source.line_range(source.position(offset)[0])[0]


def _line_content_end(source: SourceText, offset: int) -> int:
    """Where the line holding ``offset`` ends, before its line end."""
    begin, end = source.line_range(source.position(offset)[0])
    text = source.text[begin:end]
    return begin + len(text.rstrip("\r\n"))


def _remove_key(pair: Pair, source: SourceText) -> tuple[Edit, ...]:
    """Whole lines in a block mapping, the item and one comma in a flow mapping."""
    text = source.text
    pairs = pair.mapping.value
    if len(pairs) == 1:
        raise Declined(f"`{pair.key.value}` is the only key of its mapping")
    key_start, end = start(pair.key), value_end(pair, text)
    if is_flow(pair.mapping):
        return (_remove_flow_item(pair, source, key_start, end),)
    rest_end = _line_content_end(source, end)
    if not _LINE_REST.fullmatch(text, end, rest_end):
        raise Declined("something follows the value on its last line")
    line_start = _line_start(source, key_start)
    prefix = text[line_start:key_start]
    if not prefix.strip():
        last_line = source.position(max(end - 1, key_start))[0]
        return (_edit(source, line_start, source.line_range(last_line)[1], ""),)
    if _ITEM_PREFIX.fullmatch(prefix) and pair.index == 0:
        next_start = start(pairs[1][0])
        if not _TO_NEXT_KEY.fullmatch(text, end, next_start):
            raise Declined("comment lines sit between the key and the next one")
        return (_edit(source, key_start, next_start, ""),)
    raise Declined("the key does not start its line")


def _remove_flow_item(pair: Pair, source: SourceText, key_start: int, end: int) -> Edit:
    text = source.text
    pairs = pair.mapping.value
    if pair.index + 1 < len(pairs):
        next_start = start(pairs[pair.index + 1][0])
        if not _FLOW_SEPARATOR.fullmatch(text, end, next_start):
            raise Declined("cannot find the comma after the item")
        return _edit(source, key_start, next_start, "")
    before_key, before_value = pairs[pair.index - 1]
    previous_end = max(
        content_end(before_key, text, start(pair.mapping)),
        content_end(before_value, text, content_end(before_key, text, start(pair.mapping))),
    )
    if not _FLOW_SEPARATOR.fullmatch(text, previous_end, key_start):
        raise Declined("cannot find the comma before the item")
    return _edit(source, previous_end, end, "")


def _replace_value(pair: Pair, value: str, source: SourceText) -> tuple[Edit, ...]:
    """The value's own range when it is a scalar or a flow collection, else (a block
    collection or block scalar under the key) everything from the colon to its end."""
    text = source.text
    if "\n" in value or "\r" in value:
        raise Declined("the new value is not written on one line")
    key_stop = key_end(pair, text)
    node = pair.value
    node_start = start(node)
    if node_start < key_stop:
        raise Declined("the value is an alias")
    if text[node_start : node_start + 1] in ("&", "!"):
        raise Declined("the value has an anchor or tag")
    end = content_end(node, text, key_stop)
    single = isinstance(node, ScalarNode) and node.style not in ("|", ">")
    if (single or is_flow(node)) and end > node_start:
        return (_edit(source, node_start, end, value),)
    colon = _COLON.match(text, key_stop)
    if colon is None:
        raise Declined("cannot find the colon after the key")
    line_end = _line_content_end(source, key_stop)
    rest = _LINE_REST.fullmatch(text, colon.end(), line_end)
    if rest is None:
        raise Declined("something follows the key on its line")
    # Comments inside the old value go with it: the fix is unsafe (it changes what CI
    # does), and ruff's unsafe fixes may remove comments; the ones around it stay.
    if text[end : _line_content_end(source, end)].strip():
        raise Declined("something follows the value on its last line")
    comment = text[colon.end() : line_end] if rest.group(1) else ""
    return (_edit(source, colon.end(), max(end, line_end), f" {value}{comment}"),)
