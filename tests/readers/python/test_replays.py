"""What a test's attempts replay: a seed set to a fixed value before the code under test
runs, or recorded responses; and what is not a replay (a varying seed, a seed after other
work, one inside a loop, a module-scoped fixture, a cassette recorded anew).

Each case is a test module read by ``scan_module``; the conftest.py cases run the whole
Python pass on a repository, since a conftest fixture is looked up across files.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from detlint.base.span import Span
from detlint.readers.python.facts import ModuleFacts, Replay
from detlint.readers.python.module_scan import scan_module
from detlint.readers.python.options import ScanOptions
from detlint.readers.python.prefilter import Prefilter
from detlint.readers.python.repository import PythonRepository

HEADER = """\
import os
import random
import time

import jax
import numpy as np
import pytest
import tensorflow as tf
import torch
from lightning import seed_everything
from transformers import set_seed

SEED = 1234
NAME = "x"
"""
HEADER_LINES = HEADER.count("\n")


def replay_of(body: str, extra: str = "") -> Replay | None:
    """The replay of ``test_it``, written after ``extra`` in a module with HEADER."""
    text = HEADER + textwrap.dedent(extra) + "\n\n" + textwrap.dedent(body)
    facts, _ = scan_module("tests/test_mod.py", text, ScanOptions())
    (test,) = [t for t in facts.tests if t.name == "test_it"]
    return test.replays


def line_of(text: str, body: str, extra: str = "") -> int:
    """The line of ``text`` in the module ``replay_of`` builds."""
    module = HEADER + textwrap.dedent(extra) + "\n\n" + textwrap.dedent(body)
    return next(n for n, line in enumerate(module.split("\n"), 1) if text in line)


SEEDED = [
    ("random.seed(0)", "random.seed(0)"),
    ("np.random.seed(42)", "np.random.seed(42)"),
    ("rng = np.random.default_rng(0)", "np.random.default_rng(0)"),
    ("rng = np.random.RandomState(seed=3)", "np.random.RandomState(seed=3)"),
    ("torch.manual_seed(0)", "torch.manual_seed(0)"),
    ("torch.cuda.manual_seed_all(1)", "torch.cuda.manual_seed_all(1)"),
    ("g = torch.Generator().manual_seed(5)", "torch.Generator().manual_seed(5)"),
    ("tf.random.set_seed(7)", "tf.random.set_seed(7)"),
    ("key = jax.random.PRNGKey(0)", "jax.random.PRNGKey(0)"),
    ("set_seed(0)", "set_seed(0)"),
    ("seed_everything(42, workers=True)", "seed_everything(42, workers=True)"),
    ("torch.manual_seed(SEED)", "torch.manual_seed(SEED)"),  # a module constant
    ("r = random.Random(-1)", "random.Random(-1)"),
]


@pytest.mark.parametrize(("statement", "code"), SEEDED)
def test_each_seeding_spelling_at_the_start_of_the_body_is_a_replay(statement, code):
    body = f'''
    def test_it():
        """What it checks."""
        {statement}
        assert compute() == expected()
    '''
    found = replay_of(body)
    line = line_of(statement, body)
    assert found is not None
    assert (found.kind, found.code, found.reach, found.via) == ("seed", code, "body", "")
    assert found.span.line == line
    assert found.describe("tests/test_mod.py") == f"`{code}` on line {line}"


@pytest.mark.parametrize(
    "body",
    [
        # Guards and literal set-up may come first: they cannot have drawn.
        """
        def test_it():
            import torch.nn as nn
            n = 5
            if not torch.cuda.is_available():
                pytest.skip("needs a GPU")
            torch.manual_seed(0)
        """,
        # A seed bound to a local literal first.
        """
        def test_it():
            seed = 11
            torch.manual_seed(seed)
        """,
        # A seed given by keyword.
        """
        def test_it():
            set_seed(seed=3)
        """,
    ],
)
def test_what_may_come_before_the_seed(body):
    found = replay_of(body)
    assert found is not None
    assert found.kind == "seed"


@pytest.mark.parametrize(
    "body",
    [
        # Seeded after randomized work: the first draw was not fixed.
        """
        def test_it():
            x = torch.randn(3)
            torch.manual_seed(0)
        """,
        # From the clock, the OS, a parameter, an attribute that moves, nothing at all.
        """
        def test_it():
            random.seed(time.time())
        """,
        """
        def test_it():
            random.seed(os.urandom(8))
        """,
        """
        def test_it(value):
            torch.manual_seed(value)
        """,
        """
        @pytest.mark.parametrize("seed", [0, 1, 2])
        def test_it(seed):
            torch.manual_seed(seed)
        """,
        """
        def test_it(self):
            self.SEED += 1
            torch.manual_seed(self.SEED)
        """,
        """
        def test_it():
            random.seed()
        """,
        """
        def test_it():
            np.random.seed(None)
        """,
        """
        def test_it():
            torch.manual_seed(NAME)
        """,
        # Inside the trial loop with the loop variable: each trial draws anew.
        """
        def test_it():
            for i in range(5):
                torch.manual_seed(i)
                assert check()
        """,
        # Inside a branch: it may not run.
        """
        def test_it():
            if os.environ.get("DETERMINISTIC"):
                torch.manual_seed(0)
        """,
        # A local variable rebound from a call before the seed.
        """
        def test_it():
            seed = int(time.time())
            torch.manual_seed(seed)
        """,
    ],
)
def test_what_is_not_a_replay(body):
    assert replay_of(body) is None


def test_a_helper_called_first_that_seeds_with_the_fixed_value_it_is_given():
    extra = """
    def _seed_all(seed, cuda=True):
        random.seed(seed)
        torch.manual_seed(seed)
    """
    body = """
    def test_it():
        _seed_all(SEED)
    """
    found = replay_of(body, extra)
    assert found is not None
    assert (found.code, found.reach, found.via) == (
        "_seed_all(SEED)",
        "body",
        "which runs `random.seed(seed)`",
    )
    assert found.span.line == line_of("_seed_all(SEED)", body, extra)
    # The same helper given what varies is no replay.
    assert replay_of("def test_it(n):\n    _seed_all(n)\n", extra) is None


def test_a_skip_guard_helper_called_first_does_not_hide_the_seed_after_it():
    """Megatron-LM's test_dsa_native_parity: `_skip_if_fused_dsa_unavailable()` then
    `torch.manual_seed(1234)`."""
    extra = """
    def _skip_if_unavailable():
        if not torch.cuda.is_available():
            pytest.skip("no CUDA")
    """
    body = """
    def test_it():
        _skip_if_unavailable()
        torch.manual_seed(1234)
        torch.cuda.manual_seed(1234)
    """
    found = replay_of(body, extra)
    assert found is not None
    assert found.code == "torch.manual_seed(1234)"


def test_a_function_scoped_fixture_seeds_every_attempt_a_module_scoped_one_does_not():
    extra = """
    @pytest.fixture
    def seeded():
        torch.manual_seed(0)
        yield

    @pytest.fixture(scope="module")
    def seeded_once():
        torch.manual_seed(0)

    @pytest.fixture(scope="function")
    def rng():
        return np.random.default_rng(7)
    """
    found = replay_of("def test_it(seeded):\n    pass\n", extra)
    assert found is not None
    assert (found.code, found.reach, found.via) == (
        "torch.manual_seed(0)",
        "setup",
        "in fixture `seeded`",
    )
    assert replay_of("def test_it(seeded_once):\n    pass\n", extra) is None
    found = replay_of("def test_it(rng):\n    assert rng.random() < 1\n", extra)
    assert found is not None
    assert (found.code, found.via) == (
        "np.random.default_rng(7)",
        "in fixture `rng`",
    )
    used = '@pytest.mark.usefixtures("seeded")\ndef test_it():\n    pass\n'
    assert replay_of(used, extra) is not None


def test_an_autouse_fixture_of_the_module_or_the_class_and_setup_methods():
    autouse = """
    @pytest.fixture(autouse=True)
    def _seed():
        random.seed(0)
    """
    found = replay_of("def test_it():\n    pass\n", autouse)
    assert found is not None
    assert found.via == "in autouse fixture `_seed`"
    cls = """
    class TestIt:
        def setup_method(self, method):
            np.random.seed(3)

        def test_it(self):
            pass
    """
    facts, _ = scan_module("tests/test_mod.py", HEADER + textwrap.dedent(cls), ScanOptions())
    (test,) = facts.tests
    assert test.replays is not None
    assert test.replays.via == "in `setup_method`"
    assert test.replays.reach == "setup"


@pytest.mark.parametrize(
    ("source", "code", "reach"),
    [
        ("@pytest.mark.vcr\ndef test_it():\n    pass\n", "@pytest.mark.vcr", "setup"),
        (
            "@pytest.mark.vcr()\ndef test_it():\n    pass\n",
            "@pytest.mark.vcr()",
            "setup",
        ),
        (
            'import vcr\n@vcr.use_cassette("fixtures/x.yaml")\ndef test_it():\n    pass\n',
            '@vcr.use_cassette("fixtures/x.yaml")',
            "setup",
        ),
        (
            'def test_it():\n    with my_vcr.use_cassette("x.yaml"):\n        pass\n',
            'my_vcr.use_cassette("x.yaml")',
            "body",
        ),
        ("def test_it(betamax_session):\n    pass\n", "betamax_session", "setup"),
        (
            "pytestmark = [pytest.mark.vcr]\n\ndef test_it():\n    pass\n",
            "pytest.mark.vcr",
            "setup",
        ),
    ],
)
def test_recordings(source, code, reach):
    found = replay_of(source)
    assert found is not None
    assert (found.kind, found.code, found.reach) == ("recording", code, reach)


def test_a_cassette_recorded_anew_replays_nothing():
    assert replay_of('@pytest.mark.vcr(record_mode="all")\ndef test_it():\n    pass\n') is None
    source = (
        'import vcr\n@vcr.use_cassette("x.yaml", record_mode="rewrite")\ndef test_it():\n    pass\n'
    )
    assert replay_of(source) is None


def _scan(root: Path, files: dict[str, str], path: str) -> ModuleFacts:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    repository = PythonRepository(root, root, ScanOptions(), Prefilter())
    facts = repository.scan(root / path)
    assert isinstance(facts, ModuleFacts)
    return facts


def test_an_autouse_fixture_in_a_conftest_seeds_the_tests_it_reaches(tmp_path):
    """The test module holds no seed token at all; the conftest.py two levels up does."""
    files = {
        "tests/conftest.py": """
        import pytest
        import torch

        @pytest.fixture(autouse=True)
        def deterministic():
            torch.manual_seed(0)
            torch.cuda.manual_seed_all(0)
        """,
        "tests/gpu/test_kernels.py": """
        import pytest

        @pytest.mark.flaky(reruns=2)
        def test_kernel():
            assert run() == 1
        """,
    }
    facts = _scan(tmp_path, files, "tests/gpu/test_kernels.py")
    (test,) = facts.tests
    assert test.replays == Replay(
        "seed",
        "torch.manual_seed(0)",
        Span("tests/conftest.py", 7, 5, 7, 25),
        "setup",
        "in autouse fixture `deterministic`",
    )
    assert test.replays.describe(test.path) == (
        "`torch.manual_seed(0)` on tests/conftest.py:7, in autouse fixture `deterministic`"
    )


def test_a_conftest_fixture_the_test_names_and_one_that_is_session_scoped(tmp_path):
    files = {
        "tests/conftest.py": """
        import pytest
        import numpy as np

        @pytest.fixture
        def rng():
            return np.random.default_rng(42)

        @pytest.fixture(scope="session", autouse=True)
        def seed_session():
            np.random.seed(0)
        """,
        "tests/test_stats.py": """
        import pytest

        @pytest.mark.flaky(reruns=2)
        def test_mean(rng):
            assert abs(rng.normal(size=100).mean()) < 0.5

        @pytest.mark.flaky(reruns=2)
        def test_other():
            assert True
        """,
    }
    facts = _scan(tmp_path, files, "tests/test_stats.py")
    by_name = {test.name: test.replays for test in facts.tests}
    assert by_name["test_mean"] is not None
    assert by_name["test_mean"].code == "np.random.default_rng(42)"
    assert by_name["test_mean"].via == "in fixture `rng`"
    assert by_name["test_other"] is None  # a session-scoped seed is set once


def test_a_seed_in_a_module_that_narrowing_would_cut_is_still_read(tmp_path):
    """A long module with one marked test: the body's seed survives (the file is read whole)."""
    filler = "".join(f"\n\ndef helper_{n}():\n    return {n}\n" for n in range(40))
    files = {
        "tests/test_long.py": "import pytest\nimport torch\n"
        + filler
        + "\n\n@pytest.mark.flaky(reruns=1)\ndef test_seeded():\n    torch.manual_seed(0)\n"
        + "    assert helper_1() == 1\n",
    }
    facts = _scan(tmp_path, files, "tests/test_long.py")
    (test,) = facts.tests
    assert test.replays is not None
    assert test.replays.code == "torch.manual_seed(0)"


