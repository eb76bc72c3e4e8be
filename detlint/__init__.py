"""detlint: find the knobs that make CI quiet and say what each one hides."""

__version__ = "0.1.0"
