"""Obviously-correct slow reference implementations of every numba kernel.

Each fast kernel in ``simcore`` is compared against its counterpart here on
random inputs (see the ``test_*`` modules).  Nothing here is optimised;
everything is plain Python on Python numbers so it can be read against SPEC.

Each area has its own module; this package re-exports them all, so tests
write ``naive.imps(...)``.  Add a module per area and one import line here.
"""

from .rng import *  # noqa: F401,F403
from .scoring import *  # noqa: F401,F403
from .world import *  # noqa: F401,F403
from .movements import *  # noqa: F401,F403
from .ngs import *  # noqa: F401,F403
from .elo import *  # noqa: F401,F403
from .bridge_model import *  # noqa: F401,F403
from .ppi import *  # noqa: F401,F403
from .imps_lost import *  # noqa: F401,F403
from .kalman import *  # noqa: F401,F403
from .offline import *  # noqa: F401,F403
from .simulate import *  # noqa: F401,F403
