"""Pipeline throughput on a fixed mid-size workload; grading cost beside the peer libraries.

  simcore bench [--threads N] [--repeats K] [--scaling] [--linearity] [--json]
  simcore bench --peers [--repeats K] [--json]

The workload is the whole pipeline — world planning, movements, the bridge
score model, scoring and all four schemes — on the built-in ``default``
scenario (about 1 300 players), 2 replicates of 2 simulated years, graded
under ngs, ppi, elo-pairs and imps-lost.  Kernels are compiled (or loaded
from numba's cache) by a short warm-up run first, so the figures exclude
compilation.  The median of ``--repeats`` timed runs is reported.

The plain-Python reference is the same code with numba switched off
(``NUMBA_DISABLE_JIT=1``, in a subprocess): every kernel runs as the Python
it is written in, on a small slice of the same workload (1 replicate, 6
weeks, 1 thread).  ``ratio_vs_python`` compares the two per player-board,
measured in the same run.

JSON keys: ``player_boards_per_s``, ``ns_per_player_board`` (wall time per
player-board with ``threads`` threads), ``threads``, ``worker_processes``
(with several threads the engine deals the workload's 2 replicates to
worker processes, ``simcore.engine.processes``: 2 on 2 threads), ``schemes``,
``player_boards``, ``wall_seconds``, ``python_ns_per_player_board``,
``python_player_boards``, ``ratio_vs_python``; with ``--scaling`` also
``ns_per_player_board_1_thread`` and ``speedup`` (1 thread / ``threads``:
the median over rounds of the ratio, the two counts' runs interleaved);
with ``--linearity`` a list ``linearity`` of runs of 1, 2 and 4 years, 1, 2
and 4 replicates and the national scenario, each with ``player_boards``,
``wall_seconds`` and ``ns_per_player_board`` — the cost per player-board
stays flat if the cost is linear in players x years x replicates.

Every run also times the fused floor (``simcore.bench.floor``: one numba
loop playing 13-table, 26-board Mitchell sessions from the same bridge
score model, match-pointed and PPI-updated, one thread) and reports
``floor_ns_per_player_board`` and ``ratio_to_floor`` = the one-thread
pipeline's ns per player-board / the floor's (``ns_per_player_board_1_thread``
is then always reported; with ``--threads 1`` it is the main figure).

``--peers`` instead times grading alone (``simcore.bench.peers``): NGS, PPI,
Elo pairs and kalman apply a quarter of the ``default`` county's results
(seed 1, read back from a results bundle) while ``openskill`` (Plackett-Luce)
and ``trueskill`` update their ratings on the very same sessions, as ranked
matches of pairs (needs the optional extra ``simcore[peers]``; checked
before any work).  Every one timed ``--repeats`` times from a fresh state,
the best kept (our schemes after a warm-up call that compiles them).  JSON keys: ``player_sessions`` (two per pair
entry), ``peer_player_sessions`` (the players of the ranked matches: the
same sessions), ``sessions``, ``ns_per_player_session`` ({scheme or peer:
ns}), ``ratio`` ({peer: {scheme: peer ns / scheme ns}}: how many times
faster simcore's scheme is, from the one run) and ``workload``.
"""

from __future__ import annotations

import json
import os

from simcore.bench.floor import time_floor
from simcore.bench import pipeline
from simcore.bench.pipeline import BENCH_SCHEMES, linearity, speedup, time_pipelines, time_python


def add_arguments(p) -> None:
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="worker threads (default: all cores)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs; the median is reported (default 3)")
    p.add_argument("--scaling", action="store_true", help="also time 1 thread and report the speed-up")
    p.add_argument("--linearity", action="store_true",
                   help="also time runs of 1-4 years, 1-4 replicates and the national scenario (cost per player-board)")
    p.add_argument("--no-python", action="store_true", help="skip the plain-Python reference")
    p.add_argument("--peers", action="store_true",
                   help="instead: grading cost per player-session of ngs, ppi, elo-pairs and kalman beside openskill "
                        "and trueskill on the same sessions (needs simcore[peers])")
    p.add_argument("--json", action="store_true", help="print one JSON object (keys in the module doc)")


