"""GitHub Actions: workflow jobs and steps, ``continue-on-error`` with its expressions over
the matrix, retry actions, and attempt chains written by hand.
"""
