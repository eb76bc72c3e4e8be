"""Function bodies nothing can be read from, replaced by ``pass`` before parsing.

A test body matters only for trial loops (and loops that check each item, counted
or not), imperative skip/xfail calls, calls to trial helpers and knob tokens (a
mark wrapper); otherwise its decorators and
signature carry every fact, and the bodies are the bulk of a large suite. So the
narrowing pass (``narrowing.py``) keeps a kept function's header and stubs its
body, unless the body holds one of those, or calls a function or method that
loops or reads the environment (a trial helper).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from detlint.readers.python.blocks import (
    IDENTIFIER,
    definition_head,
    split_def,
)

# Whether a text holds a knob token (the prefilter's test, for a block of a file).
Wanted = Callable[[str], bool]

TRIAL_HINTS = ("range(", "getenv", "environ")
# What a test body can hold that detlint reads: trial loops, env reads, imperative
# skip/xfail calls.
_BODY_HINTS = (
    *TRIAL_HINTS,
    "skip(",
    "xfail(",
    "applymarker(",
    "add_marker(",
    "skipTest(",
    "SkipTest",
)


# What makes a helper matter to a trial loop that calls it: it checks what a trial computed.
CHECK_HINTS = ("assert", "fail(")
# A loop statement, or a comprehension ``all``/``any`` requires of every item: with a
# check in the body, a loop detlint may not count but a finding names (``uncounted_loops``).
# What a check in such a loop may look like: an assertion, a ``raise`` (under the loop's
# ``if``, a check as an ``assert`` is), or a call named as a check.
_LOOP_CHECK_HINTS = (*CHECK_HINTS, "raise ", "check_", "compare_", "verify_", "validate_")
_LOOP = re.compile(r"^[ \t]+(?:async[ \t]+)?for[ \t]|\b(?:all|any)\(", re.M)


def loops_and_checks(block: str) -> bool:
    """Whether a block may hold a loop that checks each item: a test that calls such a
    function names its loop (``uncounted_loops``), so the function is read."""
    return any(hint in block for hint in _LOOP_CHECK_HINTS) and _LOOP.search(block) is not None


def stub_body(
    block: str,
    wanted: Wanted,
    trial_names: set[str],
    whole: frozenset[str] | set[str] = frozenset(),
) -> list[tuple[int, str]] | None:
    """A function's header with ``pass`` for a body nothing can be read from.

    A test body matters only for trial loops, imperative skip/xfail calls, calls
    to trial helpers and knob tokens (a mark wrapper); otherwise the decorators
    and signature carry every fact, and the body is the bulk of a large suite.
    A helper's checks matter too: a trial loop that calls a helper which
    asserts is a trial loop; and so does a test's loop that checks each item, which
    a finding names when detlint cannot count it. Functions in ``whole`` are read
    whole: a knob names them as the code that decides what it hides.
    """
    head = definition_head(block)
    split = split_def(block, head)
    if split is None or (head is not None and head.group(2) in whole):
        return None
    header, body = split
    if wanted(body) or any(hint in body for hint in _BODY_HINTS):
        return None
    helper = head is not None and not head.group(2).startswith("test")
    checks = any(hint in body for hint in CHECK_HINTS)
    if (helper and checks) or loops_and_checks(body):
        return None
    # A name not even in the text rules a call out before the body's words are found.
    if any(name in body for name in trial_names) and not trial_names.isdisjoint(
        IDENTIFIER.findall(body)
    ):
        return None
    first = next((line for line in body.split("\n") if line.strip()), None)
    if first is None:
        return None
    indent = first[: len(first) - len(first.lstrip())]
    return [(0, header), (header.count("\n"), indent + "pass")]


def with_stubs(
    pieces: list[tuple[int, str]],
    wanted: Wanted,
    trial_names: set[str],
    whole: set[str] | frozenset[str] = frozenset(),
) -> list[tuple[int, str]]:
    result: list[tuple[int, str]] = []
    for line, piece in pieces:
        stub = stub_body(piece, wanted, trial_names, whole)
        if stub is None:
            result.append((line, piece))
        else:
            result += [(line + offset, text) for offset, text in stub]
    return result


# An indented def at a line start (matching the break lets the regex engine skip ahead).
_METHOD = re.compile(r"\n([ \t]+)(?:async[ \t]+)?def[ \t]+(\w+)")


def member_trial_names(block: str) -> set[str]:
    """Methods of a class that loop or read the environment (trial helpers).

    A method holds the hints between its ``def`` and the next ``def`` indented no
    deeper; a hint in a nested function is its enclosing method's too.
    """
    hints = sorted(at for hint in TRIAL_HINTS for at in _occurrences(block, hint))
    if not hints:
        return set()
    names: set[str] = set()
    open_methods: list[tuple[int, str]] = []  # (indentation, name), innermost last
    next_hint = 0
    for head in _METHOD.finditer(block):
        while next_hint < len(hints) and hints[next_hint] < head.start():
            names.update(method for _, method in open_methods)
            next_hint += 1
        if next_hint == len(hints):
            break
        depth = len(head.group(1))
        while open_methods and open_methods[-1][0] >= depth:
            open_methods.pop()
        open_methods.append((depth, head.group(2)))
    if next_hint < len(hints):
        names.update(method for _, method in open_methods)
    return names


def _occurrences(text: str, word: str) -> list[int]:
    found = []
    at = text.find(word)
    while at >= 0:
        found.append(at)
        at = text.find(word, at + len(word))
    return found
