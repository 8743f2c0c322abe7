"""Elo pair ratings: one chunk of 13-table two-winner sessions (5000 sessions)."""
import numpy as np

from simcore.scoring.synthetic import synthetic_pairs
from simcore.schemes import PlayerTable, make_scheme


class EloApply:
    params = ["monthly", "running"]
    param_names = ["update"]

    def setup(self, update):
        self.scored = synthetic_pairs(5000, tables=13, n_players=400)
        self.scheme = make_scheme("elo-pairs", {"update": update})
        n = 400
        self.players = PlayerTable(np.ones(n, bool), np.zeros(n, bool), np.full(n, np.nan))
        self.out = np.empty((self.scored.n_entries, 2))
        self.time_apply(update)

    def time_apply(self, update):
        state = self.scheme.new_state(self.players, int(self.scored.pair_partnership.max()) + 1)
        self.scheme.apply(state, self.scored, self.out)
