"""The Python pass started before the pipelines are read: sifting the files first, then
scanning what was kept once the pipelines' variables are known, finds exactly what
scanning every file with those variables finds."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from detlint.engine import PARALLEL_THRESHOLD, analyse
from detlint.readers.project.settings import Settings
from detlint.readers.python.options import ScanOptions
from detlint.readers.python.prefilter import Prefilter
from detlint.readers.python.staged_scan import PythonPass, Variables
from detlint.rules.catalogue import select_codes

# Pieces of a file that the prefilter, the trial half and the variables react to.
FRAGMENTS = (
    "import os\n",
    "import pytest\n",
    'N = int(os.getenv("GPU_TRIALS", "5"))\n',
    'N = os.environ["OTHER"]\n',
    "from ourlib.env import get_int\n",
    'N = get_int("GPU_TRIALS", 3)\n',
    'LABEL = "GPU_TRIALS"\n',
    'HELPER = helper("SEEDS")\n',
    "def test_loop():\n    for _ in range(N):\n        assert run_kernel() == EXPECTED\n",
    "def test_plain():\n    assert 1 + 1 == 2\n",
    "@pytest.mark.flaky(reruns=2)\ndef test_flaky():\n    pass\n",
    '@pytest.mark.skip(reason="flaky on CI")\ndef test_skipped():\n    pass\n',
    "@pytest.mark.xfail(strict=False)\ndef test_xfail():\n    pass\n",
    "def broken(:\n",
)


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(["test_a.py", "a_test.py", "conftest.py", "helper.py"]),
    pieces=st.lists(st.sampled_from(FRAGMENTS), max_size=6),
    variables=st.lists(st.sampled_from([b"GPU_TRIALS", b"SEEDS", b"OTHER", b"N"]), max_size=3),
    trials=st.booleans(),
)
def test_a_file_the_sieve_drops_is_found_empty_with_any_variables(name, pieces, variables, trials):
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        path = root / name
        path.write_text("".join(pieces))
        python = PythonPass(
            root,
            root,
            ScanOptions(env_readers=frozenset({"ourlib.env.get_int"})),
            Prefilter(trials=trials, readers=(b"get_int",)),
        )
        kept = python.sieve.may_find(path)
        found = [
            python.scan(Variables(tuple(variables), pipelines), path) for pipelines in (False, True)
        ]
    if not kept:
        assert found == [None, None]


def test_the_sieve_keeps_files_only_variables_bring_in(tmp_path):
    """What the sifting must keep although nothing but a variable makes it worth a read."""
    python = PythonPass(tmp_path, tmp_path, ScanOptions(), Prefilter(readers=(b"get_int",)))
    reads = tmp_path / "test_reads.py"
    reads.write_text('import os\nN = int(os.getenv("GPU_TRIALS", "5"))\n')
    by_reader = tmp_path / "test_by_reader.py"
    by_reader.write_text('N = get_int("GPU_TRIALS", 5)\n')
    plain = tmp_path / "test_plain.py"
    plain.write_text('LABEL = "GPU_TRIALS"\ndef test_a():\n    pass\n')
    assert python.sieve.may_find(reads)
    assert python.sieve.may_find(by_reader)
    assert not python.sieve.may_find(plain)
    assert not python.sieve.may_find(tmp_path / "helper.py")  # not a test module


# -- the whole run: one process against sifting workers --------------------------------

TRIALS_BY_ENV = """\
import os

TRIALS = int(os.getenv("{variable}", "30"))


def test_kernel_{n}():
    for seed in range(TRIALS):
        assert run_kernel(seed) == EXPECTED
"""
TRIALS_BY_READER = """\
from ourlib.env import get_int

TRIALS = get_int("{variable}", 30)


def test_reader_{n}():
    for seed in range(TRIALS):
        assert run_kernel(seed) == EXPECTED
"""
FLAKY = """\
import pytest


@pytest.mark.flaky(reruns=2)
def test_flaky_{n}():
    pass
"""
PLAIN = "def test_plain_{n}():\n    assert {n} >= 0\n"
PIPELINE = """\
steps:
  - label: gpu
    command: pytest tests
    env:
      KERNEL_TRIALS: "3"
      READER_TRIALS: "2"
    retry:
      automatic: true
"""


def test_sifting_workers_find_exactly_what_one_process_finds(tmp_path):
    (tmp_path / "requirements.txt").write_text("pytest-rerunfailures==16.7\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / ".buildkite").mkdir()
    (tmp_path / ".buildkite" / "pipeline.yml").write_text(PIPELINE)
    tests = tmp_path / "tests"
    tests.mkdir()
    count = PARALLEL_THRESHOLD + 20
    for n in range(count):
        if n % 40 == 1:
            text = TRIALS_BY_ENV.format(n=n, variable="KERNEL_TRIALS")
        elif n % 40 == 2:
            text = TRIALS_BY_READER.format(n=n, variable="READER_TRIALS")
        elif n % 40 == 3:
            text = TRIALS_BY_ENV.format(n=n, variable="UNSET_TRIALS")
        elif n % 40 == 4:
            text = FLAKY.format(n=n)
        else:
            text = PLAIN.format(n=n)
        (tests / f"test_{n:04d}.py").write_text(text)
    selected = select_codes(None, ())
    config = Settings(trial_env_readers=frozenset({"ourlib.env.get_int"}))
    one = analyse([tmp_path], tmp_path, config, selected, jobs=1)
    two = analyse([tmp_path], tmp_path, config, selected, jobs=2)
    assert one.findings == two.findings
    assert one.gates == two.gates
    assert one.modules == two.modules
    assert one.ci is not None
    assert two.ci is not None
    assert one.ci.gates == two.ci.gates
    # Each variable reaches the six test files that read it, by os.getenv or by the reader.
    messages = sorted(finding.message for finding in two.findings if finding.code == "DET302")
    assert len(messages) == 2
    assert "sets KERNEL_TRIALS=3" in messages[0]
    assert "sets READER_TRIALS=2" in messages[1]
    assert all("(gates 6 test files under tests)" in message for message in messages)
