"""One run of detlint over a set of paths, as named phases.

``paths -> discover -> read (facts) -> compose (each test's policy, alone and under each CI run)
-> judge (findings)``. Reading is the expensive phase: the Python pass parses only the files the
byte prefilter keeps (every test file where pytest's config reruns every test), the CI pass reads
every pipeline, both over the cores when there are enough to pay for worker processes, and the
Python files are sifted while the pipelines are read. Later phases ask one
:class:`~detlint.readers.repository.Repository` (its files, pytest's config of a directory...)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from detlint.base.cores import default_jobs
from detlint.base.paths import display_paths
from detlint.base.progress import NULL_PROGRESS, Progress
from detlint.base.span import Problem, unique_problems
from detlint.readers.ci import YAML_SUFFIXES
from detlint.readers.project.discovery import Discovery, discover_files
from detlint.readers.project.scope import PYTEST_CONFIG_FILES, may_rerun, options_for_run, widened
from detlint.readers.project.settings import Settings
from detlint.readers.python.options import ScanOptions
from detlint.readers.python.prefilter import Prefilter
from detlint.readers.python.repository import LoopOnly, PythonRepository
from detlint.readers.repository import PARALLEL_THRESHOLD, Repository, scan_files

if TYPE_CHECKING:
    from detlint.base.facts_cache import FactsCache
    from detlint.compose.ci.analysis import CiAnalysis
    from detlint.compose.ci.script_runs import ScriptLink
    from detlint.compose.ci.unreached_runs import UnreachedRun
    from detlint.compose.test_gate import TestGate
    from detlint.readers.ci.facts import PipelineFacts
    from detlint.readers.dependencies.declarations import PluginEvidence
    from detlint.readers.project.pytest_config import PytestConfig
    from detlint.readers.project.pytest_configs import PytestConfigs
    from detlint.readers.project.vendored_runs import NamedSubtree
    from detlint.readers.python.facts import ModuleFacts
    from detlint.rules.finding import Finding


@dataclass(frozen=True)
class Analysis:
    """Everything one run learned: facts, composed gates, findings."""

    root: Path
    modules: tuple[ModuleFacts, ...]
    gates: tuple[TestGate, ...]
    configs: tuple[PytestConfig, ...]
    evidence: PluginEvidence | None  # read only when there is a marker to interpret
    problems: tuple[Problem, ...]
    findings: tuple[Finding, ...]
    checked: tuple[Path, ...]  # the files checked, as discovered
    linted: int | None = None  # of them linted (tests, configs, pipelines); None: all
    ci: CiAnalysis | None = None  # None when the run read no pipeline
    # Pipelines of systems detlint does not read (Azure Pipelines): (path, system).
    not_read: tuple[tuple[str, str], ...] = ()
    vendored: tuple[str, ...] = ()  # vendored directories skipped, as displayed
    vendored_read: tuple[NamedSubtree, ...] = ()  # their subtrees read: tests run there
    # The run's pytest configs, for the audit's questions about a test's directory.
    pytest_configs: PytestConfigs | None = None
    # The rules the run ran (None: every rule), for the audit's account of silent knobs.
    selected: frozenset[str] | None = None

    @property
    def files_checked(self) -> int:
        return len(self.checked) if self.linted is None else self.linted


class Request(NamedTuple):
    """What a run is asked to do: the paths (widened to the projects that dependency
    and config files configure), from where, under which settings and rules."""

    paths: Sequence[Path]
    cwd: Path
    settings: Settings
    selected: frozenset[str]
    cache: FactsCache | None
    progress: Progress


class Read(NamedTuple):
    """What the read phase found: the Python facts, the pipelines, the files not read."""

    lint_files: list[Path]  # the Python files linted
    config_files: list[Path]  # pytest's config files among the files checked
    modules: list[ModuleFacts]
    looping: list[Path]  # test files ruled out that hold a trial loop
    pipelines: tuple[PipelineFacts, ...]
    not_read: tuple[tuple[str, str], ...]
    problems: list[Problem]
    as_context: bool  # the pipelines are context for a run on some files of the tree
    tests: int = 0  # test modules and conftest.py files linted (read, knob or not)

    @property
    def files_linted(self) -> int:
        """Tests, pytest configs and pipelines linted (not pipelines read as context)."""
        return self.tests + len(self.config_files) + (0 if self.as_context else len(self.pipelines))


class Composed(NamedTuple):
    """Each test's gates and the configs they were composed under."""

    gates: list[TestGate]
    configs: dict[Path, PytestConfig]  # by the directory of a linted file
    evidence: PluginEvidence | None
    problems: list[Problem]
    scripts: list[ScriptLink]  # test modules' own pytest.main runs, with their tests


