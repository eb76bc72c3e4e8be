"""CircleCI: ``.circleci/config.yml`` into the CI facts (``config.py``)."""
