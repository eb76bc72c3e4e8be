"""Test instances that parametrized fixtures make through a conftest.py's
``pytest_plugins``: the repository modules it names hold fixtures every test can
request, and only a test that requests a parametrized fixture, directly or through
another, runs once per param.

Distilled from schemathesis: test/conftest.py lists ``pytest_plugins`` modules of the
repository (``test.fixtures.ctx``, ``test.fixtures.cli``) next to third-party ones
(``pytest_mock``); test/cli/test_commands.py defines a fixture ``new_check`` with two
params, and its retried tests that request only ``ctx``, ``cli``, ``mocker`` and
``snapshot`` run once each. Every count here is what ``pytest --collect-only``
collects from the same files (with the third-party plugin left out of the list).
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, check, findings

CONFTEST = """\
    pytest_plugins = ["pytest_mock", "test.fixtures.ctx"]
"""

# A plugin module that names another in turn.
CTX = """\
    import pytest

    pytest_plugins = ("test.fixtures.app",)


    @pytest.fixture
    def ctx(request):
        return request


    @pytest.fixture
    def cli(tmp_path, app_runner):
        return app_runner


    @pytest.fixture
    def served(backend):
        return backend
"""

APP = """\
    import pytest


    @pytest.fixture
    def app_runner():
        return None


    @pytest.fixture(params=["flask", "asgi"])
    def app_kind(request):
        return request.param
"""

TESTS = """\
    import pytest


    @pytest.fixture(params=['AssertionError("Custom check failed!")', "AssertionError"])
    def new_check(request, cli):
        return request.param


    @pytest.fixture(params=["a", "b", "c"])
    def backend(request):
        return request.param


    @pytest.mark.flaky(reruns=2)
    def test_plain(ctx, cli, mocker, snapshot):
        assert ctx


    @pytest.mark.flaky(reruns=2)
    def test_new_check(ctx, new_check):
        assert new_check


    @pytest.mark.flaky(reruns=2)
    def test_served(served):
        assert served


    @pytest.mark.flaky(reruns=2)
    def test_kinds(app_kind, new_check):
        assert app_kind


    @pytest.mark.flaky(reruns=2)
    def test_unseen(jp_fetch):
        assert jp_fetch
"""


def _instances(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "test/__init__.py": "",
            "test/conftest.py": CONFTEST,
            "test/fixtures/__init__.py": "",
            "test/fixtures/ctx.py": CTX,
            "test/fixtures/app.py": APP,
            "test/cli/__init__.py": "",
            "test/cli/test_commands.py": TESTS,
        },
    )
    return {f["line"]: f for f in findings(document, "DET101")}


def test_a_module_fixture_no_test_requests_multiplies_none(tmp_path):
    found = _instances(tmp_path)
    # `ctx` and `cli` are read from the plugin modules; `mocker` and `snapshot` are
    # third-party fixtures that request none of the module's.
    assert found[14]["numbers"]["instances"] == 1
    assert found[14]["message"].endswith("1 attempt, no trial loop recognised)")


def test_params_reach_the_tests_that_request_them_through_plugin_fixtures(tmp_path):
    found = _instances(tmp_path)
    assert found[19]["numbers"]["instances"] == 2
    assert found[19]["message"].endswith("covers 2 test instances)")
    # The plugin fixture `served` requests the module's `backend` (3 params).
    assert found[24]["numbers"]["instances"] == 3
    # A nested plugin module's `app_kind` (2) times `new_check` (2).
    assert found[29]["numbers"]["instances"] == 4
    assert found[29]["message"].endswith("covers 4 test instances)")


def test_a_fixture_of_an_unreadable_plugin_still_leaves_them_unknown(tmp_path):
    found = _instances(tmp_path)
    assert found[34]["numbers"]["instances"] is None
    assert found[34]["message"].endswith("covers parametrized, instances unknown)")


# Neither the test module nor the conftest.py holds a fixture with params: only the
# plugin module they name does, and a test requesting its fixture runs once per param.
PLAIN_CONFTEST = """\
    pytest_plugins = "tests.plugins.backends"
"""

BACKENDS = """\
    import pytest


    @pytest.fixture(params=["sqlite", "postgres", "mysql"])
    def database(request):
        return request.param
"""

PLAIN_TESTS = """\
    import pytest


    @pytest.mark.flaky(reruns=2)
    def test_query(database):
        assert database


    @pytest.mark.flaky(reruns=2)
    def test_alone():
        assert True
"""


def test_params_of_a_plugin_module_alone_multiply_the_tests_that_request_them(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/conftest.py": PLAIN_CONFTEST,
            "tests/plugins/__init__.py": "",
            "tests/plugins/backends.py": BACKENDS,
            "tests/test_db.py": PLAIN_TESTS,
        },
    )
    found = {f["line"]: f for f in findings(document, "DET101")}
    assert found[4]["numbers"]["instances"] == 3
    assert found[4]["message"].endswith("covers 3 test instances)")
    assert found[9]["numbers"]["instances"] == 1