def analyse(
    paths: Sequence[Path],
    cwd: Path,
    settings: Settings,
    selected: frozenset[str],
    jobs: int | None = None,
    cache: FactsCache | None = None,
    progress: Progress = NULL_PROGRESS,
    discovery: Discovery | None = None,
) -> Analysis:
    """Analyse ``paths`` (their files, when ``discovery`` knows them), phase by phase."""
    request = Request(widened(paths, cwd), cwd, settings, selected, cache, progress)
    if discovery is None:
        discovery = discover_files(request.paths, cwd, settings)
    repository = Repository(discovery.root, cwd, settings, jobs or default_jobs())
    repository.vendored_runs = bool(discovery.vendored_read)  # then files() holds them
    read = read_repository(request, discovery, repository)
    composed = compose_tests(request, read, repository)
    ci = compose_ci(request, read, composed, repository)
    if ci is not None and ci.named:  # files steps name, read though not named like tests
        named = read._replace(modules=list(ci.named), pipelines=())
        extra = compose_tests(request, named, repository)
        read = read._replace(modules=[*read.modules, *ci.named])
        gates, mapped = [*composed.gates, *extra.gates], {**extra.configs, **composed.configs}
        scripts = [*composed.scripts, *extra.scripts]
        composed = composed._replace(gates=gates, configs=mapped, scripts=scripts)
    configs = linted_configs(read, composed, repository)
    problems = unique_problems(
        [*discovery.problems, *read.problems, *composed.problems]
        + [problem for config in configs for problem in config.problems]
    )
    from detlint.compose.ci.unreached_runs import unreached_runs

    unreached = unreached_runs(request.paths, repository, ci, request.selected)
    findings = judge(request, composed, configs, problems, ci, unreached)
    if read.as_context:
        # The paths the run was given and could not read are its own business too.
        kept = display_paths(read.lint_files, repository.root, repository.cwd) | {
            p.span.path for p in discovery.problems
        }
        from detlint.rules.reported import about_linted_files

        findings = about_linted_files(findings, kept, configs)
    return Analysis(
        root=repository.root,
        modules=tuple(read.modules),
        gates=tuple(composed.gates),
        configs=configs,
        evidence=composed.evidence,
        problems=problems,
        findings=findings,
        checked=tuple(discovery.files),
        linted=read.files_linted + len(ci.named if ci is not None else ()),
        ci=ci,
        not_read=read.not_read,
        vendored=discovery.vendored,
        vendored_read=discovery.vendored_read,
        pytest_configs=repository.configs_read,
        selected=request.selected,
    )


