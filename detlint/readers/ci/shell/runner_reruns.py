"""Reruns that test runners other than pytest do themselves.

``--reruns`` is pytest's; every runner has its own way to run a failing test again and
report the build green when a later attempt passes: Bazel's
``--flaky_test_attempts=3`` (on the command line or in a ``.bazelrc`` config the
command selects), CTest's ``--repeat until-pass:3``, cargo-nextest's ``--retries 2``,
Maven Surefire's ``-Dsurefire.rerunFailingTestsCount=2``. Each hides an intermittent
failure as a rerun plugin does, so a step's runner is read for them, and the attempts
in all (the first included) become a retry of the tests it runs.

Only literal counts are read. Bazel's per-target form (``regex@N``) and a ``default``
value are not counts; a word detlint cannot read leaves the runner without reruns
rather than with a guessed number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_INT = re.compile(r"\d+")
_BAZEL_COMMANDS = frozenset({"test", "coverage"})
# A line of a .bazelrc: "test:ci --flaky_test_attempts=3", "build --config=remote".
_RC_LINE = re.compile(r"^\s*(\w+)(?::([\w.-]+))?\s+(.*?)\s*$")


def option_value(words: Sequence[str], names: Sequence[str]) -> tuple[str, str] | None:
    """The last value given to one of ``names`` (``--x=3`` or ``--x 3``), with the
    words as written."""
    found = None
    for index, word in enumerate(words):
        for name in names:
            if word.startswith(name + "="):
                found = (word.partition("=")[2], word)
            elif word == name and index + 1 < len(words):
                found = (words[index + 1], f"{word} {words[index + 1]}")
    return found


def command_reruns(name: str, words: Sequence[str]) -> tuple[int, str] | None:
    """The attempts in all a runner's command line gives a failing test, and the
    option as written; None when it gives one."""
    program = name.split()[0]
    attempts: int | None = None
    written = ""
    if program in ("bazel", "bazelisk"):
        value = option_value(words, ("--flaky_test_attempts",))
        if value is not None and _INT.fullmatch(value[0]):
            attempts, written = int(value[0]), value[1]
    elif program == "ctest":
        value = option_value(words, ("--repeat",))
        if value is not None and value[0].startswith("until-pass:"):
            count = value[0].partition(":")[2]
            attempts = int(count) if _INT.fullmatch(count) else None
            written = value[1]
        value = option_value(words, ("--repeat-until-pass",))
        if value is not None and _INT.fullmatch(value[0]):
            attempts, written = int(value[0]), value[1]
    elif name == "cargo nextest":
        value = option_value(words, ("--retries",))
        if value is not None and _INT.fullmatch(value[0]):
            attempts, written = int(value[0]) + 1, value[1]
    elif program in ("mvn", "mvnw", "./mvnw"):
        for word in words:
            if word.startswith("-Dsurefire.rerunFailingTestsCount="):
                count = word.partition("=")[2]
                if _INT.fullmatch(count):
                    attempts, written = int(count) + 1, word
    if attempts is None or attempts < 2:
        return None
    return attempts, written


def bazelrc_reruns(words: Sequence[str], rc_text: str) -> tuple[int, str, int] | None:
    """For ``bazel test`` with ``words``, the attempts a ``.bazelrc`` gives a failing test
    through the configs the command selects (``--config=ci``, and the rc's own
    ``--config`` lines): the attempts, the option as written and its 1-based line."""
    if not _BAZEL_COMMANDS.intersection(words):
        return None
    lines = _rc_lines(rc_text)
    configs = [v.partition("=")[2] for v in words if v.startswith("--config=")]
    configs += [words[i + 1] for i, v in enumerate(words[:-1]) if v == "--config"]
    found: tuple[int, str, int] | None = None
    seen: set[str | None] = set()

    def apply(config: str | None) -> None:
        nonlocal found
        if config in seen:
            return
        seen.add(config)
        for command, named, options, number in lines:
            if named != config or command not in ("common", "build", "test"):
                continue
            for option in options:
                if option.startswith("--config="):
                    apply(option.partition("=")[2])
                elif option.startswith("--flaky_test_attempts="):
                    count = option.partition("=")[2]
                    if _INT.fullmatch(count):
                        found = (int(count), option, number)

    apply(None)  # options every test command gets
    for config in configs:
        apply(config)
    if found is None or found[0] < 2:
        return None
    return found


def _rc_lines(text: str) -> list[tuple[str, str | None, list[str], int]]:
    """Each option line of a .bazelrc: command, config (None: every run), options,
    1-based line number."""
    read = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0]
        match = _RC_LINE.match(line)
        if match is None or match[1] in ("import", "try-import"):
            continue
        read.append((match[1], match[2], match[3].split(), number))
    return read
