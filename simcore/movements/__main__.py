"""``python -m simcore.movements [--sessions N]``: supported sizes and generation speed.

Prints every movement's supported sizes, then times generating N sessions
(10 000 by default) of each movement over a spread of club-sized fields.
Static movements (Mitchell, Howell, multiple teams) are memoised in use;
here each session's schedule is built afresh (the memo cleared; the
per-size Howell starter/adder tables stay precomputed) so the figure is the
real construction cost.  Swiss events are paired round by round from
random match results (the pairing kernel runs every round); online rooms
are seated afresh each round.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simcore.movements import SUPPORTED
from simcore.movements import check_boards
from simcore.movements import howell
from simcore.movements import mitchell
from simcore.movements import online
from simcore.movements import swiss
from simcore.movements import teams


def _cases(rng):
    """(kind, field description, builder) for each movement; builders take the session index."""
    def mit(i):
        mitchell._mitchell.cache_clear()
        return mitchell.mitchell(10 + i % 41, 3)  # 10..50 pairs, all rounds

    def how(i):
        howell._howell.cache_clear()
        return howell.howell(6 + i % 11, 3)  # 6..16 pairs: full Howells of 3..8 tables

    def mt(i):
        teams._multiple_teams.cache_clear()
        return teams.multiple_teams(4 + i % 9, 4)  # 4..12 teams, full round robin

    def sp(i):
        n = 20 + 2 * (i % 21)  # 20..60 pairs, 7 rounds of 4 boards
        return swiss.swiss_pairs(n, 4, rounds=7, seed=i, results=lambda r, a, b: rng.normal(0, 12, len(a)))

    def st(i):
        n = 10 + i % 21  # 10..30 teams, 7 rounds of 4 boards
        return swiss.swiss_teams(n, 4, rounds=7, seed=i, results=lambda r, a, b: rng.normal(0, 20, len(a)))

    def onl(i):
        n = 40 + 4 * (i % 41)  # 40..200 room players, 6 rounds of 2 boards
        return online.online_room(n, 2, rounds=6, seed=i, fixed_pairs=n // 6)

    return [("mitchell", "10-50 pairs, all rounds, 3 boards a round", mit),
            ("howell", "6-16 pairs, full Howell, 3 boards a round", how),
            ("multiple_teams", "4-12 teams, full round robin, 4-board matches", mt),
            ("swiss_pairs", "20-60 pairs, 7 rounds of 4 boards", sp),
            ("swiss_teams", "10-30 teams, 7 rounds of 4 boards", st),
            ("online", "40-200 room players, 6 rounds of 2 boards", onl)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m simcore.movements", description=__doc__.splitlines()[0])
    p.add_argument("--sessions", type=int, default=10_000, help="sessions per movement (default 10000)")
    args = p.parse_args(argv)
    if args.sessions < 1:
        p.error(f"--sessions must be at least 1 (got {args.sessions})")
    check_boards(3)
    print("supported sizes:")
    for kind, text in SUPPORTED.items():
        print(f"  {kind:15s} {text}")
    rng = np.random.default_rng(0)
    print(f"\ntime to generate {args.sessions} sessions of each (built afresh, one thread):")
    for kind, what, build in _cases(rng):
        build(0)  # compile / load the kernels
        t0 = time.perf_counter()
        for i in range(args.sessions):
            build(i)
        wall = time.perf_counter() - t0
        print(f"  {kind:15s} {wall:7.2f} s  ({wall / args.sessions * 1e6:7.1f} µs a session; {what})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
