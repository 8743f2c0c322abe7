"""The issue-18 scale targets, each one ``simcore run`` in a subprocess as a user types it.

* ``NationalDecade``: ``simcore run national --years 10 --no-figures``
  (target < 15 s wall, < 3 GB peak); ``NationalYear`` is the same for one
  year (the scaled track: about a tenth of the work, for quick runs);
* ``AcblYear``: ``simcore run acbl --years 1 --no-figures``, all four
  schemes (target < 30 s wall, < 8 GB).

Wall seconds are the whole process (imports, world, simulation, grading,
the netCDF and the summary; kernels come from the cache, warmed first);
``engine_seconds`` the simulation and grading alone, as the run prints it;
peak memory the child's maximum resident set.
"""
from ._runs import run_scenario


class _ScenarioRun:
    timeout = 3600
    number = 1
    repeat = 1
    scenario, years = "", 0.0

    def setup_cache(self):
        run_scenario(self.scenario, 2 / 52)  # compile / load the kernels this scenario uses
        return run_scenario(self.scenario, self.years)

    def track_wall_seconds(self, m):
        return m["wall_seconds"]
    track_wall_seconds.unit = "seconds"

    def track_engine_seconds(self, m):
        return m["engine_seconds"]
    track_engine_seconds.unit = "seconds"

    def track_peak_gb(self, m):
        return m["peak_gb"]
    track_peak_gb.unit = "GB"

    def track_ns_per_player_board(self, m):
        return m["engine_seconds"] / m["player_boards"] * 1e9
    track_ns_per_player_board.unit = "ns per player-board"


class NationalDecade(_ScenarioRun):
    scenario, years = "national", 10.0


class NationalYear(_ScenarioRun):
    scenario, years = "national", 1.0


class AcblYear(_ScenarioRun):
    scenario, years = "acbl", 1.0
