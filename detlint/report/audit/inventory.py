"""The audit inventory as JSON: every knob, and every test's composed policy.

Unlike ``check``, the audit lists knobs whether or not a rule fires (tracked
quarantines and strict xfails included), so a team can see the whole picture
and rank tests by how much their knobs cost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from detlint import __version__
from detlint.base.span import Span
from detlint.compose.test_gate import Environment, TestGate
from detlint.readers.python.facts import ArgValue, Dynamic, Mark
from detlint.report.audit.indented_json import dumps_indented
from detlint.report.findings import finding_json
from detlint.report.power import gate_json, layer_json

if TYPE_CHECKING:
    from detlint.compose.ci.analysis import CiAnalysis
    from detlint.compose.ci.gates import CiGate
    from detlint.engine import Analysis
    from detlint.readers.ci.facts import CiKnob
    from detlint.readers.project.vendored_runs import NamedSubtree
    from detlint.rules.ci_census import KnobVerdict

AUDIT_SCHEMA = "detlint.audit/1"


def _value(value: ArgValue | object) -> Any:
    if isinstance(value, Dynamic):
        return {"expression": value.source}
    if isinstance(value, tuple):
        return [_value(item) for item in value]
    return value


def _where(span: Span) -> dict[str, Any]:
    return {
        "path": span.path,
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
    }


def _mark_json(mark: Mark, tests: list[str]) -> dict[str, Any]:
    positional = [_value(a.value) for a in mark.arguments if a.name is None]
    keywords = {a.name: _value(a.value) for a in mark.arguments if a.name is not None}
    return {
        "kind": mark.kind,
        "name": mark.name,
        **_where(mark.span),
        "scope": mark.scope,
        "bare": mark.bare,
        "arguments": {"positional": positional, "keywords": keywords},
        "via": list(mark.via),
        "definition": _where(mark.definition) if mark.definition is not None else None,
        "guards": list(mark.guards),
        "tests": tests,
    }


def _test_json(
    gate: TestGate, reference_rate: float, target: float, ci: list[CiGate] | None = None
) -> dict[str, Any]:
    policy, baseline = gate.policy, gate.policy.baseline()
    trials = gate.test.trials
    needs_root_finder = any(layer.invert(0.5) is None for layer in policy.layers)
    return {
        "test": gate.label,
        "path": gate.test.path,
        "line": gate.test.span.line,
        "end_line": gate.test.span.end_line,
        "instances": gate.instances,
        "trials": {
            "count": trials.count,
            "env": trials.env,
            "origin": trials.origin,
            "fails_at": trials.fails_at if trials.threshold is not None else None,
            "line": trials.span.line if trials.span is not None else None,
        },
        "plugin": None
        if gate.plugin is None
        else {
            "name": gate.plugin.plugin,
            "evidence": gate.plugin.evidence,
            "inferred": gate.plugin.inferred,
        },
        "layers": [layer_json(layer) for layer in policy.layers],
        "gate": gate_json(policy.gate),
        "knobs": [
            {"kind": knob.kind, **_where(knob.span), "condition": knob.condition or None}
            for knob in gate.knobs
        ],
        "notes": list(gate.notes),
        "environments": [
            _environment_json(environment, reference_rate) for environment in gate.environments
        ],
        "numbers": {
            "reference_rate": reference_rate,
            "target": target,
            "reported": policy.reported(reference_rate),
            "reported_without": baseline.reported(reference_rate),
            "visible": policy.visible(reference_rate),
            "loss": baseline.reported(reference_rate) - policy.reported(reference_rate),
            "q50": None if needs_root_finder else policy.q50(),
            "q50_without": baseline.q50(),
            "trials_needed": baseline.trials_needed(reference_rate, target),
        },
        "ci": [_ci_gate_json(ci_gate, reference_rate) for ci_gate in ci or ()],
    }


def _environment_json(environment: Environment, reference_rate: float) -> dict[str, Any]:
    """One environment besides the primary one: where, what the knob does there, and
    the policy and numbers it gives."""
    policy = environment.policy
    return {
        "condition": environment.condition,
        "effect": environment.effect,
        "layers": [layer_json(layer) for layer in policy.layers],
        "gate": gate_json(policy.gate),
        "reported": policy.reported(reference_rate),
        "visible": policy.visible(reference_rate),
    }


def _ci_knob_json(
    knob: CiKnob,
    steps: dict[CiKnob, str],
    gated: dict[CiKnob, set[str]],
    running: set[CiKnob],
    ci: CiAnalysis,
) -> dict[str, Any]:
    runs_tests = knob in running
    return {
        "kind": knob.kind,
        "system": knob.system,
        "key": knob.key,
        "value": knob.value,
        **_where(knob.span),
        "step": steps.get(knob),
        "platform": knob.platform,
        "condition": knob.condition,
        "covers_tests": knob.covers_tests,
        "attempts": knob.attempts,
        "note": knob.note,
        "tests": sorted(gated.get(knob, ())),
        # A knob on commands that run no pytest detlint sees: "no tests run here", and
        # what those commands do run (its first line), for a reader to check.
        "runs_tests": runs_tests,
        "no_tests_run_here": None if runs_tests else _first_command(knob, ci),
    }


def _verdict_json(verdict: KnobVerdict) -> dict[str, Any]:
    return {
        "verdict": verdict.verdict,
        "codes": list(verdict.codes),
        "cause": verdict.cause or None,
        "reason": verdict.reason or None,
    }


def _census_json(analysis: Analysis, ci: CiAnalysis) -> list[dict[str, Any]]:
    """Every knob with the verdict of the census: the knobs of the pipelines as read,
    then the rerun options and masked statuses of their pytest commands."""
    from detlint.rules.ci_census import census

    steps = {knob: found[0].name for knob in ci.knobs if (found := ci.steps_of(knob))}
    gated: dict[CiKnob, set[str]] = {}
    for gate in ci.gates:
        for knob in gate.run.knobs:
            gated.setdefault(knob, set()).add(gate.label)
    running = {knob for run in ci.runs for knob in run.knobs}
    verdicts = census(ci, analysis.findings, analysis.selected)
    by_span = {(v.kind, v.span): v for v in verdicts}
    entries = []
    for knob in ci.knobs:
        entry = _ci_knob_json(knob, steps, gated, running, ci)
        entries.append(entry | _verdict_json(by_span[knob.kind, knob.span]))
    read = {(knob.kind, knob.span) for knob in ci.knobs}
    for verdict in verdicts:
        if (
            verdict.kind in ("rerun-option", "masked-status")
            and (verdict.kind, verdict.span) not in read
        ):
            entries.append(
                {
                    "kind": verdict.kind,
                    "system": verdict.system,
                    "key": verdict.key,
                    "value": verdict.value,
                    **_where(verdict.span),
                    "step": verdict.step,
                    "covers_tests": True,
                    "runs_tests": True,
                }
                | _verdict_json(verdict)
            )
    return entries


def _first_command(knob: CiKnob, ci: CiAnalysis) -> str:
    from detlint.rules.ci_reach import scope

    for command in scope(knob, ci.steps_of(knob)):
        for line in command.text.splitlines():
            if line.strip():
                return line.strip()[:120]
    return ""


def _ci_gate_json(gate: CiGate, reference_rate: float) -> dict[str, Any]:
    policy = gate.policy
    return {
        "step": gate.run.step.name,
        **_where(gate.run.span),
        "selection": gate.run.selection,
        "trials": policy.trials,
        "trial_override": None
        if gate.override is None
        else {
            "name": gate.override.name,
            "value": gate.override.value,
            **_where(gate.override.span),
        },
        "layers": [layer_json(layer) for layer in policy.layers],
        "gate": gate_json(policy.gate),
        "ci_knobs": [{"kind": k.kind, "key": k.key, **_where(k.span)} for k in gate.ci_knobs],
        "reported": policy.reported(reference_rate),
        "reported_without": policy.baseline().reported(reference_rate),
    }


def _ci_json(analysis: Analysis, reference_rate: float) -> dict[str, Any]:
    from detlint.compose.ci.analysis import CiAnalysis

    ci = analysis.ci or CiAnalysis()
    plain: dict[int, list[CiGate]] = {}  # the gates of each run's tests without knobs
    for gate in ci.gates:
        if not gate.has_facts:
            plain.setdefault(id(gate.run), []).append(gate)
    shown: dict[int, tuple[tuple[str, ...], list[str]]] = {}

    def directories(test_files: tuple[str, ...]) -> list[str]:
        # Runs share one tuple per distinct target: each is summed up once.
        entry = shown.get(id(test_files))
        if entry is None:
            names = sorted({path.rpartition("/")[0] or "." for path in test_files})
            entry = shown[id(test_files)] = (test_files, names)
        return list(entry[1])

    return {
        "not_read": [{"path": path, "system": system} for path, system in analysis.not_read],
        "pipelines": [
            {
                "path": p.path,
                "system": p.system,
                "steps": len(p.steps),
                "references": list(p.references),
            }
            for p in ci.pipelines
        ],
        "knobs": _census_json(analysis, ci),
        "runs": [
            {
                "step": run.step.name,
                **_where(run.span),
                "launcher": run.run.launcher,
                "directory": run.directory,
                "targets": list(run.run.targets),
                "selection": run.selection,
                "masked": run.run.masked,
                # A large CI setup runs thousands of steps over the same tests: the
                # directories say where a run reaches without listing every file again.
                "test_files": len(run.test_files),
                "directories": directories(run.test_files),
                "tests_without_knobs": [
                    _ci_gate_json(gate, reference_rate) | {"test": gate.label}
                    for gate in plain.get(id(run), ())
                ],
            }
            for run in ci.runs
        ],
    }


def _plugins_json(analysis: Analysis) -> dict[str, Any]:
    evidence = analysis.evidence
    if evidence is None:
        return {"declared": [], "evidence": "not read: no knob found", "requirements": []}
    return {
        "declared": sorted(evidence.plugins),
        "evidence": evidence.describe(),
        "requirements": [
            {"plugin": r.plugin, "specifier": r.specifier, "source": r.source, **_where(r.span)}
            for r in evidence.requirements
        ],
        "project_markers": {
            kind: [{"name": use.name, **_where(use.span)} for use in uses]
            for kind, uses in (
                ("registered", evidence.own_markers.registered),
                ("read", evidence.own_markers.read),
            )
        },
    }


def audit_json(analysis: Analysis, reference_rate: float, target: float) -> dict[str, Any]:
    marks: dict[Span, tuple[Mark, list[str]]] = {}
    for module in analysis.modules:
        for test in module.tests:
            for mark in test.marks:
                marks.setdefault(mark.span, (mark, []))[1].append(test.nodeid)
            for mark in (*(m for _, m in test.param_marks), *test.entry_marks):
                marks.setdefault(mark.span, (mark, []))[1].append(test.nodeid)
        for mark in module.hook_marks:
            marks.setdefault(mark.span, (mark, []))
    knobs = [_mark_json(mark, sorted(set(tests))) for _, (mark, tests) in sorted(marks.items())]
    for config in analysis.configs:
        for setting in (config.reruns, config.force_reruns, config.retries):
            if setting is not None:
                knobs.append(
                    {"kind": "config", "name": setting.source, "value": setting.value}
                    | _where(setting.span)
                )
    by_test: dict[str, list[CiGate]] = {}
    for ci_gate in analysis.ci.gates if analysis.ci is not None else ():
        if ci_gate.has_facts:
            by_test.setdefault(ci_gate.label, []).append(ci_gate)
    tests = [
        _test_json(gate, reference_rate, target, by_test.get(gate.label)) for gate in analysis.gates
    ]
    tests.sort(key=lambda item: (-item["numbers"]["loss"], item["test"]))
    return {
        "schema": AUDIT_SCHEMA,
        "version": __version__,
        "root": analysis.root.as_posix(),
        "plugins": _plugins_json(analysis),
        "pytest_configs": [
            {
                "path": config.path,
                "strict_xfail": config.strict_xfail,
                "reruns_mode": config.reruns_mode,
                "disabled_plugins": sorted(config.disabled_plugins),
                "markers": [marker.name for marker in config.markers],
            }
            for config in analysis.configs
        ],
        "knobs": knobs,
        "tests": tests,
        "ci": _ci_json(analysis, reference_rate),
        "skipped": [{"path": path, "why": "vendored"} for path in analysis.vendored],
        "vendored_read": [_vendored_read_json(subtree) for subtree in analysis.vendored_read],
        "findings": [finding_json(finding) for finding in analysis.findings],
        "problems": [{"message": p.message, **_where(p.span)} for p in analysis.problems],
    }


def _vendored_read_json(subtree: NamedSubtree) -> dict[str, object]:
    """A vendored subtree the repository runs tests in, and the line saying so (read
    unless it is another repository's: a submodule or nested repository)."""
    why = "a submodule or nested repository: another repository's" if subtree.submodule else ""
    return {
        "path": subtree.path,
        "read": not subtree.submodule,
        "named_by": {"path": subtree.source, "line": subtree.line, "text": subtree.text},
        **({"not_read": why} if why else {}),
    }


def render_audit_json(analysis: Analysis, reference_rate: float, target: float) -> str:
    return dumps_indented(audit_json(analysis, reference_rate, target)) + "\n"
