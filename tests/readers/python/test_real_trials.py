"""Trial loops that are trials: each iteration can fail the test on what it computed.

Distilled from vllm's needle test (a loop of prompts that builds one batch, inside a
loop of trials), ipython/ipykernel test_subprocess_print (`for n in range(np):
assert stdout.count(str(n)) == 1`, one output inspected five ways),
pytorch-lightning's profiler test (a setup loop), dask/distributed (polling loops
that sleep, `c.map(inc, range(N))`), spyder's test_goto_find (the loop variable picks
each case checked) and pytorch/ao's training loop (a checked step per iteration).
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, check, only


def _trials(tmp_path, body: str, helpers: str = "") -> str:
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_loop.py": "import os\nimport random\n\nimport pytest\n"
            + helpers
            + "\n\n@pytest.mark.flaky(reruns=1)\ndef test_loop():\n"
            + "".join(f"    {line}\n" for line in body.strip("\n").split("\n")),
        },
    )
    return only(document, "DET101")["message"]


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        # vllm: the inner loop builds one batch, the outer one checks each trial.
        (
            """
n = int(os.getenv("NEEDLE_TRIALS", "5"))
baseline = generate([NEEDLE])
for _ in range(n):
    prompts = []
    for i in range(64):
        prompts.append(random_prompt(i))
    outputs = generate(prompts)
    assert outputs[0] == baseline
""",
            "5 trials from NEEDLE_TRIALS",
        ),
        # Counting the mismatches and failing once after the loop.
        (
            """
mismatches = 0
for _ in range(int(os.getenv("TRIALS", "7"))):
    if generate(batch()) != BASELINE:
        mismatches += 1
if mismatches:
    pytest.fail(f"{mismatches} mismatches")
""",
            "7 trials from TRIALS",
        ),
        # pytorch/ao: each training step is checked against the reference.
        (
            """
for step in range(5):
    loss = model(inputs(step))
    torch.testing.assert_close(loss, reference(step))
""",
            "5 trials (literal loop bound)",
        ),
        # A helper of this module that asserts, called in the loop.
        ("for _ in range(4):\n    check_once()", "4 trials (literal loop bound)"),
        # ipykernel: one output, inspected five ways.
        (
            """
stdout = run_subprocesses(5)
for n in range(5):
    assert stdout.count(str(n)) == 1
""",
            "1 attempt, no trial loop recognised",
        ),
        # pytorch-lightning: a setup loop, then one check.
        (
            """
for _ in range(5):
    with profiler.profile("no-op"):
        pass
assert average_duration(profiler) < MAX
""",
            "1 attempt, no trial loop recognised",
        ),
        # distributed: a polling loop that waits, with a deadline.
        (
            """
start = time()
for _ in range(100):
    sleep(0.01)
    assert time() < start + 5
""",
            "1 attempt, no trial loop recognised",
        ),
        # distributed: a comprehension that builds data is no loop of trials.
        (
            "futures = [submit(inc, i) for i in range(256)]\nassert gather(futures)",
            "1 attempt, no trial loop recognised",
        ),
        # ... but one inside the assert checks each trial.
        ("assert all(run() == 1 for _ in range(12))", "12 trials (literal loop bound)"),
        # spyder test_goto_find: the loop variable picks the item checked, five cases.
        (
            """
for i in range(5):
    item = results.child(i)
    activate(item)
    position = cursor_position()
    assert position == match_positions[i]
""",
            "1 attempt, no trial loop recognised",
        ),
        # A loop that checks nothing it computed.
        ("for _ in range(10):\n    assert True", "1 attempt, no trial loop recognised"),
    ],
)
def test_what_counts_as_a_trial_loop(tmp_path, body, trials):
    helpers = "\n\ndef check_once():\n    assert run() == 1\n"
    assert f"; {trials})" in _trials(tmp_path, body, helpers)
