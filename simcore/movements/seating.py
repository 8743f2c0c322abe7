"""Seating a chunk of planned sessions: their entries laid out by their movements.

``seat_sessions(plan, key, session_index)`` turns every session of the
world's plan (``world.SessionPlan``: kind, target boards, winners and the
session's pair entries) into one ``Seated`` struct of arrays: each session's
movement and its rows (one per round and table: NS entry, EW entry, first
board, boards), packed in session order, ready for ``simcore.simulate`` to
play.

* static movements (Mitchell, Howell, multiple teams): the layout rule picks
  the movement for the field (``choose_layout``) and its rows are a
  memoised template shared by every session of that layout; a session
  names its layout, and play reads the template's rows through that
  number (no copy of them per session: ~22 MB a national chunk);
* Swiss pairs and Swiss teams: only the size is fixed here (rounds, boards a
  round); the pairing happens while playing, from the standings;
* the online room: partners and tables are drawn here, round by round, from
  a stream keyed by (replicate key, session index), so the seating does not
  depend on the thread that seats it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simcore._jit import kernel
from simcore.movements import choose_layout, layout_schedule
from simcore.movements.online import online_seat_round
from simcore.movements.registry import KIND_ONLINE, SEAT_ROOM, SEAT_STANDINGS, kind_flags, movement
from simcore.rng import seed_stream

_ONLINE_SALT = 0x0717E  # stream label of the online room's seating
_IS_TEAM = np.array(kind_flags(lambda m: m.is_team))
_IS_ROOM = np.array(kind_flags(lambda m: m.seating == SEAT_ROOM))


@dataclass
class Seating:
    """One layout (or one online session) laid out: its rows and movement.

    kind, name, winners, n_boards: as written in ``Results`` (the layout
    rule may change the planned kind, e.g. a small Mitchell field plays a
    Howell).  rows (R, 6) int64: round, table, NS entry, EW entry, first
    board, boards — entry offsets within the session; empty for Swiss kinds,
    whose rounds are paired while playing (``swiss_rounds`` rounds of
    ``bpr`` boards).  n_travellers: traveller rows the session writes.
    rank: final (round, board, table) position of each traveller in the
    order it is written.  a, b, bonus (grade points), team: the online
    room's pair entries (the pairs formed in the room); None for the other
    kinds, whose entries are the plan's.
    """

    kind: int
    name: str
    winners: int
    n_boards: int
    rows: np.ndarray
    n_travellers: int
    rank: np.ndarray
    swiss_rounds: int = 0
    bpr: int = 0
    a: np.ndarray | None = None
    b: np.ndarray | None = None
    bonus: np.ndarray | None = None
    team: np.ndarray | None = None


class LayoutRows(NamedTuple):
    """Rows of L layouts, packed (struct of arrays): layout l owns rows [start[l], start[l+1]) and
    travellers [rank_start[l], rank_start[l+1]) (``rank``: each one's (round, board, table) position within
    the session, in the order they are written).  ``simulate.play`` plays them as they are."""

    start: np.ndarray  # int64 (L+1)
    round: np.ndarray  # int32
    table: np.ndarray  # int32
    ns: np.ndarray  # int64: NS entry, offset within the session
    ew: np.ndarray  # int64
    first_board: np.ndarray  # int32
    n_boards: np.ndarray  # int64
    rank_start: np.ndarray  # int64 (L+1)
    rank: np.ndarray  # int64


@dataclass
class Seated:
    """A chunk's sessions seated (S sessions, E entries, T travellers), struct of arrays.

    kind, winners, n_boards, names: as written in ``Results``; swiss: paired
    while playing (``swiss_rounds`` rounds of ``swiss_bpr`` boards);
    entry_start (S+1) and entry_a/b/bonus/team: the sessions' pair entries
    (the plan's, or for the online room the pairs formed); layout (S):
    session s plays the rows of layout ``layout[s]`` of ``layouts``
    (``LayoutRows``: the stored templates, then one per online session;
    Swiss layouts have none) and writes its travellers (row by row, boards
    in order) from trav_start[s] (S+1), its i-th at (session, round, board,
    table) position trav_start[s] + rank[rank_start[layout[s]] + i].
    """

    kind: np.ndarray
    winners: np.ndarray
    n_boards: np.ndarray
    names: np.ndarray
    swiss: np.ndarray
    swiss_rounds: np.ndarray
    swiss_bpr: np.ndarray
    entry_start: np.ndarray
    entry_a: np.ndarray
    entry_b: np.ndarray
    entry_bonus: np.ndarray
    entry_team: np.ndarray
    layout: np.ndarray
    layouts: LayoutRows
    trav_start: np.ndarray
    any_online: bool


def seat_sessions(plan, key, session_index) -> Seated:
    """Lay out every session of a ``world.SessionPlan`` with its movement.

    key: the replicate key (uint64); session_index: int64 (S), each
    session's index in the replicate (labels the online room's random
    stream).  Python work grows with the distinct layouts of the chunk (and
    its online sessions), not with its sessions.
    """
    S = plan.n_sessions
    kind = np.asarray(plan.kind, np.int64)
    entry_start = np.asarray(plan.entry_start, np.int64)
    room = _IS_ROOM[kind]
    session_layout = np.zeros(S, np.int64)
    fixed = np.flatnonzero(~room)
    store = _STORE.snapshot()
    if len(fixed):
        n = _entrants(kind, entry_start, plan.team)
        code = _layout_code(kind[fixed], n[fixed], plan.boards[fixed], plan.winners[fixed])
        session_layout[fixed] = _STORE.ids(code)
        store = _STORE.snapshot()  # it may have grown
    online = np.flatnonzero(room)
    rows = store.rows
    field = dict(kind=store.kind, winners=store.winners, n_boards=store.n_boards, names=store.names,
                 swiss_rounds=store.swiss_rounds, bpr=store.bpr)
    if len(online):  # the online room draws its seating afresh each session
        rooms = _rooms(plan, online, session_index)
        seats = room_seats(rooms)
        seat_rooms(np.uint64(key), rooms, seats)
        session_layout[online] = len(store.seatings) + np.arange(len(online))
        rows = _join_rows(store.rows, seats)
        O = len(online)
        n_boards = rooms.rounds * rooms.bpr
        names = [f"online:{n}entries-{r}x{b}" for n, r, b in zip(np.diff(rooms.entry_start), rooms.rounds, rooms.bpr)]
        more = dict(kind=np.full(O, KIND_ONLINE), winners=np.ones(O), n_boards=n_boards,
                    names=np.array(names, object), swiss_rounds=np.zeros(O), bpr=np.zeros(O))
        field = {k: np.concatenate([v, more[k].astype(v.dtype)]) for k, v in field.items()}
    trav_start = np.zeros(S + 1, np.int64)
    np.cumsum(np.diff(rows.rank_start)[session_layout], out=trav_start[1:])
    if len(online):
        entry_start, a, b, bonus, team = _room_entries(plan, online, seats)
    else:
        a, b, bonus, team = plan.a, plan.b, plan.bonus, plan.team
    f = {k: v[session_layout] for k, v in field.items()}
    return Seated(kind=f["kind"], winners=f["winners"], n_boards=f["n_boards"], names=f["names"],
                  swiss=f["swiss_rounds"] > 0, swiss_rounds=f["swiss_rounds"], swiss_bpr=f["bpr"],
                  entry_start=entry_start, entry_a=a, entry_b=b, entry_bonus=bonus, entry_team=team,
                  layout=session_layout, layouts=rows, trav_start=trav_start, any_online=bool(len(online)))


def _layout_code(kind, n, boards, winners) -> np.ndarray:
    """One int64 per (kind, entrants, target boards, winners): kind < 256, n < 2**24, boards < 2**16, winners < 16."""
    k = lambda x: np.asarray(x, np.int64)  # noqa: E731
    return (k(kind) << 44) | (k(n) << 20) | (k(boards) << 4) | k(winners)


def _layout_key(code: int) -> tuple:
    return code >> 44, (code >> 20) & 0xFFFFFF, (code >> 4) & 0xFFFF, code & 0xF


@dataclass(frozen=True)
class _Packed:
    """Seatings packed (``LayoutRows``) with their per-layout fields as arrays."""

    seatings: list
    rows: LayoutRows
    kind: np.ndarray
    winners: np.ndarray
    n_boards: np.ndarray
    names: np.ndarray
    swiss_rounds: np.ndarray
    bpr: np.ndarray

    @classmethod
    def of(cls, seatings: list) -> "_Packed":
        f = lambda name, dt: np.array([getattr(x, name) for x in seatings], dt)  # noqa: E731
        return cls(list(seatings), _layout_rows(seatings), f("kind", np.int8), f("winners", np.int8),
                   f("n_boards", np.int32), f("name", object), f("swiss_rounds", np.int64), f("bpr", np.int64))

    def extended(self, more: list) -> "_Packed":
        """These layouts followed by ``more``, packing only the new ones (the store grows a few layouts at a
        time, the first time each field size is met: repacking every layout each time grew as their square)."""
        new = _Packed.of(more)
        a, b = self.rows, new.rows
        cat = np.concatenate
        rows = LayoutRows(cat([a.start, a.start[-1] + b.start[1:]]), cat([a.round, b.round]), cat([a.table, b.table]),
                          cat([a.ns, b.ns]), cat([a.ew, b.ew]), cat([a.first_board, b.first_board]),
                          cat([a.n_boards, b.n_boards]), cat([a.rank_start, a.rank_start[-1] + b.rank_start[1:]]),
                          cat([a.rank, b.rank]))
        f = lambda name: cat([getattr(self, name), getattr(new, name)])  # noqa: E731
        return _Packed(self.seatings + new.seatings, rows, f("kind"), f("winners"), f("n_boards"), f("names"),
                       f("swiss_rounds"), f("bpr"))


class _LayoutStore:
    """Every static and Swiss layout seated so far in this process, packed once (append-only).

    Threads seat chunks at once: a reader takes ``snapshot()`` (never
    changed afterwards); new layouts are added under a lock and a new
    snapshot is packed, which happens only the first time a field size is
    met.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._ids: dict = {}
        self._packed = _Packed.of([])

    def snapshot(self) -> _Packed:
        return self._packed

    def ids(self, codes: np.ndarray) -> np.ndarray:
        """Layout ids of the given ``_layout_code`` values (repeats allowed), seating the new ones in
        increasing code order."""
        codes = codes.tolist()
        get = self._ids.get
        found = [get(c) for c in codes]  # a dict lookup a session: a chunk has few sessions, fewer layouts
        if None in found:
            with self._lock:
                ids = self._ids
                L, more, new = len(self._packed.seatings), [], {}
                for c in sorted(set(c for c, got in zip(codes, found) if got is None)):
                    if c not in ids:
                        more.append(layout_seating(*_layout_key(c)))
                        new[c] = L + len(more) - 1
                if new:  # the packed layouts first, then their ids: an id read is always in the snapshot
                    self._packed = self._packed.extended(more)
                    ids.update(new)
                found = [ids[c] for c in codes]
        return np.array(found, np.int64)



