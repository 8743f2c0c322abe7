"""Board-level scoring: match points, cross-IMPs, Butler, on realistic score spreads."""
import numpy as np

from simcore import scoring


class BoardScoring:
    params = [8, 13, 30]
    param_names = ["tables"]

    def setup(self, tables):
        rng = np.random.default_rng(0)
        self.boards = (rng.choice([-200, -100, 110, 140, 170, 420, 450, 480, 620], size=(1000, tables))
                       .astype(np.int32))
        self.out = np.empty(tables)
        self.time_matchpoints(tables)
        self.time_cross_imps(tables)
        self.time_butler(tables)

    def time_matchpoints(self, tables):
        for b in self.boards:
            scoring.board_matchpoints(b, tables, True, self.out)

    def time_cross_imps(self, tables):
        for b in self.boards:
            scoring.board_cross_imps(b, self.out)

    def time_butler(self, tables):
        for b in self.boards:
            scoring.board_butler(b, 1, self.out)
