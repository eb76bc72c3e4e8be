"""``python -m detlint``: the same entry point as the console script."""

from detlint.cli.main import main

if __name__ == "__main__":
    main()
