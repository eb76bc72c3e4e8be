"""DET103 on a retry decorator a test imports from a package that re-exports it: the
package's ``__init__.py`` imports the decorator from the module that defines it
(``from torchrl.testing import retry``; ``torchrl/testing/__init__.py`` says ``from
.utils import retry``), so the decorator is read where it is defined, however many
packages pass it on, and one a package neither defines nor imports gives nothing, as does one that
retries only exceptions an assertion is not.
"""

from __future__ import annotations

from realworld_cases import check, findings

# The common "retry on exception" recipe: `tries` attempts, the last one re-raises.
UTILS = """\
import time
from functools import wraps


def retry(ExceptionToCheck, tries=3, delay=3):
    def deco_retry(f):
        @wraps(f)
        def f_retry(*args, **kwargs):
            mtries, mdelay = tries, delay
            while mtries > 1:
                try:
                    return f(*args, **kwargs)
                except ExceptionToCheck:
                    time.sleep(mdelay)
                    mtries -= 1
            return f(*args, **kwargs)

        return f_retry

    return deco_retry
"""

TESTS = """\
from pkg.testing import retry
from pkg import testing
from pkg.outer import retry as outer_retry
from pkg.unrelated import retry as missing


@retry(AssertionError, tries=10, delay=0)
def test_package():
    assert 1


@testing.retry(AssertionError, tries=4, delay=0)
def test_module_attribute():
    assert 1


@outer_retry(Exception, tries=2, delay=0)
def test_two_packages():
    assert 1


@retry(ConnectionError, tries=5, delay=0)
def test_other_exception():
    assert 1


@missing(AssertionError, tries=5)
def test_not_defined():
    assert 1
"""

REPOSITORY = {
    "pyproject.toml": '[project]\nname = "pkg"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "pkg/__init__.py": "",
    "pkg/testing/__init__.py": "from .utils import retry\n\n__all__ = ['retry']\n",
    "pkg/testing/utils.py": UTILS,
    "pkg/outer/__init__.py": "from pkg.testing import retry\n",
    "pkg/unrelated/__init__.py": "VERSION = 1\n",
    "tests/test_reexported.py": TESTS,
}


def test_a_decorator_re_exported_by_packages_is_read_where_it_is_defined(tmp_path):
    document = check(tmp_path, REPOSITORY)
    by_line = {f["line"]: f["message"] for f in findings(document, "DET103")}
    # Line 22 retries only ConnectionError: an assertion violation is not retried, so it
    # hides no violation; line 27's decorator is defined nowhere the repository holds.
    assert sorted(by_line) == [7, 12, 17]
    assert "retry (pkg/testing/utils.py:5, a while loop)" in by_line[7]
    assert "reported <0.001% of the time instead of 10.0%" in by_line[7]
    assert "10 attempts from tries=10 at the call" in by_line[7]
    assert "reported 0.010% of the time instead of 10.0%" in by_line[12]
    assert "4 attempts from tries=4 at the call" in by_line[12]
    assert "reported 1.0% of the time instead of 10.0%" in by_line[17]
