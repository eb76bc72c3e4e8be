"""DET103 on tests a retry decorator wraps by name, not with ``@``: a loop of ``setattr``
over a list at module level or in a class decorator, a rebinding (``test_x =
retry(test_x)``), a conftest hook that replaces ``item.obj`` of the items whose node id
it finds in a list. Names listed literally reach the tests they name, each with a
finding at its ``def``; names code gives are not judged, and the finding says why.
"""

from __future__ import annotations

import pytest
from realworld_cases import audit, check, findings

HELPERS = """\
    import functools


    def retry(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for attempt in range(3):
                try:
                    return func(*args, **kwargs)
                except AssertionError:
                    if attempt == 2:
                        raise

        return wrapper


    FLAKY_METHODS = ["test_first"]


    def retry_flaky_methods(cls):
        for name in FLAKY_METHODS:
            setattr(cls, name, retry(getattr(cls, name)))
        return cls
    """

CONFTEST = """\
    from tests.helpers import retry

    FLAKY = ["tests/sub/test_hooked.py::test_listed"]
    PARTS = ("test_part",)


    def pytest_collection_modifyitems(config, items):
        for item in items:
            if item.nodeid in FLAKY:
                item.obj = retry(item.obj)


    def pytest_runtest_setup(item):
        if any(part in item.nodeid for part in PARTS):
            item.obj = retry(item.obj)


    def pytest_runtest_call(item):
        if item.nodeid in load_quarantine_list():
            item.obj = retry(item.obj)
    """

MODULE = """\
    from tests.helpers import retry, retry_flaky_methods

    NAMES = ["test_a", "test_b"]


    class TestSet:
        def test_a(self):
            assert True

        def test_b(self):
            assert True

        def test_c(self):
            assert True


    for name in NAMES:
        setattr(TestSet, name, retry(getattr(TestSet, name)))


    @retry_flaky_methods
    class TestDecorated:
        def test_first(self):
            assert True

        def test_second(self):
            assert True


    def test_rebound():
        assert True


    test_rebound = retry(test_rebound)
    """

HOOKED = """\
    def test_listed():
        assert True


    def test_part_of_a_name():
        assert True


    def test_plain():
        assert True
    """

REPOSITORY = {
    "requirements-test.txt": "pytest\n",
    "tests/__init__.py": "",
    "tests/sub/__init__.py": "",
    "tests/helpers.py": HELPERS,
    "tests/conftest.py": CONFTEST,
    "tests/test_set.py": MODULE,
    "tests/sub/test_hooked.py": HOOKED,
}

RETRY = "retry decorator retry (tests/helpers.py:4, a loop) hides intermittent failures: "
LOSS = "a 10% violation is reported 0.10% of the time instead of 10.0% (3 attempts from a "
LOSS += "literal bound in the decorator; "


@pytest.mark.parametrize(
    ("path", "line", "how"),
    [
        ("tests/test_set.py", 7, "`NAMES` (tests/test_set.py:3) names it"),
        ("tests/test_set.py", 10, "`NAMES` (tests/test_set.py:3) names it"),
        ("tests/test_set.py", 23, "`FLAKY_METHODS` (tests/helpers.py:17) names it"),
        ("tests/test_set.py", 30, "the statement at tests/test_set.py:34 names it"),
        (
            "tests/sub/test_hooked.py",
            1,
            "`FLAKY` (tests/conftest.py:3) names it; hook pytest_collection_modifyitems",
        ),
        (
            "tests/sub/test_hooked.py",
            5,
            "`PARTS` (tests/conftest.py:4) names it; hook pytest_runtest_setup",
        ),
    ],
)
def test_each_test_named_gets_a_finding_at_its_def(tmp_path, path, line, how):
    (found,) = [
        f
        for f in findings(check(tmp_path, REPOSITORY), "DET103")
        if (f["path"], f["line"]) == (path, line)
    ]
    assert found["message"] == f"{RETRY}{LOSS}{how}; 1 attempt, no trial loop recognised)"
    assert found["numbers"]["reported"] == pytest.approx(0.1**3)


def test_tests_not_named_are_not_retried(tmp_path):
    places = {(f["path"], f["line"]) for f in findings(check(tmp_path, REPOSITORY), "DET103")}
    assert places == {
        ("tests/test_set.py", 7),
        ("tests/test_set.py", 10),
        ("tests/test_set.py", 23),
        ("tests/test_set.py", 30),
        ("tests/sub/test_hooked.py", 1),
        ("tests/sub/test_hooked.py", 5),
        ("tests/conftest.py", 20),
    }


def test_names_code_gives_are_not_judged(tmp_path):
    """`item.nodeid in load_quarantine_list()`: which tests is not known statically."""
    (found,) = [
        f
        for f in findings(check(tmp_path, REPOSITORY), "DET103")
        if f["path"] == "tests/conftest.py"
    ]
    assert (found["line"], found["column"]) == (20, 20)
    assert found["message"] == (
        "retry decorator retry (tests/helpers.py:4, a loop) wraps the tests "
        "`load_quarantine_list()` (tests/conftest.py:19) picks in hook pytest_runtest_call: "
        "not judged test by test, since detlint cannot list those tests statically (3 "
        "attempts each, from a literal bound in the decorator)"
    )
    assert found.get("numbers") is None


def test_the_audit_lists_the_finding_not_judged_without_numbers(tmp_path):
    document = audit(tmp_path, REPOSITORY)  # checked against the audit's JSON schema
    (found,) = [f for f in findings(document, "DET103") if f["path"] == "tests/conftest.py"]
    assert "not judged test by test" in found["message"]
    assert found.get("numbers") is None


def test_a_hook_that_picks_by_function_name_reaches_files_without_a_knob(tmp_path):
    """`item.name in FLAKY_NAMES`: the file holding `test_named` has no knob token of its
    own, and is read because it holds a name the hook lists."""
    files = {
        **REPOSITORY,
        "tests/conftest.py": """\
            from tests.helpers import retry

            FLAKY_NAMES = {"test_named"}


            def pytest_collection_modifyitems(items):
                for item in items:
                    if item.name in FLAKY_NAMES:
                        item.obj = retry(item.obj)
            """,
        "tests/sub/test_names.py": "def test_named():\n    pass\n\n\ndef test_other():\n    pass\n",
    }
    places = {
        (f["path"], f["line"], f["message"].split("; ")[1])
        for f in findings(check(tmp_path, files), "DET103")
        if f["path"].startswith("tests/sub/")
    }
    assert places == {
        (
            "tests/sub/test_names.py",
            1,
            "`FLAKY_NAMES` (tests/conftest.py:3) names it",
        )
    }
