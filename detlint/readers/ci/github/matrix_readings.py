"""A ``run:`` whose text or variables a job's matrix decides, read once per value.

``tox run -e ${{ matrix.tox_env }}`` runs another tox environment in each matrix
entry, and ``pytest tests/${{ matrix.module }}`` other tests: GitHub fills the
expression in before the shell starts. Read as written, the shell sees ``${{`` as a
word and the selection is lost. So each entry's text is built with the values the
file decides (``matrix``, and ``env`` values written literally, or themselves from
the matrix), entries that give the same text and variables are read once, and each
reading says which entries run it, in the words ``continue-on-error`` uses for
the entries it hides (``matrix entries with tox_env=plugins: name=plugins, ...``).
An expression of another context (``github``, ``needs``, ``secrets``) stays as
written, read as set at run time; a step whose ``if:`` the matrix decides is read
for the entries that run it.

The variables read per entry are the ones the command names (``$TOX_ENV``,
``${{ env.SUITE }}``) and those tox and pytest read themselves (``TOXENV``,
``PYTEST_ADDOPTS``); another variable's per-entry value would split the readings
without changing what runs. A matrix gives at most 256 entries (``expand_matrix``);
beyond ``MAX_READINGS`` distinct texts the first are read one by one and the other
entries' text as written, in a reading that says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from detlint.readers.ci.facts import EnvSetting, Reading
from detlint.readers.ci.github.expressions import (
    Expr,
    Unknown,
    as_text,
    contexts_of,
    describe_entry,
    evaluate,
    parse_expression,
    referenced_names,
    truthy,
    unwrap,
)

MAX_READINGS = 32  # readings of one command; the texts beyond are read as written, saying so
_SHOWN_ENTRIES = 3  # entries a reading's condition lists before "and N more"
_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}")
_TOOL_VARIABLES = frozenset({"TOXENV", "PYTEST_ADDOPTS"})
_PATH = re.compile(r"matrix((?:\.[A-Za-z_][\w-]*)+)")

Entry = dict[str, object]


def entries_condition(head: str, described: Sequence[str], cap: int | None = None) -> str:
    """``matrix entries <head>: a; b`` with each entry once (the first ``cap`` of them),
    or ``matrix entries <head>`` when none is described."""
    if not described:
        return f"matrix entries {head}"
    shown = list(dict.fromkeys(described))
    more = len(shown) - cap if cap is not None and len(shown) > cap else 0
    listed = "; ".join(shown[: len(shown) - more])
    return f"matrix entries {head}: {listed}" + (f"; and {more} more" if more else "")


def command_readings(
    text: str,
    env: Sequence[EnvSetting],
    entries: list[Entry] | None,
    step_if: str | None = None,
) -> tuple[Reading, ...]:
    """How the entries of a job's matrix read ``text`` (a ``run:``), with ``env`` the
    workflow's, job's and step's variables (closest last); empty when every entry reads
    it as written."""
    latest = {setting.name: setting for setting in env}
    relevant = [
        setting
        for name, setting in latest.items()
        if "${{" in setting.value and (name in _TOOL_VARIABLES or _named(name, text))
    ]
    if "${{" not in text and not relevant:
        return ()
    trees: dict[str, Expr | None] = {}
    literal = {name: s.value for name, s in latest.items() if "${{" not in s.value}
    kept = _running(entries, step_if)
    if not kept:
        return ()
    keys: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    built: dict[tuple[str, tuple[str, ...]], tuple[str, tuple[tuple[int, int, int, int], ...]]] = {}
    for index in kept:
        entry = entries[index] if entries is not None else None
        known = _env_values(literal, relevant, entry, trees)
        values = tuple(known.get(s.name, s.value) for s in relevant)
        filled, shifts = _filled(text, entry, known, trees)
        key = (filled, values)
        keys.setdefault(key, []).append(index)
        built.setdefault(key, (filled, shifts))
    written = (text, tuple(s.value for s in relevant))
    if len(keys) == 1 and written in keys:
        return ()
    groups = list(keys.items())
    readings: list[Reading] = []
    for key, indexes in groups[: MAX_READINGS - 1] if len(groups) > MAX_READINGS else groups:
        filled, shifts = built[key]
        settings = tuple(
            EnvSetting(s.name, value, s.span)
            for s, value in zip(relevant, key[1], strict=True)
            if value != s.value
        )
        condition = None
        if len(keys) > 1 and entries is not None:
            condition = _condition(indexes, entries, text, relevant, trees)
        chosen = frozenset(indexes) if condition is not None else None
        readings.append(Reading(filled, settings, condition, chosen, shifts))
    if len(groups) > MAX_READINGS:  # the rest as written, as if the matrix were unknown
        rest = frozenset(index for _, indexes in groups[MAX_READINGS - 1 :] for index in indexes)
        condition = (
            f"the other {len(rest)} matrix entries (detlint reads {MAX_READINGS - 1} of the "
            f"{len(groups)} texts the matrix gives this command, the rest as written)"
        )
        readings.append(Reading(text, (), condition, rest))
    return tuple(readings)


def _named(name: str, text: str) -> bool:
    """Whether ``text`` reads variable ``name`` (``$NAME``, ``${NAME}``, ``env.NAME``)."""
    return name in text and re.search(rf"(?:\$\{{?|env\.){re.escape(name)}\b", text) is not None


def _tree(expression: str, trees: dict[str, Expr | None]) -> Expr | None:
    if expression not in trees:
        try:
            trees[expression] = parse_expression(expression)
        except Unknown:
            trees[expression] = None
    return trees[expression]


def _value(
    expression: str, entry: Entry | None, known: dict[str, str], trees: dict[str, Expr | None]
) -> str | None:
    """An expression's value as text for one entry (``entry`` None: the matrix is not
    known), or None when the file does not decide it."""
    tree = _tree(expression, trees)
    if tree is None or (entry is None and "matrix" in contexts_of(tree)):
        return None
    try:
        value = as_text(evaluate(tree, entry or {}, {"env": dict(known)}))
    except Unknown:
        return None
    return None if "\n" in value else value


def _filled(
    text: str, entry: Entry | None, known: dict[str, str], trees: dict[str, Expr | None]
) -> tuple[str, tuple[tuple[int, int, int, int], ...]]:
    """``text`` with each expression the file decides replaced by its value for
    ``entry``, and the shifts of the first line (``Reading.shifts``)."""
    if "${{" not in text:
        return text, ()
    parts: list[str] = []
    shifts: list[tuple[int, int, int, int]] = []
    first_line = text.find("\n") if "\n" in text else len(text)
    done = length = 0
    for match in _EXPRESSION.finditer(text):
        value = _value(match.group(1), entry, known, trees)
        if value is None:
            continue
        before = text[done : match.start()]
        parts += [before, value]
        start = length + len(before)
        length = start + len(value)
        if match.start() < first_line:
            shifts.append((start, length, match.start(), match.end()))
        done = match.end()
    parts.append(text[done:])
    return "".join(parts), tuple(shifts)


def _env_values(
    literal: dict[str, str],
    relevant: Sequence[EnvSetting],
    entry: Entry | None,
    trees: dict[str, Expr | None],
) -> dict[str, str]:
    """The variables whose value the file decides for ``entry``: those written
    literally, and the ``relevant`` ones whose expressions it decides."""
    if not relevant:
        return literal
    known = dict(literal)
    for setting in relevant:
        filled, _ = _filled(setting.value, entry, literal, trees)
        if "${{" not in filled:
            known[setting.name] = filled
    return known


def _running(entries: list[Entry] | None, step_if: str | None) -> list[int]:
    """The entries that run the step: all, or those its ``if:`` (when the matrix alone
    decides it) is true for; [0] standing for the one unknown entry of an unknown matrix."""
    if entries is None:
        return [0]
    every = list(range(len(entries)))
    if not step_if:
        return every
    inner = unwrap(step_if)
    expression = inner if inner is not None else step_if
    try:
        tree = parse_expression(expression)
        if not contexts_of(tree) <= {"matrix"}:
            return every
        return [index for index in every if truthy(evaluate(tree, entries[index]))]
    except Unknown:
        return every


def _condition(
    indexes: list[int],
    entries: list[Entry],
    text: str,
    relevant: Sequence[EnvSetting],
    trees: dict[str, Expr | None],
) -> str:
    """``matrix entries with tox_env=plugins: name=plugins, python=3.12`` for the
    entries of one reading: the values the expressions take there (those all of them
    share), then each entry by its other keys."""
    expressions = [m.group(1) for m in _EXPRESSION.finditer(text)]
    for setting in relevant:
        expressions += [m.group(1) for m in _EXPRESSION.finditer(setting.value)]
    names: set[str] = set()
    shared: list[str] = []
    for expression in dict.fromkeys(" ".join(e.split()) for e in expressions):
        tree = _tree(expression, trees)
        if tree is None or not contexts_of(tree) <= {"matrix", "env"}:
            continue
        names |= referenced_names(tree)
        values: set[str | None] = set()
        for index in indexes:
            try:
                values.add(as_text(evaluate(tree, entries[index])))
            except Unknown:
                values.add(None)
        if len(values) == 1 and None not in values and referenced_names(tree):
            path = _PATH.fullmatch(expression)
            label = path.group(1)[1:] if path else f"`{expression}`"
            shared.append(f"{label}={values.pop()}")
    head = f"with {', '.join(shared)}" if shared else "that run it so"
    if not shared or any(k.lower() not in names for i in indexes for k in entries[i]):
        described = [describe_entry(entries[index], names) for index in indexes]
    else:  # the values named say it all
        described = []
    return entries_condition(head, described, _SHOWN_ENTRIES)
