"""What every stage uses and that knows nothing of the others: spans, paths, reading files
without raising, line indexes, TOML and INI positions, work over the cores, the progress
bar, the facts cache, severities and how probabilities are written.

Nothing here imports the rest of detlint.
"""
