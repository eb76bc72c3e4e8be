"""Whether the tests of a module can reach a retried function at all, from its text.

Following every call a test makes, through its module's functions and those it
imports, costs more than the rest of a module's read on large suites, and most
modules reach no retried function. A module can when its own text names a retry
in a decorator or an import (or a configured retry name), when it imports a name
from a module that holds one (the repository's ``knob_imports``), or when one of its
classes inherits from a class defined elsewhere (a base's methods may be retried).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from detlint.readers.python.module_index import ModuleIndex

_WORDS = r"retry|retries|rerun|backoff|tenacity|flaky"
# A retried function of the module is one a decorator names a retry: the decorator's own
# name holds the word (``@retry(...)``, ``@tenacity.retry``, ``@backoff.on_exception``,
# ``@retry_on_failure``), or the module imports a retry under another name (``from
# tenacity import retry as r``). A word in an argument (``@task(retries=3)``, a product's
# own retry setting) or in a string names no retried function.
_RETRY_WORDS = re.compile(
    rf"^[ \t]*@[ \t]*[\w.]*(?:{_WORDS})|^[ \t]*(?:from|import)[ \t][^\n]*(?:{_WORDS})",
    re.I | re.M,
)
_PLAIN_BASES = frozenset({"object", "TestCase", "IsolatedAsyncioTestCase"})


def may_reach_retries(index: ModuleIndex, retry_names: Iterable[str]) -> bool:
    """Whether a test of the module may call a function with a retry decorator."""
    source = index.source
    if _RETRY_WORDS.search(source) is not None:
        return True
    if any(name.rsplit(".", 1)[-1] in source for name in retry_names):
        return True
    local = {klass.name for klass in index.classes}
    for klass in index.classes:
        for base in klass.bases:
            name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
            if name and name not in local and name not in _PLAIN_BASES:
                return True
    return False
