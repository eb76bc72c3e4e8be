"""The words a CI command hands pytest: which are rerun knobs, which are test targets,
and which options take a value (a table kept by the plugin and release each was read
from).
"""
