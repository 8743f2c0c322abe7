"""asv benchmarks, one file per pipeline stage.

Run against the working tree, no network or builds::

    python3 -m pip install -e '.[bench]'
    asv machine --yes
    asv run --python=same --quick --show-stderr

Every ``setup()`` builds its data and calls the kernels once, so numba
compilation is excluded from the timings.
"""
import os
import sys

# benchmark the working tree even when simcore is not installed
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
