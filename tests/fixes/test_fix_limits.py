"""Building fixes on files that push the parsers to their limits ends, with a reason.

libcst's native parser crashes the process on thousands of nested parentheses and
its Python-side walks run out of stack on chains of hundreds of calls; ``ast`` reads
every file first and the fix is declined where it cannot, or where the code libcst
would be given nests too deeply. Each case runs detlint as a subprocess: a crash
shows as a negative exit status, a hang as the (generous) timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
MARKED = "import pytest\n\n\n@pytest.mark.flaky(reruns=3)\ndef test_a():\n    assert True\n"


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "detlint", "check", *args, "."],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def fixes(root: Path) -> list[tuple[str, int, bool, str | None]]:
    result = run(root, "--output-format", "json")
    assert result.returncode == 1, result.stderr
    return [
        (f["code"], f["line"], f.get("fix") is not None, f.get("fix_unavailable"))
        for f in json.loads(result.stdout)["findings"]
    ]


def test_thousands_of_nested_parentheses_decline_the_fix_without_a_crash(repository):
    deep = "(" * 2000 + "1" + ")" * 2000
    (repository / "test_deep.py").write_text(MARKED + f"\nx = {deep}\n")
    assert fixes(repository) == [
        (
            "DET101",
            4,
            False,
            "Python's parser cannot read test_deep.py (too many nested parentheses, line 8); "
            "no fix is made in it",
        )
    ]
    for args in (("--diff", "--unsafe-fixes"), ("--fix", "--unsafe-fixes")):
        result = run(repository, *args)
        assert result.returncode >= 0, result.stderr
        assert "no fix is made in it" in result.stdout + result.stderr
    assert (repository / "test_deep.py").read_text().startswith(MARKED)


@pytest.mark.parametrize(
    ("statement", "depth"),
    [("x = a" + ".b()" * 300, 604), ("x = 1" + " + 1" * 400, 403)],
    ids=["calls", "sums"],
)
def test_a_statement_nested_too_deeply_for_libcst_declines_its_own_fixes(
    repository, statement, depth
):
    """A class whose body holds the chain: the marker's statement is the class."""
    marked = "    @pytest.mark.flaky(reruns=3)\n    def test_{}(self):\n        pass\n"
    deep_class = f"class TestA:\n    {statement}\n\n" + marked.format("a")
    shallow_class = "class TestB:\n" + marked.format("b")
    (repository / "test_chain.py").write_text(f"import pytest\n\n\n{deep_class}\n\n{shallow_class}")
    assert fixes(repository) == [
        (
            "DET101",
            7,
            False,
            f"the code around test_chain.py:7 nests {depth} levels deep, beyond the 200 "
            "detlint's fix builder handles; no fix is made there",
        ),
        ("DET101", 13, True, None),
    ]


def test_chains_too_long_for_pythons_parser_decline_every_fix_in_the_file(repository):
    (repository / "test_chain.py").write_text(MARKED + "\nx = a" + ".b()" * 10000 + "\n")
    assert fixes(repository) == [
        (
            "DET101",
            4,
            False,
            "test_chain.py nests too deeply for Python's parser; no fix is made in it",
        )
    ]


def test_a_thousand_markers_in_one_file_each_get_a_fix(repository):
    marked = "@pytest.mark.flaky(reruns=3)\ndef test_{0}():\n    assert {0}\n\n\n"
    text = "import pytest\n\n\n" + "".join(marked.format(n) for n in range(1000))
    (repository / "test_many.py").write_text(text)
    found = fixes(repository)
    assert len(found) == 1000
    assert all(code == "DET101" and fix for code, _, fix, _ in found)
    assert [line for _, line, _, _ in found] == [4 + 5 * n for n in range(1000)]


def test_a_class_of_many_marked_methods_gets_every_fix(repository):
    """Each fix is checked on its method, not on the whole class."""
    marked = "    @pytest.mark.flaky(reruns=3)\n    def test_{0}(self):\n        assert {0}\n\n"
    text = "import pytest\n\n\nclass TestMany:\n" + "".join(marked.format(n) for n in range(600))
    (repository / "test_many.py").write_text(text)
    found = fixes(repository)
    assert [(code, line, fix) for code, line, fix, _ in found] == [
        ("DET101", 5 + 4 * n, True) for n in range(600)
    ]
