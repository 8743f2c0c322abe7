"""The issue-18 pipeline figures, as ``simcore bench --scaling`` measures them, in one measurement.

``setup_cache`` times the whole pipeline (all four schemes, the default
county, 2 replicates x 2 years; ``simcore.bench.pipeline``) on 1 and 2
threads and the fused floor (``simcore.bench.floor``) once; the ``track_``
benchmarks report from that one measurement, so the ratios compare figures
taken minutes apart on the same machine.  On 2 threads the engine deals the
workload's 2 replicates to 2 worker processes (``simcore.engine.processes``);
the benchmark names keep "threads" for the history.  Targets: <= 25 ns per
player-board on one thread, speed-up >= 1.8 on two, ratio to the floor <= 3.
"""
from simcore.bench import floor, pipeline  # modules: asv would take a time_* name for a benchmark


class PipelineFigures:
    timeout = 1800
    number = 1
    repeat = 1

    def setup_cache(self):
        timed = pipeline.time_pipelines((1, 2), repeats=3)  # the two counts' runs interleaved
        fl = floor.time_floor(repeats=3)
        return {"one": timed[1]["ns_per_player_board"], "two": timed[2]["ns_per_player_board"],
                "speedup": pipeline.speedup(timed[1], timed[2]), "floor": fl["floor_ns_per_player_board"]}

    def track_ns_per_player_board_1_thread(self, m):
        return m["one"]
    track_ns_per_player_board_1_thread.unit = "ns per player-board"

    def track_ns_per_player_board_2_threads(self, m):
        return m["two"]
    track_ns_per_player_board_2_threads.unit = "ns per player-board"

    def track_speedup_2_threads(self, m):
        return m["speedup"]
    track_speedup_2_threads.unit = "x"

    def track_floor_ns_per_player_board(self, m):
        return m["floor"]
    track_floor_ns_per_player_board.unit = "ns per player-board"

    def track_ratio_to_floor(self, m):
        return m["one"] / m["floor"]
    track_ratio_to_floor.unit = "x"
