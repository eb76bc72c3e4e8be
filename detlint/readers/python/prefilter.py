"""The byte-level prefilter: which files might hold a knob at all.

Most test files hold none, and parsing is the expensive step, so a file is
parsed only when its bytes contain a token a knob needs. The tokens are
identifiers (``flaky``, ``xfail``, ``retry``, configured decorator names) and
are searched as written, since Python names are case-sensitive; lowercasing
every file first would cost as much as a token search. Skip reasons are prose,
so the words that say "flaky" are looked for, in any case, only near a
``skip``: on its line and in the few hundred bytes after it, where the reason
or the comment that detlint reads is written. This module imports nothing
heavy: a run whose files all fail the prefilter never imports the modules that
parse and read Python.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from detlint.readers.reasons import FLAKY_STEMS

if TYPE_CHECKING:
    from detlint.readers.python.facts import NamedWrap

# A file is parsed only if its bytes hold one of these.
# (`rerun` and `retries` for the names a repository gives its own retry decorators.)
KNOB_TOKENS = (
    b"flaky",
    b"xfail",
    b"retry",
    b"retries",
    b"rerun",
    b"backoff",
    b"add_marker",
    b"quarantin",
    b"allow_module_level",  # a module that skips all its tests from its top level
)
TRIAL_TOKENS = (b"getenv", b"environ")
# What a helper or conftest.py that exports more than a knob holds: a trial count read
# from the environment, a skip, a parametrize or usefixtures mark (``may_export``).
_EXPORT_TOKENS = (*TRIAL_TOKENS, b"skip", b"parametrize", b"usefixtures")
# What code that skips or xfails while it runs holds (a test body, a fixture, a hook).
IMPERATIVE_TOKENS = (
    b"skip(",
    b"xfail(",
    b"skipTest(",
    b"SkipTest",
    b"applymarker(",
    b"add_marker(",
)
# What code that fixes what a test draws holds: a seed (``manual_seed``, ``set_seed``,
# ``seed_everything``, ``random.seed``), a seeded source (``default_rng(0)``,
# ``RandomState(0)``, ``random.Random(0)``, ``PRNGKey(0)``) or a recording (a cassette).
REPLAY_TOKENS = (
    b"seed",
    b"PRNGKey",
    b"default_rng",
    b"RandomState",
    b"Random(",
    b"cassette",
    b"vcr",
    b"betamax",
)
# How far after a `skip` its reason (or the comment on its line) is looked for.
REASON_WINDOW = 400
# A conftest hook that replaces an item's function: `item.obj = retry(item.obj)`.
HOOK_WRAP_TOKEN = re.compile(rb"""\.obj\s*=|["']obj["']""")
# A test module that wraps its tests by name at its top level: `setattr(...)` as a
# statement, or `test_x = retry(test_x)` / `TestA.test_x = retry(TestA.test_x)`.
_REWRAP = re.compile(
    rb"^(?:setattr\(|for\b.*:\s*\n[ \t]+setattr\(|([\w.]+)[ \t]*=[ \t]*[\w.]+(?:\(.*\))?\(\1\))",
    re.M,
)


FLAKY_TOKENS = tuple(stem.lower().encode() for stem in FLAKY_STEMS)

# A retry loop written in a test body (``body_retries``): ``for attempt in range(3):``
# with a ``try`` among its first few statements, whose handler starts with an ``if``
# that re-raises (``if attempt == 2: raise``). It holds no knob token of its own.
_RETRY_LOOP = re.compile(
    rb"^[ \t]*for[ \t]+\w+[ \t]+in[ \t]+range\([^\n]*:[ \t]*\n(?:[^\n]*\n){0,4}?[ \t]*try[ \t]*:"
    rb"[^\n]*\n(?:[^\n]*\n){0,20}?[ \t]*except\b[^\n]*:[ \t]*\n"
    rb"[ \t]*if\b[^\n]*:[ \t]*\n[ \t]*raise[ \t]*(?:#[^\n]*)?$",
    re.MULTILINE,
)


def retry_loop(data: bytes) -> bool:
    """Whether a file (or block) may hold a retry loop in a test body."""
    return b"try" in data and b"range(" in data and _RETRY_LOOP.search(data) is not None


def skip_says_flaky(data: bytes) -> bool:
    """Whether a word that says "flaky" follows some ``skip``/``Skip`` closely, in any case.

    One scan for ``kip`` finds both spellings (``pytest.skip``, ``skipif``,
    ``SkipTest``, ``unittest.skipIf``) at the cost of one token search.
    """
    start = data.find(b"kip", 1)
    while start >= 0:
        if data[start - 1] in b"sS":
            line = data.rfind(b"\n", 0, start) + 1
            window = data[line : start + REASON_WINDOW].lower()
            if any(word in window for word in FLAKY_TOKENS):
                return True
        start = data.find(b"kip", start + 3)
    return False


def rewraps(data: bytes) -> bool:
    """Whether a test module wraps its tests by name at the top level (it is then
    parsed whole: the tests wrapped hold no knob token of their own)."""
    return (b"setattr(" in data or b" = " in data) and _REWRAP.search(data) is not None


def may_pick(wrap: NamedWrap, filename: str, data: bytes) -> bool:
    """Whether a hook's wrap may pick a test of a file: a node id listed names its file, a
    name listed is in its text, a glob or no condition at all may pick any test. Names
    detlint cannot list pick none it can tell (the wrap is judged on its own)."""
    if wrap.match == "all" or wrap.match == "glob":
        return True
    if wrap.names is None:
        return False
    if wrap.match == "nodeid":
        return any(entry.split("::", 1)[0].endswith(filename) for entry in wrap.names)
    return any(name.encode() in data for name in wrap.names)


_SELF_RUN = re.compile(rb"pytest\.main\((?:[^()]|\([^()]*\))*?__file__")


def runs_itself(data: bytes) -> bool:
    """Whether a file runs pytest on itself (``pytest.main([__file__])``): pytest then
    collects its tests whatever ``python_files`` says."""
    return b"__file__" in data and b"pytest.main(" in data and bool(_SELF_RUN.search(data))


def may_replay(data: bytes) -> bool:
    """Whether a file can fix what its tests draw (``replays``): such a test file is
    parsed whole, since the statements that seed sit in bodies narrowing would drop."""
    return any(token in data for token in REPLAY_TOKENS)


_FIXTURE_PARAMS = re.compile(rb"fixture\([^)]*\bparams\s*=")


def may_param_fixtures(data: bytes) -> bool:
    """Whether a file can define a fixture with ``params``: such a test file is parsed
    whole, since a fixture its tests request (or one that passes it on) multiplies
    their instances, and narrowing keeps only the fixtures that can hold a knob."""
    return b"params" in data and bool(_FIXTURE_PARAMS.search(data))


def may_loop(data: bytes) -> bool:
    """The trial half of the prefilter: a ``range(`` loop and an environment read."""
    return b"range(" in data and any(token in data for token in TRIAL_TOKENS)


class Prefilter:
    """The byte-level test for "might hold a knob".

    A plain class, not a frozen dataclass: it is a matcher that caches its tokens, set
    up once per run, and a dataclass costs a one-file run's start-up several times
    more to define. Nothing changes its fields after ``__init__``.
    """

    def __init__(
        self,
        extra: tuple[bytes, ...] = (),
        trials: bool = False,
        variables: tuple[bytes, ...] = (),
        readers: tuple[bytes, ...] = (),
        everything: bool = False,
    ) -> None:
        self.extra = extra  # configured names, searched as written
        self.trials = trials  # also parse files with trial loops (for DET301)
        # Variables pipelines set (for DET302): a file can read one only where it reads
        # the environment (os.getenv, os.environ or a configured reader), so they count
        # only there.
        self.variables = variables
        self.readers = readers  # configured environment readers, by their last name
        # Every test file, whole: pytest's config reruns every collected test, knob or not.
        self.everything = everything

    def replaced(
        self,
        *,
        trials: bool | None = None,
        variables: tuple[bytes, ...] | None = None,
        everything: bool | None = None,
    ) -> Prefilter:
        """The same prefilter with trial loops counted, the pipelines' variables, or
        every test file wanted."""
        return Prefilter(
            self.extra,
            self.trials if trials is None else trials,
            self.variables if variables is None else variables,
            self.readers,
            self.everything if everything is None else everything,
        )

    @functools.cached_property
    def _tokens(self) -> tuple[bytes, ...]:
        return KNOB_TOKENS + self.extra

    @functools.cached_property
    def _env_tokens(self) -> tuple[bytes, ...]:
        return TRIAL_TOKENS + self.readers

    def _names_variable(self, data: bytes) -> bool:
        """Whether ``data`` names any of ``variables``: a substring test per name, which
        is a fast search each, where one pattern of dozens of alternatives tried at
        every byte is not."""
        return any(name in data for name in self.variables)

    def _knob(self, data: bytes, whole: bool = True) -> bool:
        for token in self._tokens:
            if token in data:
                return True
        # In a whole file a variable counts only where the file reads the environment;
        # in one block of such a file, wherever it is named (a helper may do the reading).
        if (
            self.variables
            and (not whole or self.reads_environment(data))
            and self._names_variable(data)
        ):
            return True
        return retry_loop(data) or skip_says_flaky(data)

    def reads_environment(self, data: bytes) -> bool:
        """Whether a file reads the environment: only then can the pipelines' variables
        make a whole file worth parsing (see ``_knob``)."""
        return any(token in data for token in self._env_tokens)

    def wants(self, data: bytes) -> bool:
        """Whether a whole file might hold a knob (or, for DET301, an env-driven trial loop)."""
        if self.everything or self._knob(data):
            return True
        return self.trials and may_loop(data)

    def may_export(self, data: bytes) -> bool:
        """Whether a helper or conftest.py can define a mark alias or a trial fixture.

        A skip or xfail alias, a mark factory (``RunIf``) or a fixture that skips counts
        too: it says where a test does not run; so does a ``parametrize`` or
        ``usefixtures`` alias, which says how many instances a test has and which
        fixtures it uses. Such a module is read only when a test file imports it or runs
        under it, so the broader test costs little.
        """
        return self._knob(data) or any(token in data for token in _EXPORT_TOKENS)

    def wants_block(self, text: str) -> bool:
        """Whether one block of a candidate file must be parsed.

        For DET301 a trial loop and the env read bounding it usually sit in
        different blocks, so each is kept on its own token.
        """
        data = text.encode("utf-8", "surrogatepass")
        if self.everything or self._knob(data, whole=False):
            return True
        return self.trials and (b"range(" in data or any(t in data for t in TRIAL_TOKENS))


# A retry decorator on a function that is no test: a test calling it is retried through
# it (``helper_retries``), and its body, which narrowing would drop, must be read.
_RETRIED_HELPER = re.compile(
    rb"^[ \t]*@[^\n]*(?:retry|retries|rerun|backoff)[^\n]*\n(?:[ \t]*@[^\n]*\n)*"
    rb"[ \t]*(?:async[ \t]+)?def[ \t]+(?!test)\w",
    re.MULTILINE,
)


def retried_helpers(data: bytes) -> bool:
    """Whether a file may define a retried function its tests call."""
    return _RETRIED_HELPER.search(data) is not None


# What a module that may rerun its own tests when run as a script holds: its
# ``__main__`` block calls ``pytest.main`` with a rerun option (``script_runs``).
_SCRIPT_RERUNS = (b"--reruns", b"--force-reruns", b"--retries", b"--force-flaky")


def reruns_itself(data: bytes) -> bool:
    """Whether a module may hand its own ``pytest.main`` a rerun option: every test of
    the file is then reached, the ones without a knob token too."""
    return b"__main__" in data and any(token in data for token in _SCRIPT_RERUNS)


def read_whole(data: bytes) -> bool:
    """Whether a test module is read whole, not narrowed: a loop or hook rewraps its
    tests by name, it may seed, it may define a retried function its tests call, or
    it may rerun its tests when run as a script."""
    return rewraps(data) or may_replay(data) or retried_helpers(data) or reruns_itself(data)
