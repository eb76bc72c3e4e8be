"""Marks bound to a name in one module and applied in another are the marks written at
the use: a ``parametrize`` alias multiplies a test's instances exactly as the literal
decorator does, and a skip alias in ``pytestmark`` skips as the literal mark does.

Distilled from pyinstrument (test/low_level/util.py: ``parametrize_setstatprofile =
pytest.mark.parametrize("setstatprofile", [setstatprofile_c, setstatprofile_python])``,
imported with ``from .util import parametrize_setstatprofile`` by test files whose tests
also carry ``@flaky_in_ci``): the alias was followed for knobs but not for instances, so
DET101 said each test had 1 instance where pytest collects 2.
"""

from __future__ import annotations

from realworld_cases import FLAKY, RERUNFAILURES, audit, check, findings, one_test, only

PYINSTRUMENT = {
    **FLAKY,
    "test/__init__.py": "",
    "test/util.py": """\
        import os

        from flaky import flaky

        if "CI" in os.environ:
            flaky_in_ci = flaky(max_runs=5, min_passes=1)
        else:
            flaky_in_ci = lambda a: a
        """,
    "test/low_level/__init__.py": "",
    "test/low_level/util.py": """\
        import pytest

        from impl import setstatprofile_c, setstatprofile_python

        parametrize_setstatprofile = pytest.mark.parametrize(
            "setstatprofile",
            [setstatprofile_c, setstatprofile_python],
        )
        """,
    "test/low_level/test_setstatprofile.py": """\
        from ..util import flaky_in_ci
        from .util import parametrize_setstatprofile


        @flaky_in_ci
        @parametrize_setstatprofile
        def test_100ms(setstatprofile):
            assert setstatprofile(0.1) == 10


        @parametrize_setstatprofile
        def test_internal_object_compatibility(setstatprofile):
            assert setstatprofile
        """,
}


def test_a_relatively_imported_parametrize_alias_makes_the_instances_of_a_flaky_test(tmp_path):
    found = only(check(tmp_path, PYINSTRUMENT), "DET101")
    assert (found["path"], found["line"]) == ("test/low_level/test_setstatprofile.py", 5)
    assert found["message"] == (
        "flaky decorator hides intermittent failures: a 10% violation is reported <0.001% of "
        'the time instead of 10.0% (max_runs=5, min_passes=1 where `"CI" in os.environ`; '
        "through flaky_in_ci (..util.flaky_in_ci); 1 attempt, no trial loop recognised; "
        'covers 2 test instances); elsewhere: not rerun where not `"CI" in os.environ` '
        "(reported 10.0% there)"
    )
    assert found["numbers"]["instances"] == 2


HELPERS = """\
    import pytest

    backend_cases = pytest.mark.parametrize(
        "backend",
        ["a", "b", pytest.param("c", marks=pytest.mark.flaky(reruns=4))],
        ids=["A", "B", "C"],
        indirect=True,
    )
    two_modes = pytest.mark.parametrize("mode", [1, 2])
    skip_on_win = pytest.mark.skipif(sys.platform == "win32", reason="flaky on windows")
    use_backend = pytest.mark.usefixtures("backend")
    """

# A parametrized fixture: a test that requests it runs once per param, unless a
# parametrize gives `backend` its values (indirect=True hands them to the fixture).
CONFTEST = """\
    import pytest


    @pytest.fixture(params=[1, 2, 3, 4])
    def backend(request):
        return request.param
    """


def _repository(test_files: dict[str, str]) -> dict[str, str]:
    return {
        **RERUNFAILURES,
        "tests/__init__.py": "",
        "tests/helpers.py": HELPERS,
        "tests/conftest.py": CONFTEST,
        **test_files,
    }


def test_an_alias_imported_with_as_counts_as_the_literal_decorator_does(tmp_path):
    document = audit(
        tmp_path,
        _repository(
            {
                "tests/test_alias.py": """\
                    import pytest

                    from tests.helpers import backend_cases as cases


                    @pytest.mark.flaky(reruns=2)
                    @cases
                    def test_alias(backend):
                        assert backend
                    """,
                "tests/test_literal.py": """\
                    import pytest


                    @pytest.mark.flaky(reruns=2)
                    @pytest.mark.parametrize(
                        "backend",
                        ["a", "b", pytest.param("c", marks=pytest.mark.flaky(reruns=4))],
                        ids=["A", "B", "C"],
                        indirect=True,
                    )
                    def test_literal(backend):
                        assert backend
                    """,
            }
        ),
    )
    # Three values, given to the fixture (indirect): its four params do not multiply them.
    assert one_test(document, "test_alias.py::test_alias")["instances"] == 3
    assert one_test(document, "test_literal.py::test_literal")["instances"] == 3
    # The pytest.param's own rerun marker covers its one instance, in both spellings.
    assert one_test(document, "test_alias[pytest.param marks=flaky]")["instances"] == 1
    assert one_test(document, "test_literal[pytest.param marks=flaky]")["instances"] == 1
    messages = {(f["path"], f["line"]): f["message"] for f in findings(document, "DET101")}
    assert set(messages) == {
        ("tests/test_alias.py", 6),
        ("tests/test_literal.py", 4),
        ("tests/test_literal.py", 7),
        # Written in the helper, where a fix would edit it.
        ("tests/helpers.py", 5),
    }
    for where in (("tests/test_alias.py", 6), ("tests/test_literal.py", 4)):
        assert messages[where].startswith(
            "rerun marker hides intermittent failures: a 10% violation is reported 0.10% of "
            "the time instead of 10.0% (reruns=2;"
        )
        assert messages[where].endswith("; covers 3 test instances)")


