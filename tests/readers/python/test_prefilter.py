"""The byte prefilter: which files are parsed at all. A file it drops is never read,
so every spelling of a knob the Python pass understands must pass it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detlint.readers.python.prefilter import REASON_WINDOW, Prefilter, rewraps


@pytest.mark.parametrize(
    "source",
    [
        b"@pytest.mark.flaky(reruns=2)\ndef test_a(): ...\n",
        b"pytestmark = pytest.mark.xfail(strict=False)\n",
        b"from tenacity import retry\n",
        b"@backoff.on_exception(backoff.expo, OSError)\n",
        b"item.add_marker(mark)\n",
        b"@pytest.mark.quarantined\n",
        b'@pytest.mark.skip(reason="Flaky on CI")\n',
        b'@unittest.skipIf(True, "INTERMITTENT timeout")\n',
        b"@pytest.mark.skip  # nondeterministic ordering\n",
        b'pytest.skip(\n    "the\\n"\n    "race condition in the allocator"\n)\n',
    ],
)
def test_every_knob_spelling_passes(source):
    assert Prefilter().wants(source)


@pytest.mark.parametrize(
    "source",
    [
        b"def test_plain():\n    assert 1 + 1 == 2\n",
        b'@pytest.mark.skipif(sys.platform == "win32", reason="posix only")\n',
        # A flaky-sounding word far from any skip is not a skip reason.
        b"@pytest.mark.skip\ndef test_a(): ...\n" + b"#" * REASON_WINDOW + b"\n# sporadic\n",
        b"def test_accuracy():\n    assert accuracy > 0.9\n",
    ],
)
def test_files_without_a_knob_are_dropped(source):
    assert not Prefilter().wants(source)


def test_configured_names_are_searched_as_written():
    prefilter = Prefilter(extra=(b"RerunOnGpu",))
    assert prefilter.wants(b"@RerunOnGpu(3)\ndef test_a(): ...\n")
    assert not prefilter.wants(b"@reRunOnGpu(3)\ndef test_a(): ...\n")


def test_trial_loops_pass_only_when_asked():
    source = b'N = int(os.getenv("N", "5"))\nfor _ in range(N):\n    pass\n'
    assert not Prefilter().wants(source)
    assert Prefilter(trials=True).wants(source)


def test_pipeline_variables_count_only_in_files_that_read_the_environment():
    prefilter = Prefilter(variables=(b"GPU_TRIALS",), readers=(b"get_int",))
    named_only = b'JUNIT = "--junitxml=GPU_TRIALS.xml"\ndef test_x():\n    pass\n'
    assert not prefilter.wants(named_only)
    read = b'import os\nN = int(os.getenv("GPU_TRIALS", "20"))\n'
    assert prefilter.wants(read)
    by_reader = b'from ourlib.env import get_int\nN = get_int("GPU_TRIALS", 20)\n'
    assert prefilter.wants(by_reader)
    # Another variable's read does not make this file a candidate.
    assert not prefilter.wants(b'import os\nN = int(os.getenv("OTHER", "2"))\n')
    # Inside a candidate file, a block that names the variable is kept whoever reads it.
    assert prefilter.wants_block('def trials():\n    return helper("GPU_TRIALS")\n')
    assert not Prefilter().wants(read)


@given(
    st.lists(st.binary(min_size=1, max_size=6), min_size=1, max_size=8),
    st.binary(max_size=60),
)
def test_a_block_names_a_variable_exactly_when_it_holds_one(variables, block):
    """Many variables are searched in one scan; it must find what a search for each finds."""
    prefilter = Prefilter(variables=tuple(variables))
    names_one = any(variable in block for variable in variables)
    assert prefilter._knob(block, whole=False) == (names_one or Prefilter()._knob(block))


@pytest.mark.parametrize(
    "source",
    [
        b"@rerun_on_failure(3)\ndef test_a(): ...\n",
        b"@with_retries(3)\ndef test_a(): ...\n",
    ],
)
def test_the_names_repositories_give_their_retry_decorators_are_knob_tokens(source):
    assert Prefilter().wants(source)


@pytest.mark.parametrize(
    ("source", "wraps"),
    [
        (b"for name in FLAKY:\n    setattr(TestA, name, retry(getattr(TestA, name)))\n", True),
        (b"test_a = retry(test_a)\n", True),
        (b"TestA.test_a = flaky(max_runs=3)(TestA.test_a)\n", True),
        (b"def test_a(monkeypatch):\n    monkeypatch.setattr(os, 'sep', '/')\n", False),
        (b"value = compute(other)\n", False),
    ],
)
def test_modules_that_wrap_tests_by_name_are_told_apart(source, wraps):
    assert rewraps(source) is wraps


def test_a_file_that_runs_pytest_on_itself():
    from detlint.readers.python.prefilter import runs_itself

    assert runs_itself(b'if __name__ == "__main__":\n    pytest.main([__file__, "-v"])\n')
    assert runs_itself(b'sys.exit(pytest.main(["-v", f"{__file__}::Test"]))\n')
    assert not runs_itself(b'pytest.main(["tests"])\nprint(__file__)\n')
    assert not runs_itself(b"here = __file__\n")
