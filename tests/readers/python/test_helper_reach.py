"""Which modules' tests may reach a retried function: decorators and imports that
name a retry count, a word in an argument or a string does not (a product's own
``retries=`` setting fills many test files without any retried helper)."""

from __future__ import annotations

import ast
from types import SimpleNamespace

import pytest

from detlint.readers.python.helper_reach import may_reach_retries


def _reaches(source: str, names: tuple[str, ...] = ()) -> bool:
    module = ast.parse(source)
    classes = [node for node in module.body if isinstance(node, ast.ClassDef)]
    return may_reach_retries(SimpleNamespace(source=source, classes=classes), names)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "source",
    [
        "@retry(stop=stop_after_attempt(3))\ndef check():\n    assert ok()\n",
        "def test_x():\n    @tenacity.retry\n    def inner():\n        assert ok()\n",
        "@backoff.on_exception(backoff.constant, AssertionError)\ndef check(): ...\n",
        "@retry_on_failure(3)\ndef check(): ...\n",
        "from tenacity import retry as again\n\n@again()\ndef check(): ...\n",
        "import backoff\n",
        "class TestX(SharedTests):\n    pass\n",  # a base's methods may be retried
    ],
)
def test_a_retry_in_a_decorator_an_import_or_a_base_may_be_reached(source):
    assert _reaches(source)


@pytest.mark.parametrize(
    "source",
    [
        "@task(retries=3)\ndef flow_task(): ...\n\ndef test_flow():\n    assert flow_task()\n",
        'def test_x():\n    assert run(retries=2) == "retry later"\n',
        "# a flaky retry is not used here\ndef test_x():\n    assert True\n",
        "class TestX(TestCase):\n    def test_y(self):\n"
        "        self.assertTrue(retry_count() == 0)\n",
    ],
)
def test_a_retry_word_in_an_argument_a_string_or_a_call_is_not_a_retried_function(source):
    assert not _reaches(source)


def test_a_configured_retry_name_counts():
    assert _reaches("@again(3)\ndef check(): ...\n", ("project.again",))
