"""The ends of a CI call chain that are Python scripts: a wrapper that runs pytest, or
a test module run as a script.

A wrapper (``python_wrappers.py``, parsed with ``ast``, never run) may retry pytest
itself or throw its result away; a test module run as ``python test_system.py`` runs the
tests it defines wherever it sits. Either way the chain ends there, with the retry and
the status the script gives.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from detlint.base.span import Span
from detlint.readers.ci.commands.call_ends import CallEnd
from detlint.readers.ci.commands.follow import Follower
from detlint.readers.ci.shell.commands import TestCall

if TYPE_CHECKING:
    from detlint.readers.ci.commands.python_wrappers import PythonWrapper

# A test module by its name: test_cli.py, cli_test.py.
TEST_MODULE = re.compile(r"^(?:test_\w+|\w+_test)\.py$")


def python_end(
    follower: Follower, call: TestCall, chain: tuple[str, ...], span: Span | None, directory: str
) -> CallEnd | None:
    """The end a Python script that runs pytest makes (``python_wrappers.py``): with the
    retry it writes itself, and its status dropped when it throws pytest's result away."""
    wrapper = _python_wrapper(follower, call.callee.path, directory)
    if wrapper is None:
        return None
    path, read = wrapper
    retry: tuple[int, Span | None] | None = None
    if read.attempts is not None and read.attempts > 1:
        retry = (read.attempts, Span(follower.display(path), read.line, 1, read.line, 1))
    masked = call.masked
    if masked is None and read.drops_status:
        masked = f"a discarded pytest result (`{call.callee.path}` line {read.line})"
    return CallEnd(call, chain, span, True, masked, retry)


# A Python file that defines or runs tests of its own: ``def test_...(``, a TestCase, or
# ``unittest.main()``.
_DEFINES_TESTS = re.compile(
    r"^[ \t]*(?:async[ \t]+)?def[ \t]+test\w*[ \t]*\(|unittest\.(?:main\(|TestCase\b)", re.M
)


def test_script_end(
    follower: Follower, call: TestCall, chain: tuple[str, ...], span: Span | None, directory: str
) -> CallEnd | None:
    """A test module run as a script wherever it sits (``python test_system.py``): named
    like one and defining tests, it runs them, with whatever status it ends with."""
    written = call.callee.path
    if TEST_MODULE.match(written.rpartition("/")[2]) is None:
        return None
    path = follower.located(written, directory)
    text = follower.text(path) if path else None
    if text is None or _DEFINES_TESTS.search(text) is None:
        return None
    return CallEnd(call, chain, span, True, call.masked)


def _python_wrapper(
    follower: Follower, written: str, directory: str
) -> tuple[str, PythonWrapper] | None:
    """A repository Python script that runs pytest (``python_wrappers.py``), if it is one."""
    path = follower.located(written, directory)
    text = follower.text(path) if path else None
    if text is None or "pytest" not in text:
        return None
    from detlint.readers.ci.commands.python_wrappers import read_wrapper  # parses with ast

    read = read_wrapper(text)
    return (path, read) if read.runs else None
