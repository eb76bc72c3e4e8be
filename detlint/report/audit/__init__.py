"""The audit for people: its view (each test's whole stack and numbers, the knobs ranked
by what removing each alone wins back, the CI steps, the headline) and its renderings as
JSON, self-contained HTML with plots, and Markdown.

The view (``view.py``, ``facts.py``, ``knobs.py``, ``curves.py``) is computed once from
an analysis; the renderings (``inventory.py``, ``html.py``, ``markdown.py``) only
format it.
"""
