"""The short form of a finding's message, for the concise lines people read.

A finding's message is written for someone checking it: the knob, the numbers and
every assumption and count behind them, often 200 characters and more. A concise
line is read at a glance in a terminal or a hook's output, so it keeps what decides
whether to act: what the knob is and the chance that a violation at the reference
rate is reported with it and without it. The details (the plugin and where it was
declared, the trials, the test counts, what a step gates) stay in the message that
``--output-format full``, JSON, SARIF and the other formats carry whole.

The shortening only removes: asides in parentheses that hold no percentage, the
clauses after a ``;`` that hold none, and the words between the subject and the
numbers; a percentage the message states is never dropped from what is kept. A
subject that is still long is replaced by the rule's name (``retry-marker``).
"""

from __future__ import annotations

import re

SUBJECT_LIMIT = 50  # characters of a subject kept as written; a longer one gives the rule's name
_VIOLATION = re.compile(r"\ba <?[\d.]+% violation\b")
# Where the figures end: the chance without the knob, "instead of 10.0%" or "(was 10.0%)".
_WITHOUT = re.compile(r"instead of <?[\d.]+%|\(was (?:reported )?<?[\d.]+%\)")
_MEASURED = "; measured in CI: "  # what `--evidence` adds at the end, quoted whole
# Words that restate the rule; the rule's code says them already.
_RESTATED = (
    " hides intermittent failures",
    " lets failing tests pass the build",
    " lets failing tests pass the workflow run",
    " with no tracking issue",
)


def _closing(text: str, start: int) -> int:
    """The index of the parenthesis closing the one at ``start`` (code spans skipped),
    or -1 when it is not closed."""
    depth, code = 0, False
    for index in range(start, len(text)):
        char = text[index]
        if char == "`":
            code = not code
        elif not code and char == "(":
            depth += 1
        elif not code and char == ")":
            depth -= 1
            if depth == 0:
                return index
    return -1


def split_outside(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` where it stands outside parentheses and code spans."""
    parts, depth, code, start, index = [], 0, False, 0, 0
    while index < len(text):
        char = text[index]
        if char == "`":
            code = not code
        elif not code and char == "(":
            depth += 1
        elif not code and char == ")":
            depth -= 1
        elif not code and depth == 0 and text.startswith(separator, index):
            parts.append(text[start:index])
            index = start = index + len(separator)
            continue
        index += 1
    return [*parts, text[start:]]


def without_asides(message: str) -> str:
    """``message`` without the `` (...)`` asides that hold no percentage, and with only
    the ``;`` parts that hold one in those that do: ``(was reported 10.0%; 1 attempt)``
    becomes ``(was reported 10.0%)``."""
    pieces: list[str] = []
    index, start, code = 0, 0, False
    while index < len(message):
        char = message[index]
        if char == "`":
            code = not code
        elif char == "(" and not code and message[index - 1 : index] == " ":
            end = _closing(message, index)
            if end < 0:
                break
            pieces.append(message[start : index - 1])
            inside = [part for part in split_outside(message[index + 1 : end], "; ") if "%" in part]
            if inside:
                pieces.append(f" ({'; '.join(inside)})")
            index = start = end + 1
            continue
        index += 1
    pieces.append(message[start:])
    return " ".join("".join(pieces).split())


def concise_message(message: str, rule_name: str) -> str:
    """The short form: ``rerun marker: a 10% violation is reported 1.0% instead of
    10.0%``. A message without such a number keeps its first clause, asides removed.
    What CI measured (``detlint check --evidence``) is kept whole after the figures: a
    run that was given the reports is asked for it."""
    message, found, measured = message.partition(_MEASURED)  # always the message's end
    text = without_asides(message)
    return _short(split_outside(text, "; "), rule_name) + found + measured


def _short(clauses: list[str], rule_name: str) -> str:
    """The subject and the figures of a message's clauses (asides already removed)."""
    text = "; ".join([clauses[0], *(clause for clause in clauses[1:] if "%" in clause)])
    found = _VIOLATION.search(text)
    if found is None:
        return text.rstrip(",;: ")
    numbers = text[found.start() :].replace(" of the time instead of ", " instead of ")
    numbers = numbers.replace(" of the time but never fails", " but never fails")
    without = _WITHOUT.search(numbers)
    # Which tests the figures are of ("in the tests of 4 test files", "where the test
    # runs") is a detail: the figures end the line.
    numbers = split_outside(numbers, "; ")[0] if without is None else numbers[: without.end()]
    subject = split_outside(text[: found.start()], ": ")[0].strip().rstrip(",;: ")
    for words in _RESTATED:
        subject = subject.replace(words, "")
    if not subject or len(subject) > SUBJECT_LIMIT:
        subject = rule_name
    return f"{subject}: {numbers}"
