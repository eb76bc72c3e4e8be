"""The Python pass: test modules into facts (marks in every spelling, aliases, trial
loops, the tests pytest collects), parsing only the files and blocks a byte prefilter
says can hold a knob. ``repository.py`` is the pass over a repository; ``staged_scan.py``
runs it beside the CI pass.
"""