def _ranges(starts, idx) -> np.ndarray:
    """Indices of the ranges [starts[i], starts[i+1]) for i in idx, concatenated."""
    n = starts[idx + 1] - starts[idx]
    if not n.sum():
        return np.zeros(0, np.int64)
    return np.repeat(starts[idx] - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))


def _rooms(plan, online, session_index) -> Rooms:
    """The online sessions' entries and sizes (``boards`` in rounds of ``boards_per_round``, default 2)."""
    start = np.asarray(plan.entry_start, np.int64)
    take = _ranges(start, online)
    n = start[online + 1] - start[online]
    entry_start = np.zeros(len(online) + 1, np.int64)
    np.cumsum(n, out=entry_start[1:])
    bpr = np.asarray(plan.boards_per_round, np.int64)[online]
    bpr = np.where(bpr > 0, bpr, 2)
    rounds = np.maximum(1, np.asarray(plan.boards, np.int64)[online] // bpr)
    return Rooms(np.asarray(session_index, np.int64)[online], rounds, bpr, entry_start,
                 plan.a[take].astype(np.int64), plan.b[take].astype(np.int64), plan.bonus[take].astype(np.float64))


def _join_rows(rows: LayoutRows, seats: RoomSeats) -> LayoutRows:
    """The stored layouts' rows followed by the online sessions' (one layout each)."""
    R, T = int(seats.row_start[-1]), int(seats.rank_start[-1])
    cat = np.concatenate
    return LayoutRows(cat([rows.start, rows.start[-1] + seats.row_start[1:]]), cat([rows.round, seats.round[:R]]),
                      cat([rows.table, seats.table[:R]]), cat([rows.ns, seats.ns[:R]]), cat([rows.ew, seats.ew[:R]]),
                      cat([rows.first_board, seats.first_board[:R]]), cat([rows.n_boards, seats.n_boards[:R]]),
                      cat([rows.rank_start, rows.rank_start[-1] + seats.rank_start[1:]]), cat([rows.rank, seats.rank[:T]]))


def _room_entries(plan, online, seats: RoomSeats):
    """(entry_start, a, b, bonus, team) of the chunk with each online session's entries replaced by its pairs."""
    start = np.asarray(plan.entry_start, np.int64)
    E = int(start[-1])
    count = np.diff(start)
    pool_start = start[:-1].copy()
    count[online] = np.diff(seats.pair_start)
    pool_start[online] = E + seats.pair_start[:-1]  # the pairs come after the plan's entries in the pool
    entry_start = np.zeros(len(count) + 1, np.int64)
    np.cumsum(count, out=entry_start[1:])
    take = np.repeat(pool_start - entry_start[:-1], count) + np.arange(int(entry_start[-1]))
    K = int(seats.pair_start[-1])
    pool = lambda x, y, dt: np.concatenate([np.asarray(x, dt), np.asarray(y[:K], dt)])[take]  # noqa: E731
    return (entry_start, pool(plan.a, seats.pair_a, np.int32), pool(plan.b, seats.pair_b, np.int32),
            pool(plan.bonus, seats.pair_bonus, np.float64), pool(plan.team, np.full(K, -1), np.int32))


def _entrants(kind, entry_start, team) -> np.ndarray:
    """Entrants of each session: its pairs, or its teams (highest team number + 1) in team kinds."""
    n = np.diff(entry_start)
    teams = np.flatnonzero(_IS_TEAM[kind] & (n > 0))
    if len(teams):  # a few team sessions a chunk: one max each (numpy's maximum.at costs ~1 us an entry)
        team = np.asarray(team)
        for s, a, b in zip(teams.tolist(), entry_start[teams].tolist(), entry_start[teams + 1].tolist()):
            n[s] = max(-1, int(team[a:b].max())) + 1
    return n


def _layout_rows(layouts: list) -> LayoutRows:
    """The layouts' rows and ranks packed (``LayoutRows``)."""
    L = len(layouts)
    rows = np.concatenate([x.rows for x in layouts]) if L else np.zeros((0, 6), np.int64)
    start = np.zeros(L + 1, np.int64)
    np.cumsum([len(x.rows) for x in layouts], out=start[1:])
    rank_start = np.zeros(L + 1, np.int64)
    np.cumsum([len(x.rank) for x in layouts], out=rank_start[1:])
    rank = np.concatenate([x.rank for x in layouts]).astype(np.int64) if L else np.zeros(0, np.int64)
    return LayoutRows(start, rows[:, 0].astype(np.int32), rows[:, 1].astype(np.int32), rows[:, 2].copy(),
                      rows[:, 3].copy(), rows[:, 4].astype(np.int32), rows[:, 5].copy(), rank_start, rank)


_SEATINGS: dict = {}


def layout_seating(kind: int, n: int, boards: int, winners: int) -> Seating:
    """The ``Seating`` of a (kind, entrants, target boards, winners) field: its layout rule's movement, memoised.

    Swiss kinds get their size only (no rows; travellers in written order).
    """
    key = (kind, n, boards, winners)
    hit = _SEATINGS.get(key)
    if hit is not None:
        return hit
    layout = choose_layout(kind, n, boards, winners)
    m = movement(layout.code)
    if m.seating == SEAT_STANDINGS:
        rounds, bpr = dict(layout.options)["rounds"], layout.boards
        tables = (n // 2) * (2 if m.is_team else 1)
        n_trav = rounds * tables * bpr
        rank = np.arange(n_trav, dtype=np.int64)
        rank.setflags(write=False)
        hit = Seating(m.code, f"{m.name}:{n}{m.entrants}-{rounds}x{bpr}", m.winners, rounds * bpr,
                      np.zeros((0, 6), np.int64), n_trav, rank, rounds, bpr)
    else:
        rows, name, win, n_boards, skind, rank = static_template(layout)
        hit = Seating(skind, name, win, n_boards, rows, len(rank), rank)
    _SEATINGS[key] = hit
    return hit


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


class Rooms(NamedTuple):
    """A chunk's online-room sessions (O), their entries packed (E): [entry_start[o], entry_start[o+1])."""

    index: np.ndarray  # int64 (O): the session's index in the replicate (labels its seating stream)
    rounds: np.ndarray  # int64 (O)
    bpr: np.ndarray  # int64 (O): boards a round
    entry_start: np.ndarray  # int64 (O+1)
    a: np.ndarray  # int64 (E): the player
    b: np.ndarray  # int64 (E): the partner they entered with, -1 alone
    bonus: np.ndarray  # float64 (E): grade points of a pair that entered together


class RoomSeats(NamedTuple):
    """``seat_rooms``'s output, packed by session: rows [row_start[o], row_start[o+1]) (fields as
    ``LayoutRows``), their travellers' (round, board, table) positions within the session from rank_start[o],
    and the pairs formed [pair_start[o], pair_start[o+1]) (players low, high; bonus, grade points)."""

    row_start: np.ndarray  # int64 (O+1)
    round: np.ndarray  # int32
    table: np.ndarray  # int32
    ns: np.ndarray  # int64: NS pair, offset within the session's pairs
    ew: np.ndarray  # int64
    first_board: np.ndarray  # int32
    n_boards: np.ndarray  # int64
    rank_start: np.ndarray  # int64 (O+1)
    rank: np.ndarray  # int64
    pair_start: np.ndarray  # int64 (O+1)
    pair_a: np.ndarray  # int64
    pair_b: np.ndarray  # int64
    pair_bonus: np.ndarray  # float64


def room_seats(rooms: Rooms) -> RoomSeats:
    """Output arrays for ``seat_rooms`` sized to the most every room can need (a table per four players a round)."""
    n = np.diff(rooms.entry_start)
    per_entry = np.bincount(np.repeat(np.arange(len(n)), n), weights=np.where(rooms.b >= 0, 2, 1),
                            minlength=len(n)).astype(np.int64)  # room players by session
    rows = int((rooms.rounds * (per_entry // 4 + 1)).sum())
    travs = int((rooms.rounds * (per_entry // 4 + 1) * rooms.bpr).sum())
    O = len(n)
    e = lambda k, dt=np.int64: np.empty(k, dt)  # noqa: E731
    return RoomSeats(np.zeros(O + 1, np.int64), e(rows, np.int32), e(rows, np.int32), e(rows), e(rows),
                     e(rows, np.int32), e(rows), np.zeros(O + 1, np.int64), e(travs), np.zeros(O + 1, np.int64),
                     e(2 * rows), e(2 * rows), e(2 * rows, np.float64))


@kernel
def seat_rooms(key, rooms, out):
    """Seat every online-room session of a chunk (``Rooms``) into ``out`` (``RoomSeats``, from ``room_seats``).

    Each session draws from its own stream (key, ``_ONLINE_SALT``, index):
    round by round ``online_seat_round`` pairs the players who entered
    alone, shuffles the pairs (those who entered together stay together) and
    seats them two to a table; round r plays boards r·bpr+1 .. (r+1)·bpr at
    every table.  The pairs formed are numbered in the order they first sit
    down (NS before EW, table by table, round by round); a pair that entered
    together keeps its bonus (if listed twice, the last), the others 0.
    """
    st = np.empty(1, np.uint64)
    O = rooms.index.shape[0]
    for o in range(O):
        seed_stream(st, key, _ONLINE_SALT, rooms.index[o])
        e0, e1 = rooms.entry_start[o], rooms.entry_start[o + 1]
        n_fixed = 0
        for e in range(e0, e1):
            if rooms.b[e] >= 0:
                n_fixed += 1
        singles = np.empty(e1 - e0 - n_fixed, np.int64)
        fa, fb, fbonus = np.empty(n_fixed, np.int64), np.empty(n_fixed, np.int64), np.empty(n_fixed)
        i = j = 0
        for e in range(e0, e1):
            if rooms.b[e] >= 0:
                fa[j], fb[j], fbonus[j] = rooms.a[e], rooms.b[e], rooms.bonus[e]
                j += 1
            else:
                singles[i] = rooms.a[e]
                i += 1
        cap = (singles.shape[0] + 2 * n_fixed) // 4 + 1
        na, nb, ea, eb = np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.int64)
        bpr = rooms.bpr[o]
        r0, k0 = out.row_start[o], out.rank_start[o]
        keys = np.empty(2 * rooms.rounds[o] * cap, np.int64)  # each seated pair (low << 32 | high), in order
        row, k = r0, k0
        for r in range(rooms.rounds[o]):
            tables = online_seat_round(singles, fa, fb, st, na, nb, ea, eb)
            for t in range(tables):
                keys[2 * (row - r0)] = _pair_key(na[t], nb[t])
                keys[2 * (row - r0) + 1] = _pair_key(ea[t], eb[t])
                out.round[row], out.table[row] = r + 1, t + 1
                out.first_board[row], out.n_boards[row] = r * bpr + 1, bpr
                for q in range(bpr):  # (round, board, table) position of the row's q-th board
                    out.rank[k] = (k - k0) - (t * bpr + q) + q * tables + t
                    k += 1
                row += 1
        out.row_start[o + 1], out.rank_start[o + 1] = row, k
        _number_pairs(keys[:2 * (row - r0)], fa, fb, fbonus, out, r0, o)


@kernel(helper=True)
def _pair_key(x, y):
    return (min(x, y) << 32) | max(x, y)


@kernel(helper=True)
def _number_pairs(keys, fa, fb, fbonus, out, r0, o):
    """Pairs by first appearance in ``keys``: the rows' ns/ew from r0 and the pairs from out.pair_start[o]."""
    K = keys.shape[0]
    order = np.argsort(keys, kind="mergesort")  # stable: each key's first appearance leads its run
    group = np.empty(K, np.int64)
    leader = np.empty(K, np.int64)
    G = 0
    for i in range(K):
        if i == 0 or keys[order[i]] != keys[order[i - 1]]:
            leader[G] = order[i]
            G += 1
        group[i] = G - 1
    rank = np.empty(G, np.int64)
    rank[np.argsort(leader[:G])] = np.arange(G)  # ids in order of first appearance
    p0 = out.pair_start[o]
    for i in range(K):
        pid = rank[group[i]]
        at = order[i]
        if at % 2 == 0:
            out.ns[r0 + at // 2] = pid
        else:
            out.ew[r0 + at // 2] = pid
        out.pair_a[p0 + pid] = keys[at] >> 32
        out.pair_b[p0 + pid] = keys[at] & 0xFFFFFFFF
        out.pair_bonus[p0 + pid] = 0.0
    uniq = np.empty(G, np.int64)
    for i in range(K):
        uniq[group[i]] = keys[order[i]]
    for j in range(fa.shape[0]):  # pairs that entered together keep their bonus
        g = np.searchsorted(uniq, _pair_key(fa[j], fb[j]))
        if g < G and uniq[g] == _pair_key(fa[j], fb[j]):
            out.pair_bonus[p0 + rank[g]] = fbonus[j]
    out.pair_start[o + 1] = p0 + G


_STORE = _LayoutStore()  # after the functions it packs with
