"""Loops whose iterations run code between their checks, and loops detlint cannot count.

Distilled from testplan's ``test_start_stop`` (``for _ in range(5): with proc_pool:
...``: each iteration starts and stops a pool, then checks its status and
``current_proc.children()``, five trials of a race) and nessai's ``test_sample``
(``for s in samples.T:`` a KS test on each column of an array a fixture sizes: each
column can fail the test, their number is not in the code). A loop that only looks
again at one result, or only collects values for one check after it, stays one
check.
"""

from __future__ import annotations

import pytest
from realworld_cases import RERUNFAILURES, audit, check, one_test, only

HEADER = "import statistics\n\nimport numpy as np\nimport pytest\nimport torch\n"
NO_LOOP = "1 attempt, no trial loop recognised"


def _det101(tmp_path, body: str, *, asynchronous: bool = False) -> dict:
    """DET101 on a rerun-marked test with ``body`` (its first line is line 10)."""
    define = "async def" if asynchronous else "def"
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_loop.py": HEADER
            + f"\n\n@pytest.mark.flaky(reruns=1)\n{define} test_loop(items, pool):\n"
            + "".join(f"    {line}\n" for line in body.strip("\n").split("\n")),
        },
    )
    return only(document, "DET101")


def _trials(tmp_path, body: str, *, asynchronous: bool = False) -> str:
    """The trial phrase DET101 quotes, after the plugin's place."""
    message = _det101(tmp_path, body, asynchronous=asynchronous)["message"]
    phrase = message.split("requirements-test.txt:1; ", 1)[1]
    return phrase[: phrase.rindex(")")]


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        # testplan: the `with` starts and stops the pool; the checks read it afterwards.
        (
            """
current_proc = psutil.Process()
start_children = current_proc.children()
for _ in range(5):
    with pool:
        assert pool.status == pool.status.STARTED
        assert len(current_proc.children()) == len(start_children) + 2
    assert pool.status == pool.status.STOPPED
    assert len(current_proc.children()) == len(start_children)
""",
            "5 trials (literal loop bound)",
        ),
        # A call made as a statement between the checks restarts what they read.
        (
            "for _ in range(4):\n    pool.restart()\n    assert pool.status == READY",
            "4 trials (literal loop bound)",
        ),
        # A name bound to what a call returns, though the check reads another.
        (
            "for _ in range(3):\n    handle = pool.submit(job)\n    assert pool.idle == 0",
            "3 trials (literal loop bound)",
        ),
        # Output, a list the test fills and a scope that checks run no code under test.
        (
            "out = kernel(items)\nfor _ in range(3):\n    print(out)\n    assert out.status == 1",
            NO_LOOP,
        ),
        (
            "out = kernel(items)\nseen = []\nfor _ in range(3):\n    seen.append(1)\n"
            "    assert out.status == 1",
            NO_LOOP,
        ),
        (
            "out = kernel(items)\nfor _ in range(3):\n    with torch.no_grad():\n"
            "        assert torch.equal(out, REFERENCE)",
            NO_LOOP,
        ),
        # Parts of one result computed before the loop, nothing called in between.
        (
            "out = model(items)\nreloaded = reload(model)(items)\nfor i in range(2):\n"
            "    assert out[i] == reloaded[i]",
            NO_LOOP,
        ),
        ("out = kernel(items)\nfor _ in range(3):\n    assert out.status == 1", NO_LOOP),
        # The lines of one output, each trimmed and compared: parts of one result.
        (
            "out = run(cmd).stdout.splitlines()\nfor got, want in zip(out, EXPECTED):\n"
            "    got = got.rstrip()\n    want = want.removesuffix(' ')\n    assert got == want",
            NO_LOOP,
        ),
        # A line the iteration runs code to get is a fresh result.
        (
            "for want in EXPECTED:\n    got = run(cmd).stdout.rstrip()\n    assert got == want",
            "the loop over `EXPECTED` (line 10) checks each item; detlint cannot count them, "
            "so the figures are per item checked",
        ),
    ],
)
def test_code_run_between_checks_makes_trials(tmp_path, body, trials):
    assert _trials(tmp_path, body) == trials


def test_an_await_between_checks_makes_trials(tmp_path):
    body = "for _ in range(6):\n    await pool.reconnect()\n    assert pool.connected"
    assert _trials(tmp_path, body, asynchronous=True) == "6 trials (literal loop bound)"


