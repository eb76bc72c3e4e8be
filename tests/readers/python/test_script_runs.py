"""Reading the ``pytest.main(...)`` a test module's ``__main__`` block makes on itself.

The words are what pytest gets, as far as they can be read; what cannot be read is kept
as written (``dynamic`` for an element, ``unread`` for what is joined to or changes the
list), never guessed. Forms taken from real test files (ray's
``sys.exit(pytest.main(["-v", "--reruns", "3", __file__]))``, ``pytest.main(["-v",
__file__] + sys.argv[1:])``, spyder's ``pytest.main(['test_editor.py', '-vv'])``).
"""

from __future__ import annotations

import textwrap

import pytest

from detlint.readers.python.facts import ScriptRun
from detlint.readers.python.module_scan import scan_module
from detlint.readers.python.options import ScanOptions
from detlint.readers.python.prefilter import read_whole

OPTIONS = ScanOptions()


def _runs(text: str) -> tuple[ScriptRun, ...]:
    facts, _ = scan_module("tests/test_x.py", textwrap.dedent(text), OPTIONS)
    return facts.script_runs


def _words(text: str) -> list[tuple[tuple[str, ...], tuple[bool, ...], tuple[str, ...]]]:
    return [(run.words, run.dynamic, run.unread) for run in _runs(text)]


def test_a_literal_list_in_sys_exit():
    (run,) = _runs(
        """\
        import sys

        import pytest

        if __name__ == "__main__":
            sys.exit(pytest.main(["-v", "--reruns", "3", __file__]))
        """
    )
    assert run.words == ("-v", "--reruns", "3", "__file__")
    assert run.dynamic == (False, False, False, False)
    assert (run.span.line, run.span.column, run.span.end_column) == (6, 14, 60)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (  # a keyword argument, a module constant, a joined sys.argv
            """\
            import sys
            import pytest
            COUNT = "2"
            ARGS = ["--reruns", COUNT, __file__]
            if __name__ == "__main__":
                raise SystemExit(pytest.main(args=ARGS + sys.argv[1:]))
            """,
            [(("--reruns", "2", "__file__"), (False,) * 3, ("sys.argv[1:]",))],
        ),
        (  # unpacked into the list, a computed count, an f-string
            """\
            import os, sys
            import pytest
            N = int(os.environ["N"])
            if __name__ == "__main__":
                pytest.main([*sys.argv[1:], "--reruns", str(N), f"--retries={N}", __file__])
            """,
            [
                (
                    ("--reruns", "str(N)", "--retries={N}", "__file__"),
                    (False, True, True, False),
                    ("sys.argv[1:]",),
                )
            ],
        ),
        (  # through a function the block calls, the list changed after it is bound
            """\
            import pytest
            def main(extra):
                args = ["--reruns", "1"]
                args += extra
                return pytest.main(args + [__file__])
            if __name__ == "__main__":
                main([])
            """,
            [(("--reruns", "1", "__file__"), (False,) * 3, ("args += extra",))],
        ),
        (  # an alias, the file named by its own name
            """\
            import pytest as pt
            if "__main__" == __name__:
                pt.main(["test_x.py", "-p", "no:rerunfailures"])
            """,
            [(("test_x.py", "-p", "no:rerunfailures"), (False,) * 3, ())],
        ),
    ],
)
def test_argument_forms(source, expected):
    assert _words(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        # Another directory's tests: not this file's run.
        'import pytest\nif __name__ == "__main__":\n    pytest.main(["--reruns", "3", "tests"])\n',
        # No arguments: pytest reads sys.argv.
        'import pytest\nif __name__ == "__main__":\n    pytest.main()\n',
        # A parameter detlint cannot follow.
        "import pytest, sys\ndef run(args):\n    return pytest.main(args)\n"
        'if __name__ == "__main__":\n    run(sys.argv[1:])\n',
        # Outside the __main__ block: a session a test starts on its own.
        "import pytest\ndef test_inner():\n"
        '    assert pytest.main(["--reruns", "3", __file__]) == 0\n',
        # Another module's main().
        'import unittest\nif __name__ == "__main__":\n    unittest.main([__file__])\n',
    ],
)
def test_calls_that_are_not_the_file_s_own_run(source):
    assert _runs(source) == ()


def test_a_module_that_may_rerun_itself_is_read_whole():
    # Its tests without a knob of their own are reached too, so none may be cut away.
    source = b'import pytest\ndef test_a(): ...\nif __name__ == "__main__":\n'
    assert read_whole(source + b'    pytest.main(["--reruns", "3", __file__])\n')
    assert not read_whole(source + b'    pytest.main(["-v", __file__])\n')
