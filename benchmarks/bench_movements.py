"""Movements: building one session's schedule (memo cleared for the static ones)."""
import numpy as np

from simcore.movements import howell, mitchell, online, swiss, teams


class Static:
    def setup(self):
        self.time_mitchell_13_tables()
        self.time_howell_7_tables()
        self.time_multiple_teams_10()

    def time_mitchell_13_tables(self):
        mitchell._mitchell.cache_clear()
        mitchell.mitchell(26, 2)

    def time_howell_7_tables(self):
        howell._howell.cache_clear()
        howell.howell(14, 2)

    def time_multiple_teams_10(self):
        teams._multiple_teams.cache_clear()
        teams.multiple_teams(10, 4)


class Dynamic:
    def setup(self):
        self.rng = np.random.default_rng(0)
        self.time_swiss_pairs_40_x7()
        self.time_swiss_teams_20_x7()
        self.time_online_200_x6()

    def time_swiss_pairs_40_x7(self):
        swiss.swiss_pairs(40, 4, rounds=7, seed=1, results=lambda r, a, b: self.rng.normal(0, 12, len(a)))

    def time_swiss_teams_20_x7(self):
        swiss.swiss_teams(20, 4, rounds=7, seed=1, results=lambda r, a, b: self.rng.normal(0, 20, len(a)))

    def time_online_200_x6(self):
        online.online_room(200, 2, rounds=6, seed=1, fixed_pairs=30)
