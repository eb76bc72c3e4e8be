"""The guard of the YAML generators: a generator bug fails the build of the tree.

Every file must load with ruamel.yaml, pipelines and templates must look like a
pipeline and other YAML must not, and a pipeline holds a CI knob exactly when it is
meant to.
"""

from __future__ import annotations

import re
from typing import Any

# Every spelling of a CI knob the generator writes (lowercased). A pipeline or
# template meant to hold no knob holds none of them; one meant to hold a knob holds
# at least one. Other YAML may hold some ("retry:" in helm values): it is no pipeline.
CI_KNOB_WORDS = (
    *("soft_fail", "retry", "retries", "continue-on-error", "continue_on_failure"),
    *("allow_failure", "--reruns", "--retries", "--count", "||", "set +e", "| tee"),
    *("skip", "fail-fast", "when: manual", "mirror:"),
)


def _render_for_check(text: str) -> str:
    """A template as a generator would render it: tag-only lines dropped, ``{{ x }}`` -> x."""
    kept = [
        line
        for line in text.split("\n")
        if not (line.strip().startswith(("{%", "{#")) and line.strip().endswith(("%}", "#}")))
    ]
    rendered = "\n".join(kept)
    return re.sub(r"\{\{\s*([A-Za-z_]\w*)[^}]*\}\}", r"\1", rendered)


def _looks_like_pipeline(documents: list[Any]) -> bool:
    """The top level of a pipeline: a step list, ``steps:``, jobs with steps, or script jobs."""
    for document in documents:
        if isinstance(document, list) and any(
            isinstance(item, dict) and ("command" in item or "commands" in item)
            for item in document
        ):
            return True
        if not isinstance(document, dict):
            continue
        if isinstance(document.get("steps"), list):
            return True
        jobs = document.get("jobs")
        if isinstance(jobs, dict) and any(
            isinstance(job, dict) and "steps" in job for job in jobs.values()
        ):
            return True
        if any(
            isinstance(v, dict) and ("script" in v or "extends" in v) for v in document.values()
        ):
            return True
    return False


def check_yaml(files: dict[str, str], kinds: dict[str, str], knobs: set[str]) -> bool:
    """Guard the YAML generator; False when ruamel.yaml is not importable (check skipped).

    Every file must load with ruamel.yaml's safe loader (a template once rendered:
    ``{% %}``/``{# #}`` lines dropped, ``{{ x }}`` replaced by the word x); pipelines
    and templates must look like a pipeline at the top level and other YAML must not;
    a pipeline holds a CI_KNOB_WORDS word exactly when it is meant to hold a knob.
    """
    try:
        from ruamel.yaml import YAML
    except ImportError:
        return False
    yaml = YAML(typ="safe", pure=True)
    for path, text in files.items():
        kind = kinds[path]
        source = _render_for_check(text) if kind == "template" else text
        try:
            documents = [doc for doc in yaml.load_all(source) if doc is not None]
        except Exception as error:  # any ruamel error: a generator bug
            raise AssertionError(f"generator bug: {path} is not valid YAML: {error}") from error
        if _looks_like_pipeline(documents) != (kind != "other"):
            raise AssertionError(f"generator bug: {path} ({kind}) looks wrong at the top level")
        if kind == "other":
            continue
        words = [word for word in CI_KNOB_WORDS if word in text.lower()]
        if bool(words) != (path in knobs):
            raise AssertionError(
                f"generator bug: {path} should {'' if path in knobs else 'not '}hold a CI knob "
                f"but holds {words or 'none'}"
            )
    return True
