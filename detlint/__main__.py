"""``python -m detlint``: the same entry point as the console script."""

from detlint.cli import main

if __name__ == "__main__":
    main()