def test_an_alias_used_as_an_attribute_of_its_module(tmp_path):
    document = check(
        tmp_path,
        _repository(
            {
                "tests/test_modules.py": """\
                    import pytest

                    import tests.helpers as h
                    from tests import helpers


                    @pytest.mark.flaky(reruns=1)
                    @h.two_modes
                    def test_dotted(mode):
                        assert mode


                    @pytest.mark.flaky(reruns=1)
                    @helpers.two_modes
                    @helpers.two_modes
                    def test_twice(mode):
                        assert mode
                    """,
            }
        ),
    )
    found = {f["line"]: f for f in findings(document, "DET101")}
    assert sorted(found) == [7, 13]
    assert found[7]["numbers"]["instances"] == 2
    assert found[7]["message"].endswith("; covers 2 test instances)")
    # Two parametrize marks multiply, as two literal decorators do.
    assert found[13]["numbers"]["instances"] == 4
    assert found[13]["message"].endswith("; covers 4 test instances)")


def test_an_alias_imported_from_a_conftest(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/conftest.py": """\
                import pytest

                two_backends = pytest.mark.parametrize("backend", ["x", "y"])
                """,
            "tests/test_backends.py": """\
                import pytest

                from .conftest import two_backends


                class TestBackends:
                    @two_backends
                    @pytest.mark.flaky(reruns=1)
                    def test_backend(self, backend):
                        assert backend
                """,
        },
    )
    found = only(document, "DET101")
    assert (found["line"], found["numbers"]["instances"]) == (8, 2)
    assert found["message"].endswith("; covers 2 test instances)")


def test_aliases_in_a_module_pytestmark_reach_every_test(tmp_path):
    document = check(
        tmp_path,
        _repository(
            {
                "tests/test_marked.py": """\
                    import pytest

                    from tests.helpers import skip_on_win, two_modes

                    pytestmark = [skip_on_win, two_modes]


                    def test_a(mode):
                        assert mode


                    class TestB:
                        def test_b(self, mode):
                            assert mode
                    """,
            }
        ),
    )
    skipped = only(document, "DET202")
    assert (skipped["path"], skipped["line"]) == ("tests/test_marked.py", 5)
    assert 'where `sys.platform == "win32"`' in skipped["message"]
    assert skipped["message"].endswith("covers 2 tests, 4 test instances)")


def test_a_usefixtures_alias_requests_the_fixture(tmp_path):
    document = check(
        tmp_path,
        _repository(
            {
                "tests/test_fixtures.py": """\
                    import pytest

                    from tests.helpers import use_backend


                    @pytest.mark.flaky(reruns=2)
                    @use_backend
                    def test_uses():
                        assert True
                    """,
            }
        ),
    )
    found = only(document, "DET101")
    # The four params of the `backend` fixture the alias requests.
    assert found["numbers"]["instances"] == 4
    assert found["message"].endswith("; covers 4 test instances)")


def test_a_name_rebound_in_the_importing_module_is_its_own(tmp_path):
    document = check(
        tmp_path,
        _repository(
            {
                "tests/test_rebound.py": """\
                    import pytest

                    from tests.helpers import two_modes

                    two_modes = pytest.mark.parametrize("mode", [1, 2, 3])


                    @pytest.mark.flaky(reruns=1)
                    @two_modes
                    def test_rebound(mode):
                        assert mode
                    """,
            }
        ),
    )
    found = only(document, "DET101")
    assert found["line"] == 8
    assert found["numbers"]["instances"] == 3


def test_a_decorator_made_from_the_imported_name_keeps_the_import(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/helpers.py": """\
                import pytest

                reruns = pytest.mark.flaky
                """,
            "tests/test_remade.py": """\
                from tests.helpers import reruns

                reruns = reruns(reruns=3)


                @reruns
                def test_remade():
                    assert True
                """,
        },
    )
    # `reruns = reruns(reruns=3)` calls what the import bound, the helper's bare flaky
    # marker, with reruns=3: the new binding is that call.
    found = only(document, "DET101")
    assert found["line"] == 6
    assert found["message"].startswith(
        "rerun marker hides intermittent failures: a 10% violation is reported 0.010% of the "
        "time instead of 10.0% (reruns=3; through reruns -> reruns (tests.helpers.reruns);"
    )


def test_an_alias_defined_under_an_if_in_the_helper(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/helpers.py": """\
                import sys

                import pytest

                # One branch: a module that imports the name fails where it is missing, so
                # wherever its tests run the alias is this mark.
                if sys.version_info >= (3, 8):
                    modern = pytest.mark.parametrize("mode", [1, 2, 3])

                # Two branches of different sizes: the count depends on where it runs.
                if sys.platform == "win32":
                    platform_modes = pytest.mark.parametrize("mode", [1])
                else:
                    platform_modes = pytest.mark.parametrize(
                        "mode", [1, 2, pytest.param(3, marks=pytest.mark.flaky(reruns=5))]
                    )
                """,
            "tests/test_guarded.py": """\
                import pytest

                from tests.helpers import modern, platform_modes


                @pytest.mark.flaky(reruns=1)
                @modern
                def test_modern(mode):
                    assert mode


                @pytest.mark.flaky(reruns=1)
                @platform_modes
                def test_platform(mode):
                    assert mode
                """,
        },
    )
    found = {(f["path"], f["line"]): f for f in findings(document, "DET101")}
    assert sorted(found) == [
        ("tests/helpers.py", 15),
        ("tests/test_guarded.py", 6),
        ("tests/test_guarded.py", 12),
    ]
    assert found["tests/test_guarded.py", 6]["numbers"]["instances"] == 3
    assert found["tests/test_guarded.py", 6]["message"].endswith("; covers 3 test instances)")
    assert found["tests/test_guarded.py", 12]["message"].endswith(
        "; covers parametrized, instances unknown)"
    )
    # The pytest.param's rerun marker applies only where its branch's definition does.
    param = found["tests/helpers.py", 15]["message"]
    assert param.startswith(
        "rerun marker hides intermittent failures: a 10% violation is reported <0.001% of the "
        'time instead of 10.0% (reruns=5 where not `sys.platform == "win32"`;'
    )


def test_an_alias_of_something_that_is_no_mark_changes_nothing(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/helpers.py": """\
                import functools

                import pytest

                not_a_mark = functools.partial(print, "parametrize")
                identity = lambda f: f
                CASES = [1, 2, 3]
                """,
            "tests/test_plain.py": """\
                import pytest

                from tests.helpers import CASES, identity, not_a_mark

                pytestmark = [not_a_mark]


                @pytest.mark.flaky(reruns=2)
                @identity
                def test_plain():
                    assert CASES
                """,
        },
    )
    found = only(document, "DET101")
    assert found["line"] == 8
    assert found["numbers"]["instances"] == 1
    assert "covers" not in found["message"]


def test_local_aliases_of_parametrize(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/test_local.py": """\
                import pytest

                parametrize = pytest.mark.parametrize
                three = pytest.mark.parametrize("x", [1, 2, 3])


                @pytest.mark.flaky(reruns=1)
                @three
                def test_bound(x):
                    assert x


                @pytest.mark.flaky(reruns=1)
                @parametrize("y", [1, 2, 3, 4, 5])
                def test_called(y):
                    assert y


                @three
                class TestMarked:
                    pytestmark = [pytest.mark.flaky(reruns=1), parametrize("z", [1, 2])]

                    def test_method(self, x, z):
                        assert x
                """,
        },
    )
    found = {f["line"]: f["numbers"]["instances"] for f in findings(document, "DET101")}
    assert found == {7: 3, 13: 5, 21: 6}


def test_a_module_parametrize_leaves_unittest_methods_alone(tmp_path):
    document = check(
        tmp_path,
        {
            **RERUNFAILURES,
            "tests/__init__.py": "",
            "tests/helpers.py": HELPERS,
            "tests/test_mixed.py": """\
                import unittest

                import pytest

                from tests.helpers import two_modes

                pytestmark = [two_modes, pytest.mark.flaky(reruns=1)]


                class TestCase(unittest.TestCase):
                    def test_method(self):
                        self.assertTrue(True)


                def test_function(mode):
                    assert mode
                """,
        },
    )
    # pytest collects TestCase::test_method once and test_function[1], test_function[2].
    found = only(document, "DET101")
    assert found["line"] == 7
    assert found["message"].endswith("; covers 2 tests, 3 test instances)")
