"""DET103 on a retried function a test calls when the test also runs a trial loop of
its own checks, shaped on bittensor's e2e test_set_weights.py: a function defined in
the test under ``@retry.retry(tries=3)`` holds one check, and a loop after it checks
each subnet. An attempt count would describe the retried check, not the loop's: the
retry is named without a figure, never left out.
"""

from __future__ import annotations

from realworld_cases import check, findings

TESTS = """\
import retry

SUBNETS = 2


def test_loop_calls_it(sub):
    @retry.retry(exceptions=Exception, tries=3, delay=1)
    def set_weights(netuid):
        assert sub.set(netuid) is True

    for mechid in range(SUBNETS):
        for sn in sub.nets:
            set_weights(sn)
        for sn in sub.nets:
            assert sub.weights(sn) == [1]


def test_once_beside_a_trial_loop(sub):
    @retry.retry(exceptions=Exception, tries=3, delay=1)
    def set_weights(netuid):
        assert sub.set(netuid) is True

    set_weights(1)
    for trial in range(20):
        assert sub.weights(trial) == [1]
"""


def test_a_retry_beside_a_trial_loop_is_named_without_a_figure(tmp_path):
    repository = {"requirements-test.txt": "pytest\nretry==0.9.2\n", "tests/test_w.py": TESTS}
    found = findings(check(tmp_path, repository), "DET103")
    assert [f["line"] for f in found] == [7, 19]
    looped, beside = (f["message"] for f in found)
    assert (
        "not judged: it retries each call of set_weights on its own, and the test calls it "
        "in a loop" in looped
    )
    assert beside.startswith(
        "retry decorator retry.retry (tests/test_w.py:19) not judged: the test also runs a "
        "trial loop (line 24) whose checks it does not retry the same way: one attempt "
        "count does not describe the test, so no figure"
    )


ONCE = """\
import retry


def test_once(sub):
    @retry.retry(exceptions=Exception, tries=3, delay=1)
    def set_weights(netuid):
        assert sub.set(netuid) is True

    set_weights(1)
"""


def test_without_a_trial_loop_the_retry_keeps_its_figure(tmp_path):
    repository = {"requirements-test.txt": "pytest\nretry==0.9.2\n", "tests/test_w.py": ONCE}
    (found,) = findings(check(tmp_path, repository), "DET103")
    assert found["line"] == 5
    assert (
        "a 10% violation is reported 0.10% of the time instead of 10.0% (3 attempts"
        in (found["message"])
    )
