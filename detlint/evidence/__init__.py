"""What CI history says: the reports CI keeps (``reports/``: JUnit XML, pytest's report
log), what they say about each test (``view.py``), which static test a reported one is
(``match.py``) and the findings that quote them (``quotes.py``).
"""
