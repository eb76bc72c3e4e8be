"""Test instances that parametrized fixtures make: pytest runs a test once for every
combination of the params of the fixtures it requests, directly or through another
fixture, wherever pytest finds them (its class, its module, a conftest.py above it).

Distilled from real suites: a session fixture ``dsinfo`` with ``params=["synthetic",
"constant"]`` in test/conftest.py, requested through a fixture ``accuracy_test`` by a
test parametrized 2x2 (8 instances, not 4); a test taking fixtures ``flow`` (3 params)
and ``data_dim`` (2) (6 instances, not 1). Every count here is what ``pytest
--collect-only`` collects from the same files.
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, check, findings

CONFTEST = """\
    import pytest

    KINDS = ["synthetic", "constant"]


    @pytest.fixture(scope="session", params=KINDS)
    def dsinfo(request):
        return request.param


    @pytest.fixture
    def accuracy_test(dsinfo, tmp_path):
        return dsinfo
"""

TESTS = """\
    import pytest


    @pytest.fixture(params=[1, 2, 3], ids=["a", "b", "c"])
    def flow(request):
        return request.param


    @pytest.fixture(params=(2, 3))
    def data_dim(request):
        return request.param


    @pytest.mark.flaky(reruns=2)
    @pytest.mark.parametrize("a", [1, 2])
    @pytest.mark.parametrize("b", [1, 2])
    def test_accuracy(accuracy_test, a, b):
        assert accuracy_test


    @pytest.mark.flaky(reruns=2)
    def test_flow(flow, data_dim):
        assert flow
"""

# A nearer conftest.py overrides `dsinfo` with params of its own and requests the outer
# one by its own name: pytest parametrizes the name once, with the nearer params.
OVERRIDING_CONFTEST = """\
    import pytest


    @pytest.fixture(params=["a", "b", "c"])
    def dsinfo(request, dsinfo):
        return request.param
"""

SUB_TESTS = """\
    import pytest


    @pytest.fixture(params=[pytest.param(i) for i in range(4)])
    def odd(request):
        return request.param


    @pytest.fixture(params=make_params())
    def called(request):
        return request.param


    @pytest.mark.flaky(reruns=2)
    def test_nested(accuracy_test):
        assert accuracy_test


    @pytest.mark.flaky(reruns=2)
    def test_odd(odd):
        assert odd


    @pytest.mark.flaky(reruns=2)
    def test_called(called):
        assert called


    class TestKlass:
        @pytest.fixture(params=[1, 2])
        def accuracy_test(self, request):
            return request.param

        @pytest.mark.flaky(reruns=2)
        @pytest.mark.parametrize("dsinfo", [0])
        def test_in_class(self, accuracy_test, dsinfo):
            assert accuracy_test
"""

# The module overrides `dsinfo` without params: the conftest fixture that requests it
# gets the module's, so neither test is parametrized.
MODULE_OVERRIDE = """\
    import pytest


    @pytest.fixture
    def dsinfo():
        return 1


    @pytest.mark.flaky(reruns=2)
    def test_overridden(accuracy_test):
        assert accuracy_test


    @pytest.mark.flaky(reruns=2)
    @pytest.mark.usefixtures("dsinfo")
    def test_used():
        pass
"""

# Autouse fixtures join every closure: the module's (one requests the conftest's
# `dsinfo`, another a module fixture with params) and a conftest.py's (dask's
# `auto_shuffle_method`).
AUTOUSE_TESTS = """\
    import pytest


    @pytest.fixture(autouse=True)
    def auto_kind(dsinfo):
        yield


    @pytest.fixture(params=["disk", "tasks"])
    def shuffle_method(request):
        return request.param


    @pytest.fixture(autouse=True)
    def auto_shuffle_method(shuffle_method):
        yield


    @pytest.mark.flaky(reruns=2)
    @pytest.mark.parametrize("x", [1, 2, 3])
    def test_auto(x):
        assert x
"""

AUTOUSE_CONFTEST = """\
    import pytest


    @pytest.fixture(autouse=True, params=range(4))
    def backend(request):
        return request.param
"""

PLAIN_TEST = """\
    import pytest


    @pytest.mark.flaky(reruns=2)
    def test_plain():
        assert True
"""

# xarray's `ZARR_FORMATS`: [2, 3] where zarr imports, [] otherwise; the count depends on
# the environment. Branches that bind as many values count.
BRANCHES = """\
    import pytest

    try:
        import zarr

        ZARR_FORMATS = [2, 3]
        ENGINES = ["a", "b"]
    except ImportError:
        ZARR_FORMATS = []
        ENGINES = ["c", "d"]


    @pytest.fixture(scope="module", params=ZARR_FORMATS)
    def default_zarr_format(request):
        yield


    @pytest.fixture(params=ENGINES)
    def engine(request):
        return request.param


    @pytest.mark.usefixtures("default_zarr_format")
    class TestZarr:
        @pytest.mark.flaky(reruns=2)
        def test_zarr(self):
            pass


    @pytest.mark.flaky(reruns=2)
    def test_engine(engine):
        pass
