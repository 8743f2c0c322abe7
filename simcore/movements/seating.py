"""Seating a planned session: its entries laid out by its movement.

``seat_session(plan, s, key, session_index)`` turns session ``s`` of the
world's plan (``world.SessionPlan``: kind, target boards, winners and the
session's pair entries) into a ``Seating``: the movement's name and rows
(one per round and table: NS entry, EW entry, first board, boards), ready
for ``simcore.simulate`` to play.

* static movements (Mitchell, Howell, multiple teams): the layout rule picks
  the movement for the field (``choose_layout``) and its rows are a
  memoised template shared by every session of that size;
* Swiss pairs and Swiss teams: only the size is fixed here (rounds, boards a
  round); the pairing happens while playing, from the standings;
* the online room: partners and tables are drawn here, round by round, from
  a stream keyed by (replicate key, session index), so the seating does not
  depend on the thread that seats it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.movements import choose_layout, layout_schedule
from simcore.movements.online import online_seat_round
from simcore.movements.registry import KIND_ONLINE, SEAT_ROOM, SEAT_STANDINGS, movement
from simcore.rng import new_stream

_ONLINE_SALT = 0x0717E  # stream label of the online room's seating


@dataclass
class Seating:
    """One session laid out: its entries (pairs), rows and movement.

    kind, name, winners, n_boards: as written in ``Results`` (the layout
    rule may change the planned kind, e.g. a small Mitchell field plays a
    Howell).  a, b, bonus (grade points), team: the session's pair entries
    (the online room's are the pairs formed in the room).  rows (R, 6)
    int64: round, table, NS entry, EW entry, first board, boards — entry
    offsets within the session; empty for Swiss kinds, whose rounds are
    paired while playing (``swiss_rounds`` rounds of ``bpr`` boards).
    n_travellers: traveller rows the session writes.  rank: final
    (round, board, table) position of each traveller in the order it is
    written.
    """

    kind: int
    name: str
    winners: int
    n_boards: int
    a: np.ndarray
    b: np.ndarray
    bonus: np.ndarray
    team: np.ndarray
    rows: np.ndarray
    n_travellers: int
    rank: np.ndarray
    swiss_rounds: int = 0
    bpr: int = 0


def seat_session(plan, s: int, key, session_index: int) -> Seating:
    """Lay out session ``s`` of a ``world.SessionPlan`` with its movement.

    key: the replicate key (uint64); session_index: the session's index in
    the replicate (labels the online room's random stream).
    """
    lo, hi = plan.entry_start[s], plan.entry_start[s + 1]
    a, b, bonus, team = plan.a[lo:hi], plan.b[lo:hi], plan.bonus[lo:hi], plan.team[lo:hi]
    kind, boards, winners = int(plan.kind[s]), int(plan.boards[s]), int(plan.winners[s])
    if movement(kind).seating == SEAT_ROOM:
        return seat_online(a, b, bonus, boards, int(plan.boards_per_round[s]) or 2, key, session_index)
    teams = movement(kind).is_team
    n = int(team.max()) + 1 if teams else len(a)
    layout = choose_layout(kind, n, boards, winners)
    m = movement(layout.code)
    if m.seating == SEAT_STANDINGS:
        rounds, bpr = dict(layout.options)["rounds"], layout.boards
        tables = (n // 2) * (2 if m.is_team else 1)
        n_trav = rounds * tables * bpr
        return Seating(m.code, f"{m.name}:{n}{m.entrants}-{rounds}x{bpr}", m.winners, rounds * bpr, a, b, bonus, team,
                       np.zeros((0, 6), np.int64), n_trav, np.arange(n_trav), rounds, bpr)
    rows, name, win, n_boards, skind, rank = static_template(layout)
    return Seating(skind, name, win, n_boards, a, b, bonus, team, rows, len(rank), rank)


_TEMPLATES: dict = {}


def static_template(layout):
    """(rows, name, winners, n_boards, kind, rank) of a static movement's layout, memoised.

    rows (R, 6): round, table, NS entry, EW entry, first board, boards.  For
    team movements entrant (team t, pair j) is entry 2t + j: the world lists
    a team's two pairs next to each other.
    """
    hit = _TEMPLATES.get(layout)
    if hit is not None:
        return hit
    sched = layout_schedule(layout)
    if sched.is_teams:
        ns = 2 * sched.ns.astype(np.int64) + sched.ns_pair
        ew = 2 * sched.ew.astype(np.int64) + sched.ew_pair
    else:
        ns, ew = sched.ns.astype(np.int64), sched.ew.astype(np.int64)
    bpr = sched.boards
    rows = np.stack([sched.round, sched.table, ns, ew, sched.board_set * bpr + 1, np.full(len(ns), bpr)],
                    axis=1).astype(np.int64)
    rows.setflags(write=False)
    hit = _TEMPLATES[layout] = (rows, sched.name, sched.winners, sched.n_boards, sched.kind, written_rank(rows))
    return hit


def written_rank(rows: np.ndarray) -> np.ndarray:
    """Position in (round, board, table) order of each traveller as the play kernels write them (row by row)."""
    rep = rows[:, 5]
    rnd = np.repeat(rows[:, 0], rep)
    table = np.repeat(rows[:, 1], rep)
    board = np.repeat(rows[:, 4], rep) + (np.arange(int(rep.sum())) - np.repeat(np.cumsum(rep) - rep, rep))
    order = np.lexsort((table, board, rnd))
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    rank.setflags(write=False)
    return rank


def seat_online(a, b, bonus, boards, bpr, key, session_index) -> Seating:
    """The online room: partners and tables drawn afresh each round (``online_seat_round``).

    a, b: the room's entries (b = −1 for a player entering alone); bonus:
    grade points of pairs that entered together; boards: boards in the
    tourney; bpr: boards a round.
    """
    st = new_stream(np.uint64(key), _ONLINE_SALT, int(session_index))
    fixed = b >= 0
    fa, fb = a[fixed].astype(np.int64), b[fixed].astype(np.int64)
    bonus_of = {(min(x, y), max(x, y)): v for x, y, v in zip(fa, fb, bonus[fixed])}
    singles = a[~fixed].astype(np.int64)
    rounds = max(1, boards // bpr)
    cap = (len(singles) + 2 * len(fa)) // 4 + 1
    pair_id: dict = {}
    rows = []
    for r in range(rounds):
        na, nb, ea, eb = (np.empty(cap, np.int64) for _ in range(4))
        tables = online_seat_round(singles, fa, fb, st, na, nb, ea, eb)
        for t in range(tables):
            ids = [pair_id.setdefault((min(x, y), max(x, y)), len(pair_id)) for x, y in ((na[t], nb[t]), (ea[t], eb[t]))]
            rows.append((r + 1, t + 1, ids[0], ids[1], r * bpr + 1, bpr))
    pairs = np.array(list(pair_id), np.int64).reshape(-1, 2)
    pb = np.array([bonus_of.get(tuple(p), 0.0) for p in pairs.tolist()])
    rows = np.array(rows, np.int64).reshape(-1, 6)
    return Seating(KIND_ONLINE, f"online:{len(a)}entries-{rounds}x{bpr}", 1, rounds * bpr, pairs[:, 0], pairs[:, 1],
                   pb, np.full(len(pairs), -1, np.int32), rows, len(rows) * bpr, written_rank(rows))
