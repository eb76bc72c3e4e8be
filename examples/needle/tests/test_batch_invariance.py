"""A batch-invariance check of the kind detlint was built for.

The test runs NEEDLE_TRIALS trials and fails if any trial's output differs
between batch sizes. After one red CI run that passed on rerun, a rerun marker
was added; `detlint power --trials 5 --reruns 3` shows what that marker costs.
Like most real GPU tests it does not run everywhere: where it is skipped, it
reports nothing, and detlint quotes its numbers for where it runs.
"""

import os
import random
import sys

import pytest

NEEDLE_TRIALS = int(os.getenv("NEEDLE_TRIALS", "5"))


def generate(prompt: str, batch_size: int) -> str:
    """Stand-in for a model call whose output must not depend on the batch size."""
    return prompt.upper()


@pytest.mark.skipif(sys.platform == "darwin", reason="needs CUDA")
@pytest.mark.flaky(reruns=3)
@pytest.mark.parametrize("backend", ["FLASH_ATTN", "FLEX_ATTENTION"])
def test_generation_is_deterministic_across_batch_sizes(backend: str) -> None:
    needle = f"needle for {backend}"
    expected = generate(needle, batch_size=1)
    for _ in range(NEEDLE_TRIALS):
        batch_size = random.randint(2, 64)
        assert generate(needle, batch_size=batch_size) == expected
