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
