"""Test instances made where parametrize tables alone do not say: a skip in the body
under a guard that reads the parametrize arguments (peft's
``if direction == "random" and scale == "weight_svd": pytest.skip(...)`` skips 1 of
16), a ``pytest_generate_tests`` hook that parametrizes a fixture the test requests
(cudf_polars' engines), and a class decorator that makes one class per parameter set
(cupy's ``@testing.parameterize(*params)``, ``parameterized_class``). Each count is
what ``pytest --collect-only`` (and the skips pytest reports) gives on the same files.
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, check, findings

GUARDED = """\
    import pytest

    SCALES = ["stable", "weight_svd", "gd_scale", "unit"]


    @pytest.mark.parametrize("scale", SCALES)
    @pytest.mark.parametrize("direction", ["ArBr", "A2rBr", "ArB2r", "random"])
    def test_both(direction, scale):
        if direction == "random" and scale == "weight_svd":
            pytest.skip("non-deterministic combination")
        assert direction


    @pytest.mark.parametrize("mode", ["a", "b", "c"])
    @pytest.mark.parametrize("n", [1, 2])
    def test_membership(mode, n):
        if mode not in ("a",):
            pytest.xfail("flaky outside mode a")
        assert mode


    @pytest.mark.parametrize("mode", ["a", "b", "c"])
    def test_after_return(mode):
        if mode != "b" and mode is not None:
            return
        pytest.skip("flaky for b")


    @pytest.mark.parametrize("mode", [make("a"), make("b")])
    def test_opaque(mode):
        if mode == "a":
            pytest.skip("flaky for a")


    @pytest.mark.parametrize("mode", ["a", "b"])
    def test_call_guard(mode):
        if mode.startswith("a"):
            pytest.skip("flaky for a")


    @pytest.mark.parametrize("mode", ["a", "b"])
    def test_environment(mode):
        if sys.platform == "win32":
            pytest.skip("flaky on windows")
"""

CONFTEST = """\
    import pytest

    ENGINES = ["in-memory", "streaming"]


    @pytest.fixture
    def engine(_engine_param):
        return _engine_param


    @pytest.fixture
    def _engine_param(request):
        return request.param


    def pytest_generate_tests(metafunc):
        if "_engine_param" not in metafunc.fixturenames:
            return
        engines = ENGINES if has_streaming() else ENGINES[:1]
        metafunc.parametrize("_engine_param", engines, indirect=True)
        if "level" in metafunc.fixturenames:
            metafunc.parametrize("level", [1, 2, 3])
"""

GENERATED = """\
    import pytest


    @pytest.mark.flaky(reruns=2)
    @pytest.mark.parametrize("how", ["inner", "left"])
    def test_join(engine, how):
        assert engine


    @pytest.mark.flaky(reruns=2)
    @pytest.mark.parametrize("how", ["inner", "left"])
    def test_level(level, how):
        assert level


    @pytest.mark.flaky(reruns=2)
    @pytest.mark.parametrize("how", ["inner", "left"])
    def test_plain(how):
        assert how
"""

# dd-trace-py's hook: a test marked `subprocess` gets the tables its marker names.
MARKED = """\
    import pytest


    def pytest_generate_tests(metafunc):
        marker = metafunc.definition.get_closest_marker("subprocess")
        if marker:
            for name, values in marker.kwargs.get("parametrize", {}).items():
                metafunc.parametrize(name, values)


    @pytest.mark.flaky(reruns=2)
    @pytest.mark.subprocess(parametrize={"x": [1, 2]})
    def test_marked():
        pass


    @pytest.mark.flaky(reruns=2)
    @pytest.mark.parametrize("how", ["inner", "left"])
    def test_unmarked(how):
        pass
"""

PARAMS_MODULE = """\
    import pytest

    logseries_params = [
        {"p": 0.5},
        {"p": 0.1},
        {"p": 0.9},
        {"p": [0.8, 0.7]},
    ]


    class Logseries:
        @pytest.mark.flaky(reruns=2)
        def test_logseries(self):
            assert self.p
