"""The whole engine: world, movements, score model, scoring and all four schemes.

``time_`` benchmarks divide by nothing: the workload is fixed (the default
county, 1 replicate of 1 year = ~2.6 M player-boards), so seconds compare
across commits; ``simcore bench`` prints the same as ns per player-board.
``peakmem_`` records the peak memory of the same runs.
"""
import numpy as np

from simcore.engine import Engine
from simcore.movements.seating import seat_sessions
from simcore.world import plan_sessions

from ._workload import quarter


class Engine1Year:
    params = [1, 2]
    param_names = ["threads"]
    timeout = 300

    def setup(self, threads):
        Engine("default", None, 1, 4 / 52, 1, threads=threads).run()  # compile / load the cache

    def time_default_1_year(self, threads):
        Engine("default", None, 2, 1.0, 2026, threads=threads).run()

    def peakmem_default_1_year(self, threads):
        # in this process: peakmem sees only it, and with 2 threads the run would deal its replicates to
        # worker processes (engine.processes) whose memory it does not count
        Engine("default", None, 2, 1.0, 2026, threads=threads, processes=False).run()


class PassA:
    """Simulation only (no grading): one quarter of the default county."""

    def setup(self):
        self.engine, self.rep, _ = quarter()

    def time_pass_a_quarter(self):
        self.engine._pass_a(self.rep, 13, 26)


class PassAStages:
    """Pass A's planning and seating alone, on the same quarter (weeks 13-26) as ``PassA``."""

    def setup(self):
        self.engine, self.rep, _ = quarter()
        self.plan = plan_sessions(self.rep.world, 13, 26)
        self.index = np.arange(self.plan.n_sessions, dtype=np.int64)
        seat_sessions(self.plan, self.rep.key, self.index)  # compile; the quarter's layouts are stored

    def time_plan_quarter(self):
        plan_sessions(self.rep.world, 13, 26)

    def time_seat_quarter(self):
        seat_sessions(self.plan, self.rep.key, self.index)
