"""Bridge score model: table draws, board deals, deal-pool construction, card-play records."""
import numpy as np

from simcore.bench import bridge_model as bench
from simcore.bridge import model as bm


class TableDraws:
    """100 000 boards at T tables each: deal the board, then one draw per table."""

    params = [8, 13]
    param_names = ["tables"]

    def setup(self, tables):
        self.params_ = bm.BridgeModelParams()
        self.pool = bm.build_pool(self.params_, np.uint64(1))
        self.sink = np.zeros(1, np.int64)
        self.time_boards(tables)

    def time_boards(self, tables):
        bench._bench_draws(self.pool.scores, self.pool.thresholds, self.pool.n_deals, 100_000, tables,
                        self.params_.alpha, 1.0, np.uint64(2), self.sink)


class DealPool:
    def setup(self):
        self.params_ = bm.BridgeModelParams()
        bm.build_pool(self.params_, np.uint64(1), 16)

    def time_build_1024_deals(self):
        bm.build_pool(self.params_, np.uint64(1), 1024)


class CardPlay:
    def setup(self):
        self.sink = np.zeros(1, np.int64)
        self.time_100k_player_sessions()

    def time_100k_player_sessions(self):
        bench._bench_imps(100_000, 24, np.uint64(3), self.sink)