"""

CLASSES = """\
    import unittest

    import pytest
    from parameterized import parameterized_class

    from cupy import testing
    from tests import common

    LOCAL = [{"a": 1}, {"a": 2}]


    @testing.parameterize(*common.logseries_params)
    class TestLogseries(common.Logseries, unittest.TestCase):
        pass


    @testing.parameterize(*LOCAL)
    class TestLocal:
        @pytest.mark.flaky(reruns=2)
        def test_local(self):
            assert self.a


    @testing.parameterize(*testing.product({"a": [1, 2, 3], "b": ["x", "y"]}))
    class TestProduct:
        @pytest.mark.flaky(reruns=2)
        def test_product(self):
            assert self.a


    @parameterized_class(("a", "b"), [(1, 2), (3, 4), (5, 6)])
    class TestNamed:
        @pytest.mark.flaky(reruns=2)
        @pytest.mark.parametrize("c", [1, 2])
        def test_named(self, c):
            assert self.a


    @testing.parameterize(*make_params())
    class TestMade:
        @pytest.mark.flaky(reruns=2)
        def test_made(self):
            assert self.a
"""


def _by_line(document, name, code):
    return {f["line"]: f for f in findings(document, code) if f["path"].rsplit("/", 1)[-1] == name}


def test_a_guard_on_parametrize_arguments_counts_the_instances_it_holds_for(tmp_path):
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_guarded.py": GUARDED})
    skipped = _by_line(document, "test_guarded.py", "DET202")
    xfailed = _by_line(document, "test_guarded.py", "DET201")
    both = skipped[10]
    assert both["message"].endswith("covers 1 of 16 test instances)")
    assert both["numbers"]["instances"] == 1
    # `mode not in ("a",)`: modes b and c, for each of the 2 values of n.
    assert xfailed[18]["message"].endswith("covers 4 of 6 test instances)")
    assert xfailed[18]["numbers"]["instances"] == 4
    # After `if mode != "b" and mode is not None: return`, only mode b reaches the skip.
    assert skipped[26]["message"].endswith("covers 1 of 3 test instances)")


def test_a_guard_detlint_cannot_evaluate_says_where_without_a_count(tmp_path):
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_guarded.py": GUARDED})
    skipped = _by_line(document, "test_guarded.py", "DET202")
    assert skipped[32]["message"].endswith('covers the instances where `mode == "a"` (of 2))')
    assert skipped[32]["numbers"]["instances"] is None
    assert skipped[38]["message"].endswith(
        'covers the instances where `mode.startswith("a")` (of 2))'
    )
    # A guard that reads no argument holds for every instance where it holds at all.
    assert skipped[44]["message"].endswith("covers 2 test instances)")
    assert skipped[44]["numbers"]["instances"] == 2


def test_a_fixture_pytest_generate_tests_parametrizes_leaves_the_instances_unknown(tmp_path):
    document = check(
        tmp_path,
        {**RERUNFAILURES, "tests/conftest.py": CONFTEST, "tests/test_gen.py": GENERATED},
    )
    found = _by_line(document, "test_gen.py", "DET101")
    # `engine` requests `_engine_param`, whose values the hook picks as it runs.
    assert found[4]["message"].endswith("covers parametrized, instances unknown)")
    assert found[4]["numbers"]["instances"] is None
    # `level` gets a literal table whenever a test requests it: 3 x 2.
    assert found[10]["message"].endswith("covers 6 test instances)")
    assert found[10]["numbers"]["instances"] == 6
    assert found[16]["numbers"]["instances"] == 2


def test_a_hook_that_parametrizes_marked_tests_reaches_those_alone(tmp_path):
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_marked.py": MARKED})
    found = _by_line(document, "test_marked.py", "DET101")
    assert found[11]["message"].endswith("covers parametrized, instances unknown)")
    assert found[17]["message"].endswith("covers 2 test instances)")
    assert found[17]["numbers"]["instances"] == 2


def test_a_class_decorator_that_parametrizes_multiplies_the_instances(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/common.py": PARAMS_MODULE,
            "tests/test_classes.py": CLASSES,
        },
    )
    found = _by_line(document, "test_classes.py", "DET101")
    assert found[19]["message"].endswith("covers 2 test instances)")
    assert found[26]["message"].endswith("covers 6 test instances)")
    # 3 classes x 2 parametrize values.
    assert found[33]["message"].endswith("covers 6 test instances)")
    assert found[41]["message"].endswith("covers parametrized, instances unknown)")
    # The mixin's test, inherited by a unittest class parameterized 4 times.
    (inherited,) = _by_line(document, "common.py", "DET101").values()
    assert inherited["numbers"]["instances"] == 4
    assert inherited["message"].endswith("covers 4 test instances)")
