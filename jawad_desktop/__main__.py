"""``python -m jawad_desktop``: the same entry point as the ``jawad`` command."""

import sys

from jawad_desktop.cli import main

if __name__ == "__main__":
    sys.exit(main())
