"""Shared test settings: hypothesis runs derandomized so that CI is repeatable."""

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
