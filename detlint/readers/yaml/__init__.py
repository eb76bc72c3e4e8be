"""YAML read into plain nodes with exact positions, fast and without ever raising.

Pipelines and conda environment files are YAML; findings must point at the key that
sets a knob, and a file with one bad line (a tab, a template tag) must still be read
around it. Templated files (Jinja, Go) are read with their tags masked.
"""