def test_pytest_rngs_fixtures_when_nothing_of_the_project_defines_them(tmp_path):
    """pytest-rng 1.0's `rng` and `seed` are function-scoped and keyed on the test's node id
    (and a salt set once per run): the same on every rerun and every run."""
    files = {
        "tests/test_stats.py": """
        import pytest

        @pytest.mark.flaky(reruns=2)
        def test_mean(rng):
            assert abs(rng.normal(size=100).mean()) < 0.5

        @pytest.mark.flaky(reruns=2)
        def test_seeded(seed):
            assert draw(seed) < 1
        """,
    }
    facts = _scan(tmp_path, files, "tests/test_stats.py")
    by_name = {test.name: test.replays for test in facts.tests}
    assert by_name["test_mean"] == Replay(
        "seed",
        "rng",
        Span("tests/test_stats.py", 5, 5, 5, 14),
        "setup",
        "pytest-rng's fixture, seeded from the test's id",
        "pytest-rng",
    )
    mean = by_name["test_mean"]
    assert mean is not None
    assert mean.describe("tests/test_stats.py") == (
        "`rng` on line 5, pytest-rng's fixture, seeded from the test's id"
    )
    seeded = by_name["test_seeded"]
    assert seeded is not None
    assert seeded.plugin == "pytest-rng"


def test_a_conftest_rng_fixture_overrides_the_plugins(tmp_path):
    files = {
        "tests/conftest.py": """
        import numpy as np
        import pytest

        @pytest.fixture
        def rng():
            return np.random.default_rng()
        """,
        "tests/test_stats.py": """
        import pytest

        @pytest.mark.flaky(reruns=2)
        def test_mean(rng):
            assert abs(rng.normal(size=100).mean()) < 0.5
        """,
    }
    facts = _scan(tmp_path, files, "tests/test_stats.py")
    (test,) = facts.tests
    assert test.replays is None  # seeded from the OS: each rerun draws anew