def read_repository(request: Request, discovery: Discovery, repository: Repository) -> Read:
    """Read the Python files and pipelines (for a run on part of a tree, those that run it)."""
    settings, progress = request.settings, request.progress
    lint_files = [path for path in discovery.files if path.suffix == ".py"]
    config_files = [path for path in discovery.files if path.name in PYTEST_CONFIG_FILES]
    extra = tuple(name.rsplit(".", 1)[-1].encode() for name in settings.retry_decorators)
    readers = tuple(name.rsplit(".", 1)[-1].encode() for name in settings.trial_env_readers)
    options, with_configs = options_for_run(
        ScanOptions(retry_names=settings.retry_decorators, env_readers=settings.trial_env_readers),
        request.paths,
        lint_files,
        config_files,
        request.cwd,
    )
    if with_configs:
        from detlint.readers.project.collection import scan_options

        options = scan_options(
            options, config_files, lint_files, repository.root, repository.configs
        )
    rerun = repository.configs.rerun_any({path.parent for path in lint_files})
    prefilter = Prefilter(extra, "DET301" in request.selected, readers=readers, everything=rerun)
    pipelines: tuple[PipelineFacts, ...] = ()
    not_read: tuple[tuple[str, str], ...] = ()
    problems: list[Problem] = []
    if any(path.name.lower().endswith(YAML_SUFFIXES) for path in discovery.files):
        scanned, pipelines, not_read, problems = _read_both(
            request, discovery, repository, lint_files, options, prefilter
        )
    else:
        repository.python = PythonRepository(repository.root, request.cwd, options, prefilter)
        progress.phase("reading files", len(lint_files))
        scanned = scan_files(repository.python, lint_files, repository.jobs, progress)
    progress.advance(len(lint_files))  # done, however much of it this process counted
    modules: list[ModuleFacts] = []
    looping: list[Path] = []
    python, tests = repository.python, 0
    for path, result in zip(lint_files, scanned, strict=True):
        tests += result is not None or python.is_test_file(path)
        if isinstance(result, Problem):
            problems.append(result)
        elif isinstance(result, LoopOnly):
            looping.append(path)
        elif result is not None:
            modules.append(result)
    from detlint.compose.built_classes import with_built_classes

    modules, as_context = with_built_classes(modules), False
    if modules and not pipelines:
        pipelines, as_context = _context_pipelines(request, discovery, repository)
    return Read(
        lint_files, config_files, modules, looping, pipelines, not_read, problems, as_context, tests
    )


def _read_both(
    request: Request,
    discovery: Discovery,
    repository: Repository,
    lint_files: list[Path],
    options: ScanOptions,
    prefilter: Prefilter,
) -> tuple[
    list[ModuleFacts | Problem | LoopOnly | None],
    tuple[PipelineFacts, ...],
    tuple[tuple[str, str], ...],
    list[Problem],
]:
    """The Python files and the pipelines of a run that has both. The variables the
    pipelines set decide which Python files are parsed, so the Python pass starts
    first and waits for them only to finish (see ``staged_scan.PythonPass``)."""
    from detlint.readers.ci.facts import pipeline_env_names
    from detlint.readers.ci.pipelines import read_pipelines
    from detlint.readers.python.staged_scan import PythonPass, Variables

    root, cwd, jobs, progress = repository.root, request.cwd, repository.jobs, request.progress
    python = PythonPass(root, cwd, options, prefilter)
    forked = jobs if len(lint_files) >= PARALLEL_THRESHOLD else 1
    with python.start(lint_files, forked, progress) as staged:
        progress.phase("reading pipelines", 1, "steps")
        read = read_pipelines(discovery.files, root, cwd, jobs=jobs, cache=request.cache)
        # A test that reads a variable a pipeline sets must be read for DET302.
        names = tuple(name.encode() for name in pipeline_env_names(read.pipelines))
        learned = Variables(names, bool(read.pipelines))
        progress.phase("reading files", len(lint_files))
        scanned = staged.results(learned)
    repository.python = python.repository(learned)
    return scanned, read.pipelines, read.not_read, list(read.problems)


def _context_pipelines(
    request: Request, discovery: Discovery, repository: Repository
) -> tuple[tuple[PipelineFacts, ...], bool]:
    """A run on some files of the tree (a pre-commit hook, `detlint check tests/`) reports
    what involves them, reading around them as context (conftest.py aliases, pipelines):
    it still needs the CI steps that run them (DET501 on a marker the job retries again)."""
    from detlint.readers.ci.context import context_pipelines, covers_tree

    root, cwd = repository.root, request.cwd
    if covers_tree(request.paths, root, cwd):
        return (), False
    request.progress.phase("reading pipelines", 1, "steps")
    pipelines = context_pipelines(
        repository.files(), set(discovery.files), root, cwd, repository.jobs, request.cache
    )
    request.progress.advance()
    return pipelines, True


