"""Which decorator factories, applied bare, leave a test that never runs: the inner
function put in the test's place must never call, nor hand on, what it is given."""

from __future__ import annotations

import ast
import textwrap

from detlint.readers.python.bare_factories import BareFactory, bare_factory


def _factory(source: str) -> BareFactory | None:
    tree = ast.parse(textwrap.dedent(source))
    function = tree.body[-1]
    assert isinstance(function, ast.FunctionDef)
    return bare_factory(function)


def test_an_inner_decorator_that_only_wraps_and_sets_attributes_runs_nothing():
    found = _factory(
        """
        def is_flaky(max_attempts=5, description=None):
            def decorator(obj):
                if inspect.isclass(obj):
                    for name, value in list(obj.__dict__.items()):
                        setattr(obj, name, decorator(value))
                    return obj

                @functools.wraps(obj)
                def wrapper(*args, **kwargs):
                    return obj(*args, **kwargs)

                return wrapper

            return decorator
        """
    )
    assert found == BareFactory("max_attempts", "decorator", "obj")


def test_an_inner_decorator_that_calls_or_hands_on_its_argument_may_run_the_test():
    calls = """
        def repeat(times=3):
            def decorator(test):
                for _ in range(times):
                    test()
                return test
            return decorator
        """
    hands = """
        def retry(times=3):
            def decorator(test):
                return pool.submit(test)
            return decorator
        """
    assert _factory(calls) is None
    assert _factory(hands) is None


def test_only_a_factory_whose_first_parameter_defaults_to_a_number_is_taken_bare():
    """A first parameter defaulting to None may be meant for the function itself
    (``def retry(func=None, *, times=3)``), and a factory returning more than one
    thing is not read."""
    meant_bare = """
        def retry(func=None, times=3):
            def decorator(test):
                return test
            return decorator
        """
    two_returns = """
        def retry(times=3, fast=False):
            def decorator(test):
                return test
            def other(test):
                return test
            if fast:
                return other
            return decorator
        """
    assert _factory(meant_bare) is None
    assert _factory(two_returns) is None
