"""One run of detlint over a set of paths: discover, read, link, judge.

``paths -> discover -> passes (facts) -> link (one test's layers) -> rules``.
The passes are the expensive steps: the Python pass parses only files the
byte prefilter keeps, the CI pass reads every pipeline, and both spread their
files over the cores when there are enough to pay for worker processes. When
a run has both, the Python files are sifted while the pipelines are read.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from detlint.base.cores import default_jobs
from detlint.base.progress import NULL_PROGRESS, Progress, counting
from detlint.base.source import unsaved_paths
from detlint.base.span import Problem, Span
from detlint.readers.ci import YAML_SUFFIXES
from detlint.readers.project.discovery import Discovery, discover, repository_files
from detlint.readers.project.scope import PYTEST_CONFIG_FILES, widened
from detlint.readers.project.settings import Settings
from detlint.readers.python.options import ScanOptions, is_test_module
from detlint.readers.python.prefilter import Prefilter
from detlint.readers.python.repository import LoopOnly, PythonRepository

if TYPE_CHECKING:
    from detlint.base.facts_cache import FactsCache
    from detlint.compose.ci.analysis import CiAnalysis
    from detlint.compose.test_policy import TestGate
    from detlint.readers.ci.facts import PipelineFacts
    from detlint.readers.dependencies.declarations import PluginEvidence
    from detlint.readers.project.pytest_config import PytestConfig
    from detlint.readers.python.facts import ModuleFacts, TestFunction
    from detlint.rules.finding import Finding


# Below this many files, worker start-up costs more than reading them here.
PARALLEL_THRESHOLD = 200


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
    ci: CiAnalysis | None = None  # None when the run read no pipeline
    # Pipelines of systems detlint does not read (Azure Pipelines): (path, system).
    not_read: tuple[tuple[str, str], ...] = ()
    vendored: tuple[str, ...] = ()  # vendored directories skipped, as displayed

    @property
    def files_checked(self) -> int:
        return len(self.checked)


def _scan_all(
    repository: PythonRepository,
    files: list[Path],
    jobs: int,
    progress: Progress = NULL_PROGRESS,
) -> list[ModuleFacts | Problem | LoopOnly | None]:
    """Read, prefilter and parse every file: in this process for a few files, in
    forked processes (which inherit the repository, never pickled) for many.

    ``progress`` counts the files this process reads; with workers, it does one
    share of ``jobs`` and each of its files counts for ``jobs``."""
    scan = repository.scan
    if jobs <= 1 or len(files) < PARALLEL_THRESHOLD:
        if progress is not NULL_PROGRESS:
            scan = counting(scan, progress)
        return [scan(path) for path in files]
    from detlint.base.parallel import fork_map

    if progress is not NULL_PROGRESS:
        scan = counting(scan, progress, jobs)
    return fork_map(scan, files, jobs)


def _hook_tests(module: ModuleFacts) -> list[TestFunction]:
    """A stand-in test for each mark a collection hook adds (``item.add_marker``):
    it reaches tests detlint cannot enumerate statically, so it is judged once."""
    from detlint.readers.python.facts import HOOK_TEST, NO_TRIALS, TestFunction

    return [
        TestFunction(
            path=module.path,
            name=HOOK_TEST,
            class_name=None,
            span=mark.span,
            instances=None,
            marks=(mark,),
            param_marks=(),
            trials=NO_TRIALS,
        )
        for mark in module.hook_marks
    ]


def discover_files(paths: Sequence[Path], cwd: Path, settings: Settings) -> Discovery:
    """The files a check of ``paths`` (already :func:`widened`) reads, as ``settings``
    scope them. ``--show-files`` lists exactly these, so it is one function."""
    default_excludes, exclude = settings.walk_excludes()
    return discover(
        list(paths) or [cwd],
        cwd,
        exclude=exclude,
        respect_gitignore=settings.respect_gitignore,
        vendored=settings.vendored_dirs,
        default_excludes=default_excludes,
        force_exclude=settings.force_exclude,
        unsaved=unsaved_paths(),
    )


def analyse(
    paths: Sequence[Path],
    cwd: Path,
    settings: Settings,
    selected: frozenset[str],
    jobs: int | None = None,
    cache: FactsCache | None = None,
    progress: Progress = NULL_PROGRESS,
) -> Analysis:
    """Analyse ``paths``, saying how far it has got through ``progress`` (one phase
    per step: reading files, reading pipelines, linking, judging)."""
    paths = widened(paths, cwd)  # a dependency or config file: the project it configures
    default_excludes, exclude = settings.walk_excludes()
    discovery = discover_files(paths, cwd, settings)
    root = discovery.root
    problems: list[Problem] = list(discovery.problems)

    def every_file() -> tuple[str, ...]:
        return repository_files(
            root,
            exclude=exclude,
            respect_gitignore=settings.respect_gitignore,
            vendored=settings.vendored_dirs,
            default_excludes=default_excludes,
            unsaved=unsaved_paths(),  # an unsaved new file: the steps running it gate it
        )

    lint_files = [path for path in discovery.files if path.suffix == ".py"]
    jobs = jobs or default_jobs()
    extra = tuple(name.rsplit(".", 1)[-1].encode() for name in settings.retry_decorators)
    readers = tuple(name.rsplit(".", 1)[-1].encode() for name in settings.trial_env_readers)
    options = ScanOptions(
        retry_names=settings.retry_decorators, env_readers=settings.trial_env_readers
    )
    # The tests a config collects under its own patterns (celery's test_* classes) must
    # be read: the scan keeps whatever a config the run meets collects, and linking keeps
    # what the module's own config does. A run over a tree reads the patterns of the
    # configs it meets; a run on files named one by one (pre-commit) keeps every class and
    # function of those that hold a knob (linking reads their configs anyway), and asks
    # the configs only when a file's name is not one the default patterns take.
    config_files = [path for path in discovery.files if path.name in PYTEST_CONFIG_FILES]
    unsaved = unsaved_paths()
    named = bool(paths) and all(
        os.path.isfile(cwd / path) or os.path.abspath(cwd / path) in unsaved for path in paths
    )
    if named and not config_files:
        options = dataclasses.replace(options, python_classes=("",), python_functions=("",))
    if (
        not named
        or config_files
        or any(not is_test_module(path.name, options.python_files) for path in lint_files)
    ):
        from detlint.readers.project.collection import scan_options

        options = scan_options(options, config_files, lint_files, root, cwd)
    prefilter = Prefilter(extra=extra, trials="DET301" in selected, readers=readers)
    pipelines: tuple[PipelineFacts, ...] = ()
    not_read: tuple[tuple[str, str], ...] = ()
    if any(path.name.lower().endswith(YAML_SUFFIXES) for path in discovery.files):
        from detlint.compose.ci.analysis import pipeline_env_names
        from detlint.readers.ci.pipelines import read_pipelines
        from detlint.readers.python.staged_scan import PythonPass, Variables

        # The variables the pipelines set decide which Python files are parsed, so the
        # Python pass starts now and waits for them only to finish (see PythonPass).
        python = PythonPass(root, cwd, options, prefilter)
        forked = jobs if len(lint_files) >= PARALLEL_THRESHOLD else 1
        with python.start(lint_files, forked, progress) as staged:
            progress.phase("reading pipelines", 1, "steps")
            read = read_pipelines(discovery.files, root, cwd, jobs=jobs, cache=cache)
            pipelines, problems = read.pipelines, problems + list(read.problems)
            not_read = read.not_read
            # A test that reads a variable a pipeline sets must be read for DET302.
            names = tuple(name.encode() for name in pipeline_env_names(pipelines))
            learned = Variables(names, bool(pipelines))
            progress.phase("reading files", len(lint_files))
            scanned = staged.results(learned)
        repository = python.repository(learned)
    else:
        repository = PythonRepository(root, cwd, options, prefilter)
        progress.phase("reading files", len(lint_files))
        scanned = _scan_all(repository, lint_files, jobs, progress)
    progress.advance(len(lint_files))  # done, however much of it this process counted
    modules: list[ModuleFacts] = []
    looping: list[Path] = []  # test files ruled out that hold a trial loop
    for path, result in zip(lint_files, scanned, strict=True):
        if isinstance(result, Problem):
            problems.append(result)
        elif isinstance(result, LoopOnly):
            looping.append(path)
        elif result is not None:
            modules.append(result)

    # A run on some files of the tree (a pre-commit hook, `detlint check tests/`) reports
    # what involves them: what it read around them (conftest.py aliases, context
    # pipelines) is context, with or without pipelines in the tree.
    as_context = False
    if modules and not pipelines:
        from detlint.readers.ci.context import context_pipelines, covers_tree

        as_context = not covers_tree(paths, root, cwd)
        if as_context:
            # A run on some files (a pre-commit hook, `detlint check tests/`) still needs
            # the CI steps that run them: DET501 on a marker the job retries again.
            progress.phase("reading pipelines", 1, "steps")
            pipelines = context_pipelines(
                every_file(), set(discovery.files), root, cwd, jobs, cache
            )
            progress.advance()
    configs: dict[Path, PytestConfig] = {}
    gates: list[TestGate] = []
    evidence: PluginEvidence | None = None
    if modules or pipelines:
        # Which plugin reads `flaky` matters only once there is a marker to read.
        from detlint.compose.test_policy import link_tests
        from detlint.readers.dependencies.declarations import dependency_files
        from detlint.readers.project.collection import collects
        from detlint.readers.project.projects import Projects
        from detlint.readers.project.pytest_config import find_pytest_config

        # Each test's evidence is its own project's (readers/project/projects.py), whichever
        # files this run lints: every dependency file of the repository is placed.
        projects = Projects(root, dependency_files(root, every_file), cwd)
        if pipelines:
            from detlint.readers.ci.installs import installed_plugins

            for working, requirement in installed_plugins(pipelines):
                projects.add_installed(working, requirement)
        evidence_for = projects.evidence_for
        progress.phase("linking tests", len(modules))
        for module in modules:
            directory = Path(os.path.abspath(cwd / module.path)).parent
            config = configs.get(directory)
            if config is None:
                config = configs[directory] = find_pytest_config(directory, cwd)
            module_evidence = evidence_for(module.path)
            for test in (*module.tests, *_hook_tests(module)):
                if collects(config, test, cwd):
                    gates += link_tests(test, config, module_evidence)
            progress.advance()
        evidence = projects.combined(paths or [cwd])
        problems += evidence.problems
    ci: CiAnalysis | None = None
    linted: frozenset[str] = frozenset()  # display paths of the linted Python files
    if pipelines and evidence is not None:
        from detlint.compose.ci.analysis import link_ci

        # Tests a CI knob acts on count with their trial loops, even without a knob of
        # their own: the files such steps run are read again with the trial prefilter
        # (and files a step runs that were not linted at all are read for context).
        context = PythonRepository(
            root,
            cwd,
            repository.options,
            repository.prefilter.replaced(trials=True),
        )

        def scan_context(files: list[Path], trials: bool) -> list[ModuleFacts]:
            found = _scan_all(context if trials else repository, files, jobs)
            return [result for result in found if not isinstance(result, Problem | LoopOnly | None)]

        linted = _display_paths(lint_files, root, cwd)
        progress.phase("linking CI steps", 1, "steps")
        ci = link_ci(
            pipelines,
            modules,
            root,
            cwd,
            evidence_for,
            every_file,
            scan_context,
            linted,
            repository.prefilter.trials,
            _display_paths(looping, root, cwd),
            only=linted if as_context else None,
        )
        progress.advance()

    # The configuration that applies to the linted files, even those without knobs
    # (global reruns reach every test), and that of a linted config file itself
    # (a pre-commit run on a changed pyproject.toml).
    directories = {path.parent for path in (*lint_files, *config_files)} - set(configs)
    if modules or config_files or _config_may_rerun(directories):
        from detlint.readers.project.pytest_config import find_pytest_config

        for directory in sorted(directories):
            configs[directory] = find_pytest_config(directory, cwd)
    unique_configs = tuple({config.path: config for config in configs.values()}.values())
    for config in unique_configs:
        problems += config.problems

    unique_problems = _one_per_file(problems)
    findings: tuple[Finding, ...] = ()
    if gates or unique_configs or unique_problems or ci is not None:
        progress.phase("judging", 1, "steps")
        findings = _judge(
            gates,
            unique_configs,
            unique_problems,
            settings,
            selected,
            ci,
        )
        progress.advance()
    if as_context:
        # The paths the run was given and could not read are its own business too.
        kept = _display_paths(lint_files, root, cwd) | {p.span.path for p in discovery.problems}
        findings = about_linted_files(findings, kept, unique_configs)
    return Analysis(
        root=root,
        modules=tuple(modules),
        gates=tuple(gates),
        configs=unique_configs,
        evidence=evidence,
        problems=unique_problems,
        findings=findings,
        checked=tuple(discovery.files),
        ci=ci,
        not_read=not_read,
        vendored=discovery.vendored,
    )


def _display_paths(files: Sequence[Path], root: Path, cwd: Path) -> frozenset[str]:
    """``display_path`` of every file, by the string operations CI linking uses
    (pathlib's version is a visible cost over thousands of files)."""
    from detlint.base.paths import displayer, relativer

    relative, display = relativer(root, cwd), displayer(root, cwd)
    return frozenset(display(relative(path)) for path in files)


def _one_per_file(problems: Sequence[Problem]) -> tuple[Problem, ...]:
    """Each problem once, and one whole-file problem per file: pyproject.toml is read by
    the dependency reader and by the pytest-config reader, and a broken one is one
    finding, not one per reader."""
    seen: set[str] = set()
    kept: list[Problem] = []
    for problem in dict.fromkeys(problems):
        if problem.span == Span.file(problem.span.path):
            if problem.span.path in seen:
                continue
            seen.add(problem.span.path)
        kept.append(problem)
    return tuple(kept)


def _judge(
    gates: list[TestGate],
    configs: tuple[PytestConfig, ...],
    problems: tuple[Problem, ...],
    settings: Settings,
    selected: frozenset[str],
    ci: CiAnalysis | None,
) -> tuple[Finding, ...]:
    """Run the rules; imported only when there is something to judge."""
    from detlint.rules.registry import RuleContext, run_rules

    context = RuleContext(
        gates=tuple(gates),
        configs=configs,
        reference_rate=settings.reference_rate,
        target=settings.target,
        tracking_pattern=settings.tracking_issue_pattern,
        selected=selected,
        ci_knobs=ci.knobs if ci is not None else (),
        ci_runs=ci.runs if ci is not None else (),
        ci_gates=ci.gates if ci is not None else (),
        ci_steps=ci.steps_of if ci is not None else lambda knob: (),
        quarantine_reason=settings.quarantine_reason,
    )
    return tuple(run_rules(context, problems))


# Words a pytest config must hold to set reruns for every test (DET104).
_RERUN_CONFIG_TOKENS = (b"rerun", b"retries", b"force-flaky", b"force_flaky")


def _config_may_rerun(directories: set[Path]) -> bool:
    """Whether any config file pytest could read for these directories mentions reruns.

    A cheap byte test over the candidate files up the tree (each directory
    looked at once), so that a run on files without knobs loads and parses
    pytest's configuration only when a global rerun setting can be there.
    """
    seen: set[Path] = set()
    for directory in directories:
        for base in (directory, *directory.parents):
            if base in seen:
                break
            seen.add(base)
            for name in PYTEST_CONFIG_FILES:
                try:
                    data = (base / name).read_bytes()
                except OSError:
                    continue
                if any(token in data for token in _RERUN_CONFIG_TOKENS):
                    return True
    return False


def about_linted_files(
    findings: tuple[Finding, ...], linted: frozenset[str], configs: tuple[PytestConfig, ...]
) -> tuple[Finding, ...]:
    """A run with the repository's pipelines as context reports what is in the linted
    files and the pytest config that reaches them, and a finding elsewhere (a pipeline,
    a file it includes, tox.ini) only when it involves a linted file: a related span
    there, such as the marker a job retries again."""
    keep = linted | {config.path for config in configs if config.path is not None}
    return tuple(
        finding
        for finding in findings
        if finding.span.path in keep or any(related.path in linted for related in finding.related)
    )
