"""What every CI pipeline generator shares: PipelineContext and YAML text helpers.

PipelineContext carries the random stream and the Python tree's test layout that
pipeline steps refer to, and writes the ``env:`` maps and pytest command lines of
every CI system; ``q`` and ``indent`` write YAML text.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .vocabulary import AREAS, NOUNS, QUALIFIERS, VERBS, camel

BK_QUEUES = ("ci-linux-small", "ci-linux-medium", "ci-linux-large", "ci-arm64", "ci-gpu-a10")
# Variables pipelines set. The engine makes every name of 4+ characters a word of its
# Python prefilter (DET302), so none of these may occur in a Python file without knobs
# (``_check_env_names``); steps also set the X_TRIALS variables that candidates read.
CI_ENV = (
    ("PYTHONHASHSEED", '"0"'),
    ("LOG_LEVEL", "info"),
    ("PIP_INDEX_URL", "https://pypi.internal.example.invalid/simple"),
    ("COVERAGE_FILE", "reports/.coverage.${BUILDKITE_JOB_ID}"),
    ("DATABASE_URL", "postgresql://ci:ci@postgres:5432/monorepo"),
    ("REDIS_URL", "redis://redis:6379/0"),
    ("AWS_DEFAULT_REGION", "eu-west-1"),
    ("UV_CACHE_DIR", "/cache/uv"),
    ("PYTEST_ADDOPTS", '"--color=yes -p no:cacheprovider"'),
    ("MONOREPO_ENV", "ci"),
    ("TZ", "UTC"),
)
K_EXPRESSIONS = (
    "not slow",
    "not slow and not integration",
    "roundtrip or monotonic",
    "{verb} and not {qualifier}",
    "Test{cls}",
    "{noun} or {verb}",
)


_PLAIN_UNSAFE_START = tuple("-?:,[]{}#&*!|>'\"%@`")


def q(text: str) -> str:
    """``text`` as a YAML scalar: plain when that is safe, else single-quoted."""
    if (
        not text
        or text.startswith(_PLAIN_UNSAFE_START)
        or ": " in text
        or " #" in text
        or text.endswith(":")
        or text != text.strip()
    ):
        return "'" + text.replace("'", "''") + "'"
    return text


def indent(lines: Sequence[str], spaces: int) -> list[str]:
    pad = " " * spaces
    return [pad + line if line else line for line in lines]


@dataclass
class PipelineContext:
    """The random stream and the tree's test layout that pipeline steps refer to."""

    rng: random.Random
    test_files: dict[tuple[str, str], list[str]]  # (area, sub) -> test file paths
    trial_vars: dict[tuple[str, str], list[str]]  # (area, sub) -> X_TRIALS variables its tests read
    keys: set[str] = field(default_factory=set)  # step keys of the current file
    env_names: set[str] = field(default_factory=set)  # every variable a pipeline sets

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.rng.randrange(len(options))]

    def area_sub(self, area: str | None = None) -> tuple[str, str]:
        area = area or self.pick(tuple(AREAS))
        return area, self.pick(AREAS[area])

    def key(self, base: str) -> str:
        name, index = base, 2
        while name in self.keys:
            name, index = f"{base}-{index}", index + 1
        self.keys.add(name)
        return name

    def env(self, count: int, area: str | None = None, sub: str | None = None) -> list[str]:
        """``count`` settings for an ``env:`` map; a trial count for the tests of ``sub``."""
        chosen = self.rng.sample(CI_ENV, min(count, len(CI_ENV)))
        trials = self.trial_vars.get((area or "", sub or ""))
        if trials and self.rng.random() < 0.5:
            chosen.append((self.pick(trials), f'"{self.pick((1, 3, 20, 50))}"'))
        self.env_names.update(name for name, _ in chosen)
        return [f"{name}: {value}" for name, value in chosen]

    def pytest(self, area: str, sub: str, knob: str | None = None) -> str:
        """One pytest command line, with ``--reruns`` or ``|| true`` for those knobs."""
        rng = self.rng
        form = rng.randrange(8)
        target = f"tests/{area}/{sub}"
        if form == 0:
            target = f"tests/{area}"
        elif form == 1 and self.test_files.get((area, sub)):
            target = self.pick(self.test_files[(area, sub)])
        words = ["python -m pytest" if rng.random() < 0.3 else "pytest"]
        if rng.random() < 0.3:
            expression = self.pick(K_EXPRESSIONS).format(
                verb=self.pick(VERBS),
                noun=self.pick(NOUNS),
                qualifier=self.pick(QUALIFIERS),
                cls=camel(self.pick(NOUNS)),
            )
            words.append(f'-k "{expression}"')
        if rng.random() < 0.15:
            words.append(f"-m {self.pick(('integration', 'slow', 'not integration'))!r}")
        words.append(target)
        words += rng.sample(
            ["-q", "-n 4", "-n auto", "--durations=20", "-p no:cacheprovider", "--maxfail=20"],
            rng.randint(0, 2),
        )
        if rng.random() < 0.4:
            words.append(f"--junitxml=reports/junit-{area}-{sub}.xml")
        if knob == "reruns":
            words.append(self.pick(("--reruns 2", "--reruns 3 --reruns-delay 5", "--reruns=1")))
        text = " ".join(words)
        return text + " || true" if knob == "or-true" else text