def compose_tests(request: Request, read: Read, repository: Repository) -> Composed:
    """Each test's gates, alone: its own knobs under its directory's config and project's
    plugin (which plugin reads `flaky` matters only once a marker is there to read)."""
    if not read.modules and not read.pipelines:
        return Composed([], {}, None, [], [])
    from detlint.compose.ci.script_runs import link_scripts
    from detlint.compose.test_policy import link_tests
    from detlint.readers.project.collection import collects
    from detlint.readers.python.facts import hook_tests

    cwd, progress = request.cwd, request.progress
    if read.pipelines:
        from detlint.readers.ci.installs import installed_plugins

        for working, requirement in installed_plugins(read.pipelines):
            repository.projects.add_installed(working, requirement)
    configs: dict[Path, PytestConfig] = {}
    gates: list[TestGate] = []
    scripts: list[ScriptLink] = []
    progress.phase("linking tests", len(read.modules))
    for module in read.modules:
        directory = Path(os.path.abspath(cwd / module.path)).parent
        config = configs[directory] = repository.configs.of(directory)
        module_evidence = repository.evidence_for(module.path)
        for test in (*module.tests, *hook_tests(module)):
            if collects(config, test, cwd, module.named):
                gates += link_tests(test, config, module_evidence)
        if module.script_runs:
            scripts += link_scripts(module, config, module_evidence, cwd)
        progress.advance()
    evidence = repository.projects.combined(request.paths or [cwd])
    return Composed(gates, configs, evidence, list(evidence.problems), scripts)


def compose_ci(
    request: Request, read: Read, composed: Composed, repository: Repository
) -> CiAnalysis | None:
    """Every test as each CI run runs it. Tests a CI knob acts on count with their trial
    loops, even without a knob of their own: the files such steps run are read again with
    the trial prefilter, those with knobs whole (narrowing lists their marked tests alone),
    and files a step runs that were not linted, for context."""
    if not read.pipelines or composed.evidence is None:
        return None
    from detlint.compose.ci.analysis import link_ci

    linted = display_paths(read.lint_files, repository.root, repository.cwd)
    request.progress.phase("linking CI steps", 1, "steps")
    ci = link_ci(
        read.pipelines,
        read.modules,
        repository,
        linted,
        repository.python.prefilter.trials,
        display_paths(read.looping, repository.root, repository.cwd),
        only=linted if read.as_context else None,
    )
    request.progress.advance()
    return ci


def linted_configs(
    read: Read, composed: Composed, repository: Repository
) -> tuple[PytestConfig, ...]:
    """The configuration of the linted files, even those without knobs (global reruns reach
    every test), and of a linted config file itself (pre-commit on a pyproject.toml), once."""
    configs = dict(composed.configs)
    directories = {path.parent for path in (*read.lint_files, *read.config_files)} - set(configs)
    if read.modules or read.config_files or may_rerun(directories):
        for directory in sorted(directories):
            configs[directory] = repository.configs.of(directory)
    return tuple({config.path: config for config in configs.values()}.values())


def judge(
    request: Request,
    composed: Composed,
    configs: tuple[PytestConfig, ...],
    problems: tuple[Problem, ...],
    ci: CiAnalysis | None,
    unreached: tuple[UnreachedRun, ...],
) -> tuple[Finding, ...]:
    """Run the rules; imported only when there is something to judge."""
    gates = composed.gates
    if not (gates or configs or problems or unreached or ci is not None):
        return ()
    from detlint.rules.context import RuleContext
    from detlint.rules.registry import run_rules

    settings = request.settings
    request.progress.phase("judging", 1, "steps")
    context = RuleContext(
        gates=tuple(gates),
        configs=configs,
        reference_rate=settings.reference_rate,
        target=settings.target,
        tracking_pattern=settings.tracking_issue_pattern,
        selected=request.selected,
        quarantine_reason=settings.quarantine_reason,
        scripts=tuple(composed.scripts),
        unreached=unreached,
    )
    if ci is not None:
        context = dataclasses.replace(
            context,
            ci_knobs=ci.knobs,
            ci_runs=ci.runs,
            ci_gates=ci.gates,
            ci_steps=ci.steps_of,
            ci_others=ci.others,
        )
    findings = tuple(run_rules(context, problems))
    request.progress.advance()
    return findings
