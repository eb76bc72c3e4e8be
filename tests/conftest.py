"""Shared test settings: hypothesis runs derandomized so that CI is repeatable, and
every test has a detlint cache of its own."""

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "detlint",
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("detlint")

# Fixture repositories hold test files for detlint to read, not for pytest to run.
collect_ignore_glob = ["fixtures/*"]


@pytest.fixture(autouse=True)
def _own_facts_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test starts with an empty cache of its own (and never fills the user's):
    detlint runs, in-process or as subprocesses, read it from DETLINT_CACHE_DIR."""
    monkeypatch.setenv("DETLINT_CACHE_DIR", str(tmp_path_factory.mktemp("detlint-cache")))
    monkeypatch.delenv("DETLINT_NO_CACHE", raising=False)


@pytest.fixture
def repository(tmp_path):
    """An empty git repository in ``tmp_path``, with detlint's cached listings cleared
    before and after the test."""
    from repo_expectations import git_repository

    from detlint.readers.project.discovery import clear_cache

    clear_cache()
    git_repository(tmp_path, {})
    yield tmp_path
    clear_cache()
