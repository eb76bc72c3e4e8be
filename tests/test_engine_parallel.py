"""Spreading the Python pass over worker processes must not change the result."""

from __future__ import annotations

from pathlib import Path

from detlint.engine import PARALLEL_THRESHOLD, analyse
from detlint.readers.project.settings import Settings
from detlint.rules.catalogue import select_codes

MARKED = """import os
import pytest

TRIALS = int(os.getenv("T{n}", "{n}"))


@pytest.mark.flaky(reruns={reruns})
def test_marked_{n}():
    for _ in range(TRIALS):
        assert True
"""
PLAIN = "def test_plain_{n}():\n    assert {n} >= 0\n"


def make_tree(root: Path) -> None:
    (root / "requirements.txt").write_text("pytest-rerunfailures==16.7\n")
    (root / "pytest.ini").write_text("[pytest]\n")
    tests = root / "tests"
    tests.mkdir()
    for n in range(PARALLEL_THRESHOLD + 50):
        text = MARKED.format(n=n % 9 + 1, reruns=n % 4) if n % 10 == 0 else PLAIN.format(n=n)
        (tests / f"test_{n:04d}.py").write_text(text)
    (tests / "test_broken.py").write_text("import pytest\n@pytest.mark.flaky\ndef broken(:\n")


def test_workers_find_exactly_what_one_process_finds(tmp_path):
    make_tree(tmp_path)
    selected = select_codes(None, ())
    one = analyse([tmp_path], tmp_path, Settings(), selected, jobs=1)
    two = analyse([tmp_path], tmp_path, Settings(), selected, jobs=2)
    assert one.findings == two.findings
    assert one.gates == two.gates
    codes = [finding.code for finding in two.findings]
    marked_with_reruns = [n for n in range(PARALLEL_THRESHOLD + 50) if n % 10 == 0 and n % 4]
    assert codes.count("DET101") == len(marked_with_reruns)  # reruns=0 hides nothing
    assert codes.count("DET901") == 1