def main(args) -> int:
    if args.threads < 1 or args.repeats < 1:
        raise ValueError(f"--threads and --repeats must be at least 1 (got {args.threads}, {args.repeats})")
    if args.peers:
        return _peers(args)
    # the floor ratio is taken against one thread: always timed, its runs interleaved with the others'
    timed = time_pipelines((args.threads, 1), args.repeats)
    fast = timed[args.threads]
    out = {"player_boards_per_s": fast["player_boards_per_s"], "ns_per_player_board": fast["ns_per_player_board"],
           "threads": args.threads, "worker_processes": fast["worker_processes"], "schemes": list(BENCH_SCHEMES),
           "player_boards": fast["player_boards"],
           "wall_seconds": fast["wall_seconds"], "workload": pipeline.WORKLOAD}
    one = timed[1]
    floor = time_floor(repeats=max(args.repeats, 3))
    out["ns_per_player_board_1_thread"] = one["ns_per_player_board"]
    out["floor_ns_per_player_board"] = floor["floor_ns_per_player_board"]
    out["ratio_to_floor"] = one["ns_per_player_board"] / floor["floor_ns_per_player_board"]
    if args.scaling:
        out["speedup"] = speedup(one, fast)
    if not args.no_python:
        py = time_python()
        out["python_ns_per_player_board"] = py["ns_per_player_board"]
        out["python_player_boards"] = py["player_boards"]
        out["ratio_vs_python"] = py["ns_per_player_board"] / fast["ns_per_player_board"]
    if args.linearity:
        out["linearity"] = linearity(args.threads)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    w = pipeline.WORKLOAD
    print(f"pipeline ({', '.join(BENCH_SCHEMES)}) on {w['scenario']}, {w['replicates']} replicates x "
          f"{w['years']:g} years: {fast['player_boards'] / 1e6:.2f} M player-boards")
    print(f"  {args.threads} thread(s): {fast['ns_per_player_board']:.1f} ns per player-board, "
          f"{fast['player_boards_per_s'] / 1e6:.2f} M player-boards/s (median of {args.repeats})")
    print(f"  1 thread:   {out['ns_per_player_board_1_thread']:.1f} ns per player-board"
          + (f"; speed-up {out['speedup']:.2f}x" if args.scaling else ""))
    print(f"  fused floor (13-table Mitchell, match points + PPI in one loop): "
          f"{out['floor_ns_per_player_board']:.1f} ns per player-board; the pipeline is "
          f"{out['ratio_to_floor']:.1f}x the floor")
    if not args.no_python:
        print(f"  plain Python (NUMBA_DISABLE_JIT=1, {out['python_player_boards']} player-boards): "
              f"{out['python_ns_per_player_board']:.0f} ns per player-board; "
              f"numba is {out['ratio_vs_python']:.0f}x faster")
    if args.linearity:
        print("\ncost against players x years x replicates:")
        for r in out["linearity"]:
            print(f"  {r['scenario']:9s} {r['players']:6d} members {r['years']:5.2f} y x {r['replicates']} rep: "
                  f"{r['player_boards'] / 1e6:7.1f} M player-boards in {r['wall_seconds']:6.2f} s = "
                  f"{r['ns_per_player_board']:5.0f} ns each")
    return 0


def _peers(args) -> int:
    from simcore.bench.peers import OURS, PEERS, check_peers_installed, time_peers
    try:
        check_peers_installed()
    except ValueError as exc:
        raise ValueError(f"--peers: {exc}") from None
    res = time_peers(args.repeats)
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    w = res["workload"]
    print(f"grading cost on the same sessions: {w['scenario']}, {w['years']:g} years, seed {w['seed']}: "
          f"{res['sessions']} sessions, {res['player_sessions']} player-sessions")
    ns = res["ns_per_player_session"]
    for label in OURS + PEERS:
        print(f"  {label:<10} {ns[label]:12.1f} ns per player-session")
    for peer in PEERS:
        print(f"  {peer} takes " + ", ".join(f"{res['ratio'][peer][s]:.0f}x {s}'s" for s in OURS) + " time")
    return 0
