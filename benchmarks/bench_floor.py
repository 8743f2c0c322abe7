"""The fused floor kernel (simcore.bench.floor): the yardstick simcore bench divides the pipeline by."""

import numpy as np

from simcore.bench import floor


class FusedFloor:
    """200 sessions of 13 tables x 26 boards (270 400 player-boards), one thread."""

    def setup(self):
        pool, vul, strength, alpha, sigma, key = floor.floor_inputs(400, 2026)
        self.args = (pool.scores, pool.thresholds, pool.n_deals, vul, strength, alpha, sigma, key)
        floor.play_floor_sessions(*self.args, 2, np.full(400, 50.0), np.zeros(400, np.int64))  # compile

    def time_floor_200_sessions(self):
        floor.play_floor_sessions(*self.args, 200, np.full(400, 50.0), np.zeros(400, np.int64))
