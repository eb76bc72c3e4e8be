"""The facts the CI pass reads out of pipeline files.

Buildkite, GitHub Actions and GitLab spell the same few ideas differently: a
job whose failure does not block (``soft_fail``, ``continue-on-error``,
``allow_failure``), a job that is run again when it fails (``retry``, retry
actions), and the shell commands a job runs. Each system's reader turns its own
spelling into these values; linking, the model and the rules never see YAML.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from detlint.base.span import Span

if TYPE_CHECKING:
    from detlint.readers.ci.shell.commands import CommandFacts, PytestRun, TestCall
    from detlint.readers.ci.shell.quiet_knobs import QuietKnob

System = Literal["buildkite", "github", "gitlab", "circleci"]

CiKnobKind = Literal[
    "soft-fail",  # Buildkite soft_fail (also in matrix adjustments and override blocks)
    "continue-on-error",  # GitHub Actions, job or step level
    "allow-failure",  # GitLab allow_failure (job level or inside rules:)
    "job-retry",  # Buildkite retry.automatic, GitLab retry
    "retry-action",  # GitHub retry actions (nick-fields/retry, Wandalen/wretry.action)
    "shell-retry",  # a retry written in the script: pytest || pytest --lf, a for loop
    "masked-status",  # a script's `|| true` or `set +e` around a command that runs no tests
    "fail-fast-off",  # GitHub strategy.fail-fast: false (informational)
    "continue-on-failure",  # Buildkite wait step continue_on_failure (not a soft fail)
    "skip",  # a step skipped by configuration
    "service-quarantine",  # a test service's client passes a step whose failures it quarantined
]

PYTEST_FAILED = 1  # pytest's exit status when tests failed
# How ``CiStep.calls`` names a child pipeline another job writes at run time (GitLab
# ``trigger: include: artifact``): named, never read.
GENERATED_CHILD = "artifact:"


@dataclass(frozen=True)
class ExitStatuses:
    """Which exit statuses a knob applies to; ``None`` means every non-zero status."""

    codes: frozenset[int] | None

    def covers(self, status: int) -> bool:
        return self.codes is None or status in self.codes

    def describe(self) -> str:
        if self.codes is None:
            return "any exit status"
        return "exit status " + ", ".join(str(c) for c in sorted(self.codes))


ANY_STATUS = ExitStatuses(None)


@dataclass(frozen=True)
class CiKnob:
    """One knob in a pipeline file, as written and as it acts on a test failure.

    ``covers_tests`` says whether the knob acts when pytest exits with 1 (tests
    failed): a retry rule on exit status -1 or a soft fail on 137 does not; None
    when that cannot be known statically (an expression, a template variable).
    ``attempts`` is, for a retry, the total number of runs a test failure gets
    (limit + 1, or the action's max_attempts); None for other kinds or when unknown.
    """

    kind: CiKnobKind
    system: System
    key: str  # the key path as written, e.g. "retry.automatic", "jobs.test.continue-on-error"
    span: Span  # from the key to the end of its value
    value: str  # the value's source text, shortened to one line
    covers_tests: bool | None
    attempts: int | None = None
    platform: str | None = None  # the override block it sits in, e.g. "amd" in mirror: {amd: ...}
    condition: str | None = None  # when it applies only sometimes (matrix entries, rules:)
    note: str = ""  # what a reader should know, e.g. "the first matching rule retries -1 only"
    # The job runs only when someone starts it (GitLab when: manual): whatever its
    # allow_failure, it masks no automatic result.
    optional: bool = False
    # A knob a script writes around a command that runs no tests (``apt-get ... ||
    # true``, a retry loop of ``curl``): that command's first word, for the census.
    acts_on: str = ""
    # The entries of the job's matrix it acts in (indexes into the expanded matrix),
    # when it acts in some only; None: in every entry, or not known per entry.
    entries: frozenset[int] | None = None


@dataclass(frozen=True)
class EnvSetting:
    """An environment variable a step sets (step ``env:``/``variables:``)."""

    name: str
    value: str
    span: Span


@dataclass(frozen=True)
class Reading:
    """A command as some entries of its job's matrix run it.

    ``tox run -e ${{ matrix.tox_env }}`` runs another tox environment in each entry;
    the CI system fills the expression in before the shell starts, so each distinct
    value is read as a text of its own. ``text`` is the command with the values the
    pipeline file decides filled in (what it cannot decide stays as written), ``env``
    the variables those entries set otherwise than as written (a ``TOXENV: ${{
    matrix.env }}``), closest last. ``condition`` says which entries these are, for a
    finding to say where it applies (None: every entry reads the same); ``entries``
    are their indexes in the job's expanded matrix. ``shifts`` map the text back to
    the command as written: (start, end) of each filled-in value on the first line,
    then the (start, end) of the expression it replaces.
    """

    text: str
    env: tuple[EnvSetting, ...] = ()
    condition: str | None = None
    entries: frozenset[int] | None = None
    shifts: tuple[tuple[int, int, int, int], ...] = ()

    def written_column(self, column: int, end: bool = False) -> int:
        """A column of the text's first line as a column of the command as written: a
        column inside a filled-in value is its expression's start (``end``: its end)."""
        moved = column
        for start, stop, written_start, written_stop in self.shifts:
            if column < start or (end and column == start):
                break
            if column < stop or (end and column == stop):
                return written_stop if end else written_start
            moved = column + written_stop - stop
        return moved


@dataclass(frozen=True)
class CiCommand:
    """One command string a step runs, with the knobs that wrap just this command.

    ``span`` covers the command's text in the pipeline file; ``line`` of a
    multi-line block is the block's first line. ``errexit``/``pipefail`` are the
    options of the shell the system runs it in (``bash -e`` without pipefail on
    Buildkite and GitHub's default shell).
    """

    text: str
    span: Span
    errexit: bool = True
    pipefail: bool = False
    knobs: tuple[CiKnob, ...] = ()  # e.g. a GitHub step's continue-on-error or a retry action
    env: tuple[EnvSetting, ...] = ()  # the step's own env (GitHub step env:)
    working_dir: str | None = None  # GitHub working-directory of this step
    # What the CI system did to the text before the shell read it (Buildkite's upload
    # interpolation), for a finding on this command to say.
    note: str | None = None
    name: str | None = None  # the step's own name, where it has one (GitHub's, CircleCI's)
    # How its job's matrix entries run it, when they run different texts or set its
    # variables otherwise than as written (``Reading``); empty: as written.
    readings: tuple[Reading, ...] = ()
    # Written as a YAML block scalar (``|``, ``>-``...): its text starts on the line after
    # the indicator, even when chomping leaves it one line with no line break.
    block: bool = False

    def span_of(self, run: PytestRun | TestCall | QuietKnob) -> Span:
        """Where a pytest invocation read from this text sits in the pipeline file.
        A block scalar's content starts on the line after ``|``, and YAML strips its
        indentation from the text, so there the span is the whole line."""
        span = self.span
        if span.end_line > span.line and (self.block or "\n" in self.text):
            line = span.line + 1 + run.line
            return Span(span.path, line, 1, line, 1)
        if run.line == 0:
            quoted = span.end_column - span.column > len(self.text)
            start = span.column + run.column + (1 if quoted else 0)
            width = run.end_column - run.column
            return Span(span.path, span.line, start, span.line, start + width)
        line = span.line + run.line
        return Span(span.path, line, 1, line, run.end_column + 1)


@dataclass(frozen=True)
class CiStep:
    """A unit of work the CI system runs and judges as one: a Buildkite command
    step, a GitHub Actions job, a GitLab job (one per platform override copy).

    ``knobs`` act on the whole step; a command's own knobs act on that command.
    """

    system: System
    path: str  # the pipeline file, as displayed
    span: Span  # the step's first line (its key or list item)
    name: str  # label, key or job id as a person would recognise it
    commands: tuple[CiCommand, ...]
    knobs: tuple[CiKnob, ...] = ()
    env: tuple[EnvSetting, ...] = ()
    working_dir: str | None = None
    parallelism: int | None = None
    matrix: str | None = None  # a short description when the step is a matrix
    platform: str | None = None
    # A reusable workflow of the repository the job runs in its place (GitHub ``uses:
    # ./.github/workflows/x.yml``), relative to the checkout: its jobs inherit the knobs.
    # A child pipeline written at run time is ``GENERATED_CHILD`` and its artifact's path.
    calls: str | None = None
    # The literal inputs it hands that workflow (``with:``), for ``${{ inputs.x }}`` there.
    passes: tuple[tuple[str, bool | int | float | str], ...] = ()
    # The inputs it hands for each entry of its own matrix, when some read it
    # (``with: {python: ${{ matrix.python }}}``): one tuple of (name, value) per entry.
    pass_entries: tuple[tuple[tuple[str, object], ...], ...] = ()
    stage: str | None = None  # the GitLab stage it runs in (run_testsuite, test...)


@dataclass(frozen=True)
class PipelineFacts:
    """What one pipeline file holds, and other files it hands control to."""

    path: str
    system: System
    steps: tuple[CiStep, ...]
    knobs: tuple[CiKnob, ...] = ()  # knobs not tied to a step (e.g. GitLab default: retry)
    references: tuple[str, ...] = ()  # files it uploads / includes, as written (relative)
    # Where the CI system checks the repository out, relative to detlint's root
    # ("" for the root itself): the directory holding .buildkite/, .github/ or
    # .gitlab-ci.yml. Paths in steps (targets, working directories) start here.
    base: str = ""
    # Each shell script of its steps (``script_groups``) as read, keyed by ``script_key``:
    # read where the file is read, which on a large setup is in a worker process.
    shell: tuple[tuple[ScriptKey, CommandFacts], ...] = ()
    # A reusable workflow's declared input defaults (``on.workflow_call.inputs``): what a
    # caller that does not pass an input hands it.
    input_defaults: tuple[tuple[str, object], ...] = ()


# What one shell runs: the text, and whether it starts with errexit and pipefail.
ScriptKey = tuple[str, bool, bool]


def script_groups(step: CiStep) -> list[tuple[CiCommand, ...]]:
    """Commands that run in one shell: Buildkite and GitLab run a step's command list
    as one script (a ``cd`` or ``export`` carries over); GitHub runs each step alone."""
    if step.system in ("buildkite", "gitlab") and step.commands:
        return [step.commands]
    return [(command,) for command in step.commands]


def command_starts(group: Sequence[CiCommand]) -> list[int]:
    """The line of a group's script each of its commands starts on."""
    starts = [0]
    for command in group[:-1]:
        starts.append(starts[-1] + command.text.count("\n") + 1)
    return starts


def script_key(group: Sequence[CiCommand]) -> ScriptKey:
    """A script's text (its commands, one per line) and the shell options it starts with."""
    return ("\n".join(command.text for command in group), group[0].errexit, group[0].pipefail)


# `export NAME=`, `NAME=value cmd`, `echo "NAME=value" >> "$GITHUB_ENV"`: any assignment,
# but not a long option (`--junitxml=`, `--num-shards=`), which sets no variable.
_ASSIGNMENT = re.compile(r"(?<![-\w])([A-Za-z_]\w*)=")


def pipeline_env_names(pipelines: Iterable[PipelineFacts]) -> set[str]:
    """Variables the pipelines set (step env and ``export``): candidate trial knobs."""
    names: set[str] = set()
    texts: set[str] = set()  # generated pipelines repeat their commands: read each once
    for pipeline in pipelines:
        for step in pipeline.steps:
            names.update(setting.name for setting in step.env)
            for command in step.commands:
                if command.env:
                    names.update(setting.name for setting in command.env)
                if command.text not in texts:
                    texts.add(command.text)
                    if "=" in command.text:
                        names.update(_ASSIGNMENT.findall(command.text))
    # Short names (CI, HOME, TERM) are everywhere and never a trial knob.
    return {name for name in names if len(name) >= 4}