@pytest.mark.parametrize(
    ("body", "trials"),
    [
        # nessai: the columns of an array a fixture sizes, each KS-tested.
        (
            """
samples = pool.sample(1000).numpy()
for s in samples.T:
    _, p = stats.kstest(s, stats.norm().cdf)
    assert p > 0.05
""",
            "the loop over `samples.T` (line 11) checks each item; detlint cannot count them,"
            " so the figures are per item checked",
        ),
        # A range whose bound detlint does not follow.
        (
            "for _ in range(pool.size):\n    assert run() == 1",
            "the loop over `range(pool.size)` (line 10) checks each iteration; detlint cannot"
            " count them, so the figures are per iteration checked",
        ),
        # A comprehension that `all` requires of every item.
        (
            "assert all(run(x) == 1 for x in items)",
            "the loop over `items` (line 10) checks each item; detlint cannot count them,"
            " so the figures are per item checked",
        ),
        # Collected for one check of an aggregate after the loop: one check.
        (
            "results = []\nfor x in items:\n    results.append(run(x))\n"
            "assert statistics.mean(results) > 0.5",
            NO_LOOP,
        ),
        # The parts of one result, looked at again: one check.
        (
            "out = model(items)\nfor name, p in out.named_parameters():\n"
            "    assert torch.isfinite(p).all(), name",
            NO_LOOP,
        ),
        # A retry: a failing iteration is caught and tried again, it fails nothing.
        (
            "for attempt in items:\n    try:\n        assert run() == 1\n        break\n"
            "    except AssertionError:\n        pass",
            NO_LOOP,
        ),
        # Cases written out in the test: named with their count, the figures per case.
        (
            "for zoom in (0.2, 1.0, 4.0):\n    pool.zoom(zoom)\n    assert pool.visible()",
            "the loop over `(0.2, 1.0, 4.0)` (line 10) checks each of its 3 cases; the figures"
            " are per case checked",
        ),
        (
            "for i, app in enumerate(['app1', 'app2']):\n    assert deploy(app).healthy",
            "the loop over `enumerate(['app1', 'app2'])` (line 10) checks each of its 2 cases;"
            " the figures are per case checked",
        ),
        # Patterns searched for in one text: one result looked at again.
        (
            "text = render(pool)\nfor pattern in items:\n"
            "    match = re.search(pattern=pattern, string=text)\n    assert match is not None",
            NO_LOOP,
        ),
        ("assert all(isinstance(x, Task) for x in items)", NO_LOOP),
        # ray: the parts of one reply, each as a dict.
        (
            "details = fetch(pool)\nfor deployment in details.deployments.values():\n"
            "    assert deployment.status == HEALTHY\n"
            "    assert 'route_prefix' not in deployment.config.dict(exclude_unset=True)",
            NO_LOOP,
        ),
        # A loop in a function the test defines is that function's.
        (
            "def check_all(values):\n    assert all(run(v) for v in values)\n\npool.start()",
            NO_LOOP,
        ),
        # A poll that sleeps waits for something.
        (
            "for host in items:\n    time.sleep(0.1)\n    assert ping(host)",
            NO_LOOP,
        ),
    ],
)
def test_a_loop_detlint_cannot_count_is_named(tmp_path, body, trials):
    assert _trials(tmp_path, body) == trials


def test_the_figures_and_advice_are_per_item_checked(tmp_path):
    """One item checked, at the reference rate: a 10% violation seen 10.0% of the time
    without the rerun, 1.0% with one (both attempts must fail it), and 29 checks of
    each item reach 95% (1 - 0.9**29 = 95.3%)."""
    finding = _det101(
        tmp_path, "for s in pool.sample(1000).T:\n    assert stats.kstest(s).pvalue > 0.05"
    )
    assert finding["message"] == (
        "rerun marker hides intermittent failures: a 10% violation is reported 1.0% of the"
        " time instead of 10.0% (reruns=1; pytest-rerunfailures==16.7 from"
        " requirements-test.txt:1; the loop over `pool.sample(1000).T` (line 10) checks each"
        " item; detlint cannot count them, so the figures are per item checked)"
    )
    assert finding["help"].startswith(
        "drop the marker and run 29 trials of each check the loop on line 10 makes per attempt"
        " (reports a 10% violation 95% of the time)"
    )


def test_the_quarantine_message_says_the_same(tmp_path):
    """testplan's `pytest.xfail()` before the loop: the five trials it skips would have
    reported a 10% violation 1 - 0.9**5 = 41.0% of the time."""
    document = check(
        tmp_path,
        {
            "tests/test_pool.py": """import platform

import pytest


def test_start_stop(proc_pool):
    if platform.system() == "Windows":
        pytest.xfail("ProcPool start/stop is unstable on Windows")
    for _ in range(5):
        with proc_pool:
            assert proc_pool.status == proc_pool.status.STARTED
        assert proc_pool.status == proc_pool.status.STOPPED


def test_columns(samples):
    if platform.system() == "Windows":
        pytest.xfail("unstable on Windows")
    for s in samples.T:
        assert kstest(s).pvalue > 0.05
""",
        },
    )
    messages = {f["line"]: f["message"] for f in document["findings"] if f["code"] == "DET201"}
    assert messages[8].endswith("(was reported 41.0%; 5 trials (literal loop bound))")
    assert messages[17].endswith(
        "(was reported 10.0%; the loop over `samples.T` (line 18) checks each item; detlint"
        " cannot count them, so the figures are per item checked)"
    )


def test_the_audit_names_the_loop(tmp_path):
    document = audit(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_columns.py": """import pytest


@pytest.mark.flaky(reruns=1)
def test_columns(samples):
    for s in samples.T:
        assert kstest(s).pvalue > 0.05
""",
        },
    )
    trials = one_test(document, "test_columns")["trials"]
    assert trials["count"] == 1
    assert trials["line"] is None
    assert trials["origin"] == (
        "the loop over `samples.T` (line 6) checks each item; detlint cannot count them,"
        " so the figures are per item checked"
    )
