"""World: planning who plays where (``world.plan_sessions``), one kernel call a chunk.

A month (weeks 13-17) of the default county and of the national scenario,
true strengths given as pass A gives them; ``track_plan_entries`` gives the
pair entries planned, a scale for the timing.
"""
import numpy as np

from simcore import scenario
from simcore.rng import replicate_keys
from simcore.world import build_world, plan_sessions, strength_on

FIRST, STOP = 13, 17


def _chunk(name):
    w = build_world(scenario.load_scenario(name), replicate_keys(2026, 1)[0])
    strength = np.stack([strength_on(w, w.start_day + 7 * wk) for wk in range(FIRST, STOP)])
    return w, strength


class Plan:
    params = ["default", "national"]
    param_names = ["scenario"]
    timeout = 300

    def setup(self, name):
        self.world, self.strength = _chunk(name)
        self.time_plan_month(name)  # compile / load the kernels outside the timing

    def time_plan_month(self, name):
        plan_sessions(self.world, FIRST, STOP, strength=self.strength)

    def track_plan_entries(self, name):
        """Pair entries planned in the month (a scale for the timing)."""
        return plan_sessions(self.world, FIRST, STOP, strength=self.strength).n_entries
