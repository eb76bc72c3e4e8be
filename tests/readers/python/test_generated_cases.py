"""Decorators that generate one test per case, which pytest does not know as marks: the
``parameterized`` library's ``expand`` (on methods and module functions) and
``parameterized_class``, and absl's ``parameters``, ``named_parameters`` and ``product``.
Each count is what ``pytest --collect-only`` gives on the same files with parameterized
0.9.0 and absl-py 2.1.0 installed: ``expand`` makes ``test_x_0``, ``test_x_1_<first
string>``; absl ``test_x0``, ``test_x_<name>``; the decorated original is not run as a case.
"""

from __future__ import annotations

from realworld_cases import RERUNFAILURES, check, findings

EXPANDED = """\
    import unittest

    import pytest
    from parameterized import param, parameterized

    CASES = [(1,), (2,), (3,)]


    @unittest.skip("races on runtime hooks")
    class TestExpanded(unittest.TestCase):
        @parameterized.expand([("remote", True), ("local", False)])
        def test_mode(self, _, remote):
            assert remote is not None

        def test_plain(self):
            assert True


    @unittest.skip("races on runtime hooks")
    class TestParams(unittest.TestCase):
        @parameterized.expand([param(1), param(2), param(3)])
        def test_param(self, value):
            assert value


    @unittest.skip("races on runtime hooks")
    class TestNamedTable(unittest.TestCase):
        @parameterized.expand(CASES)
        def test_table(self, value):
            assert value


    @unittest.skip("races on runtime hooks")
    class TestMade(unittest.TestCase):
        @parameterized.expand(make_cases())
        def test_made(self, value):
            assert value


    @parameterized.expand([(1,), (2,)])
    @pytest.mark.flaky(reruns=2)
    def test_function(value):
        assert value


    class TestPlain:
        @parameterized.expand([(1,), (2,), (3,), (4,)])
        @pytest.mark.flaky(reruns=2)
        def test_method(self, value):
            assert value


    class TestAbove(unittest.TestCase):
        @unittest.skip("races on runtime hooks")
        @parameterized.expand([(1,), (2,)])
        def test_above(self, value):
            assert value


    @pytest.mark.flaky(reruns=2)
    @parameterized.expand([(1,), (2,)])
    def test_above_function(value):
        assert value
"""

ABSL = """\
    import unittest

    from absl.testing import parameterized


    @unittest.skip("flaky on GPU")
    class TestParameters(parameterized.TestCase):
        @parameterized.parameters(1, 2, 3)
        def test_spread(self, value):
            assert value

        @parameterized.parameters([1, 2])
        def test_list(self, value):
            assert value

        @parameterized.parameters((1, 2))
        def test_one_tuple(self, a, b):
            assert a < b


    @unittest.skip("flaky on GPU")
    class TestNamed(parameterized.TestCase):
        @parameterized.named_parameters(("one", 1), ("two", 2))
        def test_tuples(self, value):
            assert value

        @parameterized.named_parameters(
            {"testcase_name": "x", "value": 1},
            dict(testcase_name="y", value=2),
            dict(testcase_name="z", value=3),
        )
        def test_dicts(self, value):
            assert value


    @unittest.skip("flaky on GPU")
    class TestProduct(parameterized.TestCase):
        @parameterized.product(a=[1, 2], b=(3, 4, 5))
        def test_grid(self, a, b):
            assert a < b

        @parameterized.product([dict(a=1), dict(a=2)], b=[1, 2])
        def test_dict_list(self, a, b):
            assert a


    @unittest.skip("flaky on GPU")
    class TestUncounted(parameterized.TestCase):
        @parameterized.parameters(*make_cases())
        def test_made(self, value):
            assert value


    class TestGuarded(parameterized.TestCase):
        @parameterized.parameters("a", "b", "c")
        def test_guarded(self, dtype):
            if dtype == "a":
                self.skipTest("flaky for a")
            assert dtype
"""

CLASSES = """\
    import unittest

    from parameterized import parameterized, parameterized_class


    @unittest.skip("flaky")
    @parameterized_class(("a", "b"), [(1, 2), (3, 4)])
    class TestSets(unittest.TestCase):
        @parameterized.expand([(1,), (2,), (3,)])
        def test_both(self, value):
            assert self.a < self.b

        def test_plain(self):
            assert self.a
"""


def _by_line(document, name, code):
    return {f["line"]: f for f in findings(document, code) if f["path"].rsplit("/", 1)[-1] == name}


def test_expand_multiplies_the_instances_of_unittest_methods_and_functions(tmp_path):
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_expand.py": EXPANDED})
    skipped = _by_line(document, "test_expand.py", "DET202")
    # test_mode_0_remote, test_mode_1_local and test_plain.
    assert skipped[9]["message"].endswith("covers 2 tests, 3 test instances)")
    assert skipped[19]["message"].endswith("covers 3 test instances)")
    assert skipped[19]["numbers"]["instances"] == 3
    # The table is a module list: 3 cases.
    assert skipped[26]["message"].endswith("covers 3 test instances)")
    assert skipped[33]["message"].endswith("covers parametrized, instances unknown)")
    assert skipped[33]["numbers"]["instances"] is None
    reruns = _by_line(document, "test_expand.py", "DET101")
    assert reruns[41]["message"].endswith("covers 2 test instances)")
    assert reruns[41]["numbers"]["instances"] == 2
    assert reruns[48]["message"].endswith("covers 4 test instances)")


def test_a_knob_written_above_expand_reaches_none_of_its_cases(tmp_path):
    # expand copies the marks of the function it decorates to each case; a skip or a
    # rerun mark above it stays on the original, and every case runs without it.
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_expand.py": EXPANDED})
    assert sorted(_by_line(document, "test_expand.py", "DET202")) == [9, 19, 26, 33]
    assert sorted(_by_line(document, "test_expand.py", "DET101")) == [41, 48]


def test_absl_parameters_named_parameters_and_product_multiply_the_instances(tmp_path):
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_absl.py": ABSL})
    skipped = _by_line(document, "test_absl.py", "DET202")
    # 3 + 2 + 1: a lone tuple is one case.
    assert skipped[6]["message"].endswith("covers 3 tests, 6 test instances)")
    # 2 + 3, tuples and dicts named by their first entry or testcase_name.
    assert skipped[21]["message"].endswith("covers 2 tests, 5 test instances)")
    # 2 x 3, and 2 dicts x 2 values.
    assert skipped[36]["message"].endswith("covers 2 tests, 10 test instances)")
    assert skipped[47]["message"].endswith("covers parametrized, instances unknown)")
    # A skip whose guard reads a generated argument reaches the cases where it holds.
    assert skipped[58]["message"].endswith('covers the instances where `dtype == "a"` (of 3))')
    assert skipped[58]["numbers"]["instances"] is None


def test_expand_inside_a_parameterized_class_multiplies_both(tmp_path):
    document = check(tmp_path, {**RERUNFAILURES, "tests/test_classes.py": CLASSES})
    (skipped,) = _by_line(document, "test_classes.py", "DET202").values()
    # 2 classes x (3 expanded cases + test_plain).
    assert skipped["message"].endswith("covers 2 tests, 8 test instances)")
