import os
from pathlib import Path

import pytest


@pytest.mark.flaky(reruns=3)
def test_kernel():
    """Fails its first attempt in the builds FLAKY_BUILDS names (the schedule of a
    rare race), and passes on the rerun."""
    counter = Path(os.environ["ATTEMPTS"])
    attempt = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(attempt))
    failing = {int(b) for b in os.environ["FLAKY_BUILDS"].split(",")}
    assert not (int(os.environ["BUILD"]) in failing and attempt == 1)


def test_steady():
    assert True
