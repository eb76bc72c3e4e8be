"""``python -m detlint``: the same entry point as the console script.

``python -m`` puts the working directory first on the import path, and detlint runs in
trees it did not make: a ``click.py`` or ``yaml.py`` at the root of the scanned tree
would be imported in place of the library. detlint's own modules are found through
its package, so that entry goes before anything else is imported.
"""

import os
import sys

if sys.path and not getattr(sys.flags, "safe_path", False) and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from detlint.cli.main import main  # after the import path is made safe

if __name__ == "__main__":
    main()
