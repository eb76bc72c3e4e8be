"""Which pytest options take a value, and where that knowledge comes from.

Telling rerun knobs from test targets in a pytest argument list needs to know
which options take a value: in ``pytest -n 4 tests`` the ``4`` is xdist's
worker count, and in ``pytest --cov src tests`` ``src`` is pytest-cov's source,
not a target. The table below is the one place that knowledge lives, grouped by
the plugin (and release) each option was read from, so that it can be checked
against a new release; ``arguments.py`` reads argument lists with it.

pytest's parser is argparse with ``allow_abbrev=False`` (pytest 9.2.0
``_pytest/config/argparsing.py``), so only exact option names count and a
prefix such as ``--rerun 3`` is not ``--reruns``.
"""

from __future__ import annotations

from dataclasses import dataclass

# Options that take a value, grouped by the plugin that adds them. Each entry
# lists the spellings of one option; the first spelling is its canonical name.
# A "?" suffix on the canonical name marks nargs="?": the option takes the next
# word only when that word does not look like an option (argparse's rule).
# An option missing from this table is read as a flag when written without
# "=": a flag that swallowed a target would hide a test path, while a missed
# value only adds a bogus target, which is the cheaper mistake.
_VALUE_OPTION_SOURCES: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    (
        # pytest 9.2.0, every store/append option of _pytest/*.py pytest_addoption
        # (dumped from the installed parser).
        "pytest",
        (
            ("-k",),
            ("-m",),
            ("-p",),
            ("-c", "--config-file"),
            ("-o", "--override-ini"),
            ("-r", "--report-chars"),
            ("-W", "--pythonwarnings"),
            ("--rootdir",),
            ("--basetemp",),
            ("--confcutdir",),
            ("--junitxml", "--junit-xml"),
            ("--junitprefix", "--junit-prefix"),
            ("--maxfail",),
            ("--deselect",),
            ("--ignore",),
            ("--ignore-glob",),
            ("--durations",),
            ("--durations-min",),
            ("--tb",),
            ("--show-capture",),
            ("--capture",),
            ("--assert",),
            ("--color",),
            ("--code-highlight",),
            ("--import-mode",),
            ("--doctest-glob",),
            ("--doctest-report",),
            ("--pastebin",),
            ("--pdbcls",),
            ("--lfnf", "--last-failed-no-failures"),
            ("--verbosity",),
            ("--max-warnings",),
            ("--log-level",),
            ("--log-format",),
            ("--log-date-format",),
            ("--log-cli-level",),
            ("--log-cli-format",),
            ("--log-cli-date-format",),
            ("--log-file",),
            ("--log-file-mode",),
            ("--log-file-level",),
            ("--log-file-format",),
            ("--log-file-date-format",),
            ("--log-auto-indent",),
            ("--log-disable",),
            ("--cache-show?",),
            ("--debug?",),
        ),
    ),
    (
        # pytest-rerunfailures 16.7 pytest_addoption (semantics.md §1).
        "pytest-rerunfailures",
        (
            ("--reruns",),
            ("--reruns-delay",),
            ("--reruns-delay-backoff-factor",),
            ("--only-rerun",),
            ("--rerun-except",),
            ("--rerun-exclude-path",),
            ("--force-reruns",),
            ("--reruns-mode",),
            ("--max-suite-reruns",),
        ),
    ),
    (
        # flaky 3.8.1 add_force_flaky_options (semantics.md §2).
        "flaky",
        (("--max-runs",), ("--min-passes",)),
    ),
    (
        # pytest-retry 1.7.0 pytest_addoption: --cumulative-timing is action="store",
        # type=bool, so it takes a value despite reading like a flag.
        "pytest-retry",
        (("--retries",), ("--retry-delay",), ("--retry-outcome",), ("--cumulative-timing",)),
    ),
    (
        # pytest-repeat 0.9.4 and pytest-flakefinder 1.1.0 (semantics.md §3).
        "pytest-repeat, pytest-flakefinder",
        (("--count",), ("--repeat-scope",), ("--flake-runs",), ("--flake-max-minutes",)),
    ),
    (
        # pytest-xdist: -n/--numprocesses, --dist, --tx and friends.
        "pytest-xdist",
        (
            ("-n", "--numprocesses"),
            ("--maxprocesses",),
            ("--max-worker-restart",),
            ("--dist",),
            ("--tx",),
            ("--px",),
            ("--rsyncdir",),
            ("--rsyncignore",),
            ("--testrunuid",),
            ("--maxschedchunk",),
        ),
    ),
    (
        # pytest-cov: --cov is nargs="?" (const=True), the rest need a value.
        "pytest-cov",
        (
            ("--cov?",),
            ("--cov-report",),
            ("--cov-config",),
            ("--cov-fail-under",),
            ("--cov-context",),
            ("--cov-precision",),
        ),
    ),
    (
        # pytest-benchmark 5.1: --benchmark-compare, -histogram and -cprofile-dump take
        # an optional value, the rest below need one.
        "pytest-benchmark",
        (
            ("--benchmark-json",),
            ("--benchmark-save",),
            ("--benchmark-storage",),
            ("--benchmark-columns",),
            ("--benchmark-sort",),
            ("--benchmark-group-by",),
            ("--benchmark-name",),
            ("--benchmark-timer",),
            ("--benchmark-min-time",),
            ("--benchmark-max-time",),
            ("--benchmark-min-rounds",),
            ("--benchmark-calibration-precision",),
            ("--benchmark-warmup-iterations",),
            ("--benchmark-time-unit",),
            ("--benchmark-cprofile",),
            ("--benchmark-compare-fail",),
            ("--benchmark-compare?",),
            ("--benchmark-histogram?",),
        ),
    ),
    (
        # pytest-timeout 2.4.0.
        "pytest-timeout",
        (("--timeout",), ("--timeout-method", "--timeout_method"), ("--session-timeout",)),
    ),
    (
        # Other common plugins seen in CI commands: pytest-randomly, pytest-html,
        # pytest-json-report, pytest-split, pytest-test-groups, hypothesis,
        # pytest-django, pytest-asyncio, pytest-playwright, pytest-reportlog,
        # allure-pytest, buildkite-test-collector.
        "other plugins",
        (
            ("--randomly-seed",),
            ("--random-order-seed",),
            ("--random-order-bucket",),
            ("--html",),
            ("--css",),
            ("--json-report-file",),
            ("--splits",),
            ("--group",),
            ("--splitting-algorithm",),
            ("--durations-path",),
            ("--test-group-count",),
            ("--test-group",),
            ("--test-group-random-seed",),
            ("--hypothesis-profile",),
            ("--hypothesis-seed",),
            ("--hypothesis-verbosity",),
            ("--ds",),
            ("--dc",),
            ("--asyncio-mode",),
            ("--browser",),
            ("--report-log",),
            ("--alluredir",),
            ("--json",),
        ),
    ),
)


@dataclass(frozen=True)
class ValueOption:
    """How pytest reads an option that takes a value."""

    canonical: str  # the first spelling in the table, e.g. "-c" for --config-file
    optional: bool  # nargs="?"


def _build_table() -> dict[str, ValueOption]:
    table: dict[str, ValueOption] = {}
    for _source, groups in _VALUE_OPTION_SOURCES:
        for spellings in groups:
            optional = spellings[0].endswith("?")
            canonical = spellings[0].rstrip("?")
            for spelling in spellings:
                table[spelling.rstrip("?")] = ValueOption(canonical, optional)
    return table


# Every spelling of a value-taking option.
VALUE_OPTIONS: dict[str, ValueOption] = _build_table()

# Flags whose long and short spellings should compare equal.
FLAG_ALIASES = {"--exitfirst": "-x", "--quiet": "-q", "--verbose": "-v", "--showlocals": "-l"}

FLAKE_FINDER_DEFAULT_RUNS = 50  # pytest-flakefinder 1.1.0 --flake-runs default