"""

# jupyter_server's tests request the plugin fixture `jp_fetch`, which requests the
# module's `jp_argv` (2 params): detlint cannot see the plugin, so it cannot count.
PLUGIN_TESTS = """\
    import pytest


    @pytest.fixture(params=["FileContentsManager", "AsyncFileContentsManager"])
    def jp_argv(request):
        return [request.param]


    @pytest.mark.flaky(reruns=2)
    async def test_copy(jp_fetch, tmp_path):
        assert jp_fetch


    @pytest.mark.flaky(reruns=2)
    def test_builtin_only(tmp_path, monkeypatch):
        assert tmp_path
"""


def _repository(tmp_path):
    return check(
        tmp_path,
        {
            **RERUNFAILURES,
            "test/conftest.py": CONFTEST,
            "test/test_acc.py": TESTS,
            "test/sub/conftest.py": OVERRIDING_CONFTEST,
            "test/sub/test_over.py": SUB_TESTS,
            "test/test_mod_over.py": MODULE_OVERRIDE,
            "test/test_autouse.py": AUTOUSE_TESTS,
            "test/backends/conftest.py": AUTOUSE_CONFTEST,
            "test/backends/test_plain.py": PLAIN_TEST,
            "test/test_branches.py": BRANCHES,
            "test/plugin/test_plugin.py": PLUGIN_TESTS,
        },
    )


def _by_place(document):
    return {(f["path"].rsplit("/", 1)[-1], f["line"]): f for f in findings(document, "DET101")}


def test_params_of_requested_fixtures_multiply_the_instances(tmp_path):
    found = _by_place(_repository(tmp_path))
    accuracy = found[("test_acc.py", 14)]
    assert accuracy["numbers"]["instances"] == 8
    assert accuracy["message"] == (
        "rerun marker hides intermittent failures: a 10% violation is reported 0.10% of the "
        "time instead of 10.0% (reruns=2; pytest-rerunfailures==16.7 from "
        "requirements-test.txt:1; 1 attempt, no trial loop recognised; covers 8 test "
        "instances)"
    )
    flow = found[("test_acc.py", 21)]
    assert flow["numbers"]["instances"] == 6
    assert "covers 6 test instances)" in flow["message"]


def test_the_nearest_definition_of_a_fixture_counts(tmp_path):
    found = _by_place(_repository(tmp_path))
    # The nearer conftest's 3 params, not 3 x the outer 2.
    assert found[("test_over.py", 14)]["numbers"]["instances"] == 3
    assert "covers 3 test instances)" in found[("test_over.py", 14)]["message"]
    # The class's fixture (2 params) overrides the conftest one; `dsinfo` is given
    # by the test's own parametrize, so no fixture's params count for it.
    assert found[("test_over.py", 34)]["numbers"]["instances"] == 2
    # A module fixture without params overrides the conftest's, also where a conftest
    # fixture requests it.
    assert found[("test_mod_over.py", 9)]["numbers"]["instances"] == 1
    assert found[("test_mod_over.py", 14)]["numbers"]["instances"] == 1
    assert "test instances" not in found[("test_mod_over.py", 9)]["message"]


def test_params_detlint_cannot_count_leave_the_instances_unknown(tmp_path):
    found = _by_place(_repository(tmp_path))
    for line in (19, 24):
        finding = found[("test_over.py", line)]
        assert finding["numbers"]["instances"] is None
        assert finding["message"].endswith(
            "no trial loop recognised; covers parametrized, instances unknown)"
        )


def test_autouse_fixtures_with_params_multiply_every_test_they_reach(tmp_path):
    found = _by_place(_repository(tmp_path))
    # 3 parametrize values x 2 `dsinfo` (test/conftest.py) x 2 `shuffle_method`.
    assert found[("test_autouse.py", 19)]["numbers"]["instances"] == 12
    assert "covers 12 test instances)" in found[("test_autouse.py", 19)]["message"]
    # A conftest.py's autouse fixture with `params=range(4)`.
    assert found[("test_plain.py", 4)]["numbers"]["instances"] == 4


def test_params_bound_differently_per_branch_are_unknown(tmp_path):
    found = _by_place(_repository(tmp_path))
    assert found[("test_branches.py", 25)]["numbers"]["instances"] is None
    assert found[("test_branches.py", 30)]["numbers"]["instances"] == 2


def test_a_fixture_detlint_cannot_see_may_request_a_parametrized_one(tmp_path):
    found = _by_place(_repository(tmp_path))
    assert found[("test_plugin.py", 9)]["numbers"]["instances"] is None
    # Fixtures of pytest itself request none of the module's.
    assert found[("test_plugin.py", 14)]["numbers"]["instances"] == 1
