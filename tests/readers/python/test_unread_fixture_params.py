"""Test instances where fixtures detlint cannot read may parametrize a test: the count
it prints is then a lower bound ("at least 5 test instances"), or nothing, never an
exact number it cannot stand behind.

Distilled from osparc-simcore: services/autoscaling/tests/unit/conftest.py holds
fixtures with ``params`` (two of them, one reached through a chain of fixtures) but
uses syntax this Python cannot parse; a retried test with five ``pytest.param`` cases
requests both and runs 5 x 2 x 2 = 20 times, not 5. In services/director-v2 a retried
test that is not parametrized at all requests a fixture of a plugin detlint cannot
see (``docker_swarm``) in a module whose other tests use a parametrized fixture: the
plugin's fixture may request it, so detlint cannot say it runs once, but nothing says
it is parametrized either. The exact counts of the parsed conftest.py are what
``pytest --collect-only`` collects from the same files.
"""

from __future__ import annotations

from realworld_cases import FLAKY, check, findings

# Read: `with_drain` (2 params) directly, `joined` (2 params) through `configured`.
CONFTEST = """\
    import pytest


    @pytest.fixture(params=[True, False])
    def with_drain(request):
        return request.param


    @pytest.fixture(params=["joined", "not-joined"])
    def joined(request):
        return request.param


    @pytest.fixture
    def app(joined):
        return joined


    @pytest.fixture
    def configured(app, tmp_path):
        return app
"""

TESTS = """\
    import pytest


    @pytest.mark.flaky(max_runs=3)
    @pytest.mark.parametrize(
        "case",
        [pytest.param(1), pytest.param(2), pytest.param(3), pytest.param(4), pytest.param(5)],
    )
    def test_scaling(configured, with_drain, case):
        assert case


    @pytest.mark.flaky(max_runs=3)
    def test_single(tmp_path):
        assert tmp_path
"""

# The same conftest.py with a statement no Python parses: its fixtures are unseen.
UNREADABLE = CONFTEST.replace("import pytest\n", "import pytest\n\n    def broken(:\n")

# A conftest.py of a sibling directory reaches none of these tests.
SIBLING = """\
    import pytest


    @pytest.fixture(params=[1, 2, 3])
    def with_drain(request):
        return request.param
"""

DOCKER_TESTS = """\
    import pytest


    @pytest.fixture(params=["a", "b"])
    def labels_example(request):
        return request.param


    @pytest.fixture
    def scheduler_data(labels_example):
        return labels_example


    @pytest.fixture
    def service_name():
        return "mock-service-name"


    def test_labels(scheduler_data):
        assert scheduler_data


    @pytest.mark.flaky(max_runs=3)
    async def test_out_of_sequence(service_name, docker_swarm):
        assert service_name


    @pytest.mark.flaky(max_runs=3)
    @pytest.mark.parametrize("n", [1, 2, 3])
    async def test_three(service_name, docker_swarm, n):
        assert n
"""

TAIL = "1 attempt, no trial loop recognised"


def _found(tmp_path, conftest):
    document = check(
        tmp_path,
        {
            **FLAKY,
            "tests/unit/conftest.py": conftest,
            "tests/unit/test_scaling.py": TESTS,
            "tests/other/conftest.py": SIBLING,
            "tests/other/test_docker.py": DOCKER_TESTS,
        },
    )
    return {(f["path"].rsplit("/", 1)[-1], f["line"]): f for f in findings(document, "DET101")}


def test_params_of_a_parsed_conftest_multiply_the_count(tmp_path):
    found = _found(tmp_path, CONFTEST)
    scaling = found[("test_scaling.py", 4)]
    assert scaling["numbers"]["instances"] == 20
    assert scaling["message"].endswith(f"{TAIL}; covers 20 test instances)")
    single = found[("test_scaling.py", 13)]
    assert single["numbers"]["instances"] == 1
    assert single["message"].endswith(f"{TAIL})")


def test_an_unreadable_conftest_makes_the_count_a_lower_bound(tmp_path):
    found = _found(tmp_path, UNREADABLE)
    scaling = found[("test_scaling.py", 4)]
    assert scaling["numbers"]["instances"] is None
    assert scaling["message"].endswith(f"{TAIL}; covers at least 5 test instances)")
    # One instance at least: the message counts none.
    single = found[("test_scaling.py", 13)]
    assert single["numbers"]["instances"] is None
    assert single["message"].endswith(f"{TAIL})")


def test_a_plugin_fixture_that_may_request_a_used_parametrized_one_says_no_count(tmp_path):
    found = _found(tmp_path, CONFTEST)
    # `labels_example` serves the module's own fixtures; the unseen `docker_swarm` only
    # may request it, so the test is not said to be parametrized.
    alone = found[("test_docker.py", 23)]
    assert alone["numbers"]["instances"] is None
    assert alone["message"].endswith(f"{TAIL})")
    three = found[("test_docker.py", 28)]
    assert three["numbers"]["instances"] is None
    assert three["message"].endswith(f"{TAIL}; covers at least 3 test instances)")
