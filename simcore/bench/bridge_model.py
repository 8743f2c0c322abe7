"""Timings of the bridge model's kernels (``python -m simcore.bench.bridge_model``).

Table draws per table-board (and the per-board overhead, from a fit over 4-32
tables), ``deal_board`` per board, the deal pool per deal, a card-play record
per player-session.  The small ``_bench_*`` loops exist only to time the
model's inline kernels; benchmarks/bench_bridge_model.py uses them too.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from simcore._jit import kernel
from simcore.bridge.model import (BridgeModelParams, _vulnerability, build_pool, deal_board, draw_imps_lost,
                                  draw_ns_score)
from simcore.rng import seed_stream


@kernel
def _bench_draws(scores, thresholds, n_deals, n_boards, n_tables, alpha, sigma, key, sink):
    st = np.empty(1, np.uint64)
    seed_stream(st, key, 0, 0)
    acc = 0
    for b in range(n_boards):
        code = deal_board(n_deals, _vulnerability(b % 16 + 1), st)
        for t in range(n_tables):
            acc += draw_ns_score(scores, thresholds, code, 45.0 + (t & 7), 52.0 - (t & 3), alpha, sigma, st)
    sink[0] = acc


@kernel
def _bench_deal(n_deals, n_boards, key, sink):
    st = np.empty(1, np.uint64)
    seed_stream(st, key, 0, 0)
    acc = 0
    for b in range(n_boards):
        acc += deal_board(n_deals, _vulnerability(b % 16 + 1), st)
    sink[0] = acc


@kernel
def _bench_imps(n, boards, key, sink):
    st = np.empty(1, np.uint64)
    seed_stream(st, key, 0, 0)
    acc = 0
    for i in range(n):
        imps, played = draw_imps_lost(40.0 + (i % 20), boards, 1.2, 0.05, 0.55, 0.25, st)
        acc += imps + played
    sink[0] = acc


def throughput(params: BridgeModelParams | None = None, repeat: int = 5) -> dict:
    """Best-of-``repeat`` timings (ns) of the model's kernels, after compiling them."""
    params = params or BridgeModelParams()
    sink = np.zeros(1, np.int64)
    key = np.uint64(12345)

    def best(fn):
        fn()
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter_ns()
            fn()
            times.append(time.perf_counter_ns() - t0)
        return min(times)

    n_pool = 2048
    pool = build_pool(params, key, 16)
    res = {"pool_build_ns_per_deal": best(lambda: build_pool(params, key, n_pool)) / n_pool}
    pool = build_pool(params, key)
    nb = 200_000
    res["deal_board_ns_per_board"] = best(lambda: _bench_deal(pool.n_deals, nb, key, sink)) / nb
    # cost of a board at T tables = per-board part (deal + first touch of the row) + T x per-table draw
    sizes = (4, 8, 16, 32)
    per_board = []
    for tables in sizes:
        nbt = 2_000_000 // tables
        per_board.append(best(lambda: _bench_draws(pool.scores, pool.thresholds, pool.n_deals, nbt, tables,
                                                   params.alpha, 1.0, key, sink)) / nbt)
        res[f"board_ns_at_{tables}_tables"] = per_board[-1]
    slope, intercept = np.polyfit(np.array(sizes, float), np.array(per_board), 1)
    res["draw_ns_per_table_board"] = float(slope)
    res["board_overhead_ns"] = float(intercept)
    ni = 200_000
    res["imps_lost_ns_per_player_session_24_boards"] = best(lambda: _bench_imps(ni, 24, key, sink)) / ni
    return res


def _main() -> int:
    res = throughput()
    print("bridge model throughput (one core, best of 5, compiled):")
    for k, v in res.items():
        print(f"  {k:<45} {v:8.1f} ns")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
