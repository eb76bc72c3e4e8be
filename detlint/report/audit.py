"""The audit inventory as JSON: every knob, and every test's composed policy.

Unlike ``check``, the audit lists knobs whether or not a rule fires (tracked
quarantines and strict xfails included), so a team can see the whole picture
and rank tests by how much their knobs cost.
"""

from __future__ import annotations

import json
from typing import Any

from detlint import __version__
from detlint.engine import Analysis
from detlint.link import TestGate
from detlint.python_pass.facts import ArgValue, Dynamic, Mark
from detlint.report.findings import finding_json
from detlint.report.power import gate_json, layer_json
from detlint.span import Span

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
        "tests": tests,
    }


def _test_json(gate: TestGate, reference_rate: float, target: float) -> dict[str, Any]:
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
        "knobs": [{"kind": knob.kind, **_where(knob.span)} for knob in gate.knobs],
        "notes": list(gate.notes),
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
    }


def audit_json(analysis: Analysis, reference_rate: float, target: float) -> dict[str, Any]:
    marks: dict[Span, tuple[Mark, list[str]]] = {}
    for module in analysis.modules:
        for test in module.tests:
            for mark in test.marks:
                marks.setdefault(mark.span, (mark, []))[1].append(test.nodeid)
            for _, mark in test.param_marks:
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
    tests = [_test_json(gate, reference_rate, target) for gate in analysis.gates]
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
        "findings": [finding_json(finding) for finding in analysis.findings],
        "problems": [{"message": p.message, **_where(p.span)} for p in analysis.problems],
    }


def render_audit_json(analysis: Analysis, reference_rate: float, target: float) -> str:
    return json.dumps(audit_json(analysis, reference_rate, target), indent=2) + "\n"
