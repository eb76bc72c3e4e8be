"""Whether a CI knob on a step with no pytest run detlint can see may still gate tests.

A soft fail on a step that sets meta-data, uploads coverage or posts a status
masks no test, and a finding there is noise a maintainer dismisses. A word
"test" somewhere in the step (a label, a results directory, a report name) says
nothing either. What does suggest tests is a call detlint cannot see through:
a shell script, a Python script, a make target, or tox/nox, named like a test
runner (``run-amd-test.sh``, ``standalone_tests/check.sh``, ``make test``,
``python run_tests.py``). Such a knob is reported with what the step runs, and
numbers that hold only if that call runs tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detlint.readers.ci.facts import CiCommand, CiKnob, CiStep

# A program or script a command line hands control to, at the start of a command.
_CALL = re.compile(
    r"(?:^|&&|\|\||;|\||\bthen\b|\bdo\b)[ \t]*(?:[A-Za-z_]\w*=\S*[ \t]+)*"
    r"((?:(?:bash|sh|source|\.|exec|python3?(?:\.\d+)?|uv[ \t]+run(?:[ \t]+python3?)?)"
    r"(?:[ \t]+-[\w-]+)*[ \t]+)?"
    r"(?:\.{1,2}/)?[\w.${}-]+(?:/[\w.${}-]+)*\.(?:sh|py)"
    r"|g?make(?:[ \t]+[^\s;&|]+)+"
    r"|(?:tox|nox)\b[^\n;&|]*)",
    re.M,
)
# "test" or "tests" as a word of a name: run-amd-test.sh, standalone_tests, test.
_TEST_WORD = re.compile(r"(?:^|[-_./])(?:unit)?tests?(?:$|[-_./])")
# A Python script is named like a runner as a whole (test.py, run_tests.py,
# runtests.py, run-tests-gpu.py); merge_recommended_tests.py or test_selector.py
# are tools about tests. A test module in a test directory (tests/test_cli.py)
# runs its tests as a script.
_TEST_MODULE = re.compile(r"^(?:test_\w+|\w+_test)\.py$")
_TEST_DIRECTORIES = frozenset({"test", "tests", "testing"})
_PYTHON_RUNNER = re.compile(r"^(?:tests?|run[-_]?tests?(?:[-_.]\w+)*)\.py$")


def scope(knob: CiKnob, steps: Sequence[CiStep]) -> list[CiCommand]:
    """The commands a knob acts on: the commands that carry it (a GitHub step's
    ``continue-on-error``), else every command of its steps (a job's)."""
    carrying = [command for step in steps for command in step.commands if knob in command.knobs]
    return carrying or [command for step in steps for command in step.commands]


def unseen_test_calls(commands: Iterable[CiCommand]) -> list[str]:
    """Calls in ``commands`` named like test runners, as written (first line only)."""
    found: list[str] = []
    for command in commands:
        for match in _CALL.finditer(command.text):
            call = " ".join(match.group(1).split())
            if _suggests_tests(call) and call not in found:
                found.append(call)
    return found


def _suggests_tests(call: str) -> bool:
    words = call.split()
    if words[0] in ("tox", "nox"):
        return True
    if words[0] in ("make", "gmake"):
        return any(_TEST_WORD.search(word) for word in words[1:] if not word.startswith("-"))
    script = words[-1]
    if script.endswith(".py"):
        # A runner by its name, or a test module of a test tree run as a script; a test
        # tree keeps its tools too (tests/test_utils/python_scripts/dashboard.py).
        directory, _, name = script.rpartition("/")
        if _PYTHON_RUNNER.match(name) is not None:
            return True
        in_tests = not _TEST_DIRECTORIES.isdisjoint(directory.split("/"))
        return in_tests and _TEST_MODULE.match(name) is not None
    return _TEST_WORD.search(script) is not None
