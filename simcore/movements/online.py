"""The online room (BCL-like): partners and tables formed afresh each round.

A tourney has ``rounds`` rounds of ``boards`` boards, every table playing
the same boards in a round, so each board is compared across the whole
room.  Each round ``online_seat_round`` shuffles the room's individual
players into pairs (players who entered together stay together for the
whole tourney), shuffles the pairs and seats them two to a table, the
first NS.  A player or pair left over sits out the round.  Rankings are
board by board across the room (one-winner); PPI rates every board.
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel
from simcore.results import KIND_ONLINE
from simcore.rng import below
from simcore.movements import Schedule
from simcore.movements import check_boards
from simcore.movements import check_int
from simcore.movements import make_schedule


@kernel
def online_seat_round(singles, fixed_a, fixed_b, state, out_ns_a, out_ns_b, out_ew_a, out_ew_b):
    """Seat one round; returns the number of tables.

    singles: int64 room players entering alone; fixed_a/fixed_b: pairs that
    entered together.  Writes each table's NS and EW players.
    """
    ns = singles.shape[0]
    order = singles.copy()
    for i in range(ns - 1, 0, -1):
        j = below(state, i + 1)
        order[i], order[j] = order[j], order[i]
    n_pairs = ns // 2 + fixed_a.shape[0]
    pa = np.empty(n_pairs, np.int64)
    pb = np.empty(n_pairs, np.int64)
    for k in range(ns // 2):
        pa[k], pb[k] = order[2 * k], order[2 * k + 1]
    for k in range(fixed_a.shape[0]):
        pa[ns // 2 + k], pb[ns // 2 + k] = fixed_a[k], fixed_b[k]
    for i in range(n_pairs - 1, 0, -1):
        j = below(state, i + 1)
        pa[i], pa[j] = pa[j], pa[i]
        pb[i], pb[j] = pb[j], pb[i]
    tables = n_pairs // 2
    for t in range(tables):
        out_ns_a[t], out_ns_b[t] = pa[2 * t], pb[2 * t]
        out_ew_a[t], out_ew_b[t] = pa[2 * t + 1], pb[2 * t + 1]
    return tables


def online_room(n_players: int, boards: int, *, rounds: int, fixed_pairs=0, seed: int = 0) -> Schedule:
    """An online tourney of ``n_players`` room players (0..n−1).

    fixed_pairs: the first 2·fixed_pairs room players entered as pairs
    (0–1, 2–3, …) and stay together; the rest are seated afresh each round.
    The Schedule's entrants are the pairs formed (``entrant_players``).
    """
    from simcore.rng import new_stream
    n_players = check_int("online room players", n_players, 8, 100000)
    boards = check_boards(boards)
    rounds = check_int("online rounds", rounds, 1, 200)
    fixed_pairs = check_int("online fixed pairs", fixed_pairs, 0, n_players // 2)
    st = new_stream(np.uint64(seed), 0x0717E, 0)
    fa = np.arange(0, 2 * fixed_pairs, 2, dtype=np.int64)
    fb = fa + 1
    singles = np.arange(2 * fixed_pairs, n_players, dtype=np.int64)
    cap = n_players // 4 + 1
    pair_id: dict = {}
    rows = []
    for r in range(rounds):
        na, nb, ea, eb = (np.empty(cap, np.int64) for _ in range(4))
        tables = online_seat_round(singles, fa, fb, st, na, nb, ea, eb)
        for t in range(tables):
            ids = []
            for a, b in ((na[t], nb[t]), (ea[t], eb[t])):
                key = (min(a, b), max(a, b))
                ids.append(pair_id.setdefault(key, len(pair_id)))
            rows.append((r + 1, t + 1, ids[0], ids[1], r))
    arr = np.array(rows)
    players = np.array(list(pair_id), np.int64).reshape(-1, 2)
    return make_schedule(f"online:{n_players}players-{rounds}x{boards}", KIND_ONLINE, 1, len(pair_id), boards,
                         arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], arr[:, 4], entrant_players=players)
