"""TODO package docstring."""
