"""``python -m simcore`` is the ``simcore`` command."""
import sys

from simcore.cli import main

sys.exit(main())
