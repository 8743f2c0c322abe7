"""``python -m simcore`` is the ``simcore`` command."""
import sys

from simcore.cli import command

sys.exit(command())
