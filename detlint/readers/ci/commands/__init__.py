"""What a CI command hands control to: a script, a tox environment, a make target,
followed to the pytest runs written there (``follow.py``).
"""
