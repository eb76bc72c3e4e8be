"""Pointing at a YAML value and quoting it: the node helpers every CI reader shares.

A finding about a knob shows where the knob is written (from its key to the
end of its value) and what it is set to (the value as written, on one line).
Buildkite, GitHub Actions and GitLab readers all report knobs and environment
settings that way, so they take spans and value text from here and agree on
both: the same YAML reads the same in every system's findings.
"""

from __future__ import annotations

from detlint.base.span import Span
from detlint.readers.ci.facts import CiKnob, CiKnobKind, EnvSetting, System
from detlint.readers.yaml.tree import YMap, YNode, YScalar, YSeq, text_of

VALUE_WIDTH = 80  # CiKnob.value is shortened to this many characters
_SHOWN_ITEMS = 8  # items of a list or mapping quoted before "…"
_SHOWN_DEPTH = 4  # nesting quoted before "…" (aliases can repeat big subtrees)


def key_name(key: YScalar) -> str:
    """A mapping key as a name: its value as a string, or its text for ``null``/``~``."""
    return str(key.value) if key.value is not None else key.text


def items_of(node: YNode | None) -> tuple[YNode, ...]:
    """A value written as one item or a list of them (``when: x``, ``when: [x, y]``)."""
    if isinstance(node, YSeq):
        return node.items
    return () if node is None else (node,)


def knob_span(key: YScalar | None, value: YNode | None, path: str) -> Span:
    """From the key's first character to the end of its value.

    An alias (``retry: *policy``) resolves to a node written earlier in the
    file; the alias token's own extent is not kept, so the span is then just
    the key. Without a key the span is the value's, without either the file's.
    """
    start = key.position if key is not None else value.position if value is not None else None
    if start is None:
        return Span.file(path)
    end = value.position if value is not None else start
    if (end.end_line, end.end_column) < (start.line, start.column):
        end = start
    return Span(path, start.line, start.column, end.end_line, end.end_column)


def source_text(node: YNode | None) -> str:
    """A value as written, on one line and at most VALUE_WIDTH characters.

    Quoted strings keep their quotes (``"true"`` is not ``true``), an empty
    value reads ``null``, collections are shown in flow style and whitespace
    runs (line breaks of a block scalar included) become one space.
    """
    if node is None:
        return ""
    text = " ".join(_flow(node, 0).split())
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 1] + "…"


def _flow(node: YNode, depth: int) -> str:
    """A flow-style rendering, cut short when long or deep."""
    if isinstance(node, YScalar):
        if node.quoted:
            return '"' + str(node.value) + '"'
        return node.text if node.text else "null"
    if depth > _SHOWN_DEPTH:
        return "…"
    more = ", …" if len(node.items) > _SHOWN_ITEMS else ""
    if isinstance(node, YSeq):
        inner = ", ".join(_flow(item, depth + 1) for item in node.items[:_SHOWN_ITEMS])
        return "[" + inner + more + "]"
    pairs = ", ".join(f"{k.text}: {_flow(v, depth + 1)}" for k, v in node.items[:_SHOWN_ITEMS])
    return "{" + pairs + more + "}"


def yaml_knob(
    kind: CiKnobKind,
    system: System,
    key_path: str,
    key: YScalar | None,
    value: YNode | None,
    path: str,
    covers: bool | None,
    *,
    attempts: int | None = None,
    platform: str | None = None,
    condition: str | None = None,
    note: str = "",
    optional: bool = False,
) -> CiKnob:
    """The knob written as ``key: value`` in ``path``, spanning and quoting that pair."""
    return CiKnob(
        kind,
        system,
        key_path,
        knob_span(key, value, path),
        source_text(value),
        covers,
        attempts=attempts,
        platform=platform,
        condition=condition,
        note=note,
        optional=optional,
    )


def env_settings(node: YNode | None, path: str) -> tuple[EnvSetting, ...]:
    """``env: {NAME: value}``: null is the empty string, lists and mappings are skipped.

    A repeated name keeps its first place and takes its last value.
    """
    if not isinstance(node, YMap):
        return ()
    settings: dict[str, EnvSetting] = {}
    for key, value in node.items:
        if isinstance(value, YScalar):
            name = key_name(key)
            settings[name] = EnvSetting(name, text_of(value) or "", knob_span(key, value, path))
    return tuple(settings.values())
