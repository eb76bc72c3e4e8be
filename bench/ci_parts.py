"""The CPU each part of reading a tree's pipelines costs, in this process, on one core.

``bench/run.py`` times whole commands and ``bench/phases.py`` splits one audit's
wall time; this script splits the pipeline read itself, so that the per-part
numbers quoted for it (README, "Speed") can be measured again::

    .venv/bin/python bench/ci_parts.py /tmp/detlint-bench-ci

It reads the YAML files detlint would read (by its own prefilter), then times,
each as the minimum CPU (``time.process_time``) of ``--repeat`` rounds with the
cyclic garbage collector off, as in a detlint run:

- libyaml's event stream alone (ruamel.yaml's ``CParser``), the floor of any
  reader built on ruamel.yaml;
- ``read_yaml``: those events composed into detlint's positioned nodes;
- the steps' keys: the Buildkite, GitHub and GitLab readers;
- the shell text of every distinct script;
- pickling and unpickling the facts, as worker processes hand them over.

Standard library and detlint only.
"""

from __future__ import annotations

import argparse
import gc
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _best(repeat: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()

    from ruamel.yaml.cyaml import CParser  # type: ignore[attr-defined]

    from detlint.readers.ci.facts import script_groups, script_key
    from detlint.readers.ci.pipeline_files import (
        checkout_base,
        is_yaml_name,
        system_by_content,
        system_by_path,
    )
    from detlint.readers.ci.pipeline_reader import PipelineReader
    from detlint.readers.ci.pipelines import read_pipelines
    from detlint.readers.ci.shell.commands import read_command
    from detlint.readers.project.discovery import discover
    from detlint.readers.yaml.load import read_yaml
    from detlint.readers.yaml.templates import mask_templates

    root = arguments.tree.resolve()
    found = discover([root], root, exclude=(), respect_gitignore=True)
    reader = PipelineReader(found.root, root)
    files = []
    for path in found.files:
        if is_yaml_name(path.name):
            data = path.read_bytes()
            if reader.worth_reading(data, system_by_path(reader.relative(path))):
                files.append((path, data.decode("utf-8", "replace")))
    gc.disable()

    def events() -> None:
        for _, text in files:
            masked = mask_templates(text)
            get = CParser(masked.text if masked is not None else text).get_event
            while get() is not None:
                pass

    documents = [(path, read_yaml(text, str(path)).documents) for path, text in files]
    pipelines = []
    for path, docs in documents:
        system = system_by_path(reader.relative(path)) or system_by_content(docs)
        if system is not None and docs:
            pipelines.append((path, system, docs))

    def facts() -> list[Any]:
        return [
            reader._facts(str(path), system, docs, checkout_base(reader.relative(path)))
            for path, system, docs in pipelines
        ]

    keys = {script_key(group) for f in facts() for step in f.steps for group in script_groups(step)}

    def shell() -> None:
        for text, errexit, pipefail in keys:
            read_command(text, errexit=errexit, pipefail=pipefail)

    read = read_pipelines(found.files, found.root, root, jobs=1).pipelines
    blob = pickle.dumps(read, protocol=pickle.HIGHEST_PROTOCOL)
    parts = [
        (f"libyaml events ({len(files)} files)", events),
        (
            "read_yaml (events composed into nodes)",
            lambda: [read_yaml(t, str(p)) for p, t in files],
        ),
        (f"steps' keys ({len(pipelines)} pipelines)", facts),
        (f"shell ({len(keys)} distinct scripts)", shell),
        (f"pickle the facts ({len(blob) / 1e6:.1f} MB)", lambda: pickle.dumps(read, protocol=5)),
        ("unpickle the facts", lambda: pickle.loads(blob)),
    ]
    for label, work in parts:
        print(f"{label:45} {_best(arguments.repeat, work):7.3f} s")


if __name__ == "__main__":
    main()
