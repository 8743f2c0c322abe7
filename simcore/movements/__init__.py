"""Movements: who sits where, in which direction, on which boards.

A movement turns a field of entrants (pairs, teams, or the players of an
online room) and a number of boards per round into the ``Schedule`` of one
session.  One module per movement:

* ``mitchell`` — NS stationary, EW move up, boards move down; two-winner
  unless arrow-switched (static template);
* ``howell``   — one-winner; full Howells and shortened Howells (static);
* ``teams``    — multiple teams: a round robin of short matches (static);
* ``swiss``    — Swiss pairs and Swiss teams: a numba pairing kernel that
  pairs the next round from the standings, and the Python driver;
* ``online``   — the BCL-like online room: a numba kernel that seats a
  round afresh (random partners, regular partnerships kept together).

Every kind has one record in ``registry`` (code, builder, layout rule,
team / match kind, default winners, strength-of-opponents rule, how the
simulator seats it); ``seating`` lays out a planned session for the
simulator.

``generate(kind, n_entrants, boards, **options)`` is the single entry point
to a Schedule; the one path from a movement to ``Results`` is the
simulator's (``simulate.chunk.play_plan``: seat, play, write travellers).

Conventions (every movement):

* ``boards`` is the number of boards per round — the size of a board set
  (per match for Swiss and teams).  Board set ``s`` (0-based) is boards
  ``s*boards + 1 .. (s+1)*boards``, so the session's boards are 1..B with
  ``B = n_sets * boards``, and every board 1..B is played at least once.
* Rows are one per (round, table), sorted by (round, table); rounds and
  tables count from 1, entrants and board sets from 0.
* Entrants are pairs for Mitchell, Howell and Swiss pairs; teams for
  multiple teams and Swiss teams (rows then say which pair of each team
  sits: ``ns_pair`` / ``ew_pair``, 0 = pair one, 1 = pair two); pairs formed
  in the room for the online room (``entrant_players`` names the two room
  players of each).
* ``winners`` says who a pair's session score is ranked against, which is
  what strength of field / opponents needs (SPEC §1.2, seed 001):
  2 → the other pairs that sat the same direction (Mitchell, multiple teams
  and Swiss teams, whose cross-IMPs are taken against the same-direction
  field); 1 → every other pair (Howell, arrow-switched Mitchell, Swiss
  pairs, online room).  For the match kinds (``results.MATCH_KINDS``:
  Swiss pairs and Swiss teams) NGS takes SOpp match by match from the
  opponents at the table; the rows give those opponents.
* A pair that sits out a round has no row that round; a board set played
  fewer times than the most-played set is match-pointed with the Neuberg
  correction (``simcore.scoring.board_matchpoints``, ``expected_plays =
  Schedule.expected_plays``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# only the light registry here: results.py imports it, and this package's __init__ runs first
from simcore.movements.registry import (EW, KIND_ONLINE, MATCH_BOARDS, MAX_FULL_HOWELL, MIXED,  # noqa: F401
                                        MOVEMENT_KINDS, MOVEMENTS, NS, TEAM_KINDS, Layout, movement)

__all__ = ["Schedule", "generate", "choose_layout", "layout_schedule", "SUPPORTED", "supported_sizes"]


@dataclass(frozen=True, eq=False)
class Schedule:
    """One session's seating: struct of arrays, read-only.

    Session:
        name        movement name as written in Results (``"mitchell:8t-skip"``)
        kind        ``results.MOVEMENT_KINDS`` code
        winners     1 (one-winner) or 2 (two-winner): who a pair is ranked against
        n_entrants  pairs, teams, or (online) pairs formed in the room
        boards      boards per round (board-set size)
        n_sets      board sets; the session's boards are 1..n_sets*boards
        n_rounds, n_tables
    Rows (R), one per (round, table), sorted by (round, table):
        round, table   int32, from 1
        ns, ew         int32 entrant ids (teams for team kinds)
        board_set      int32, from 0
        ns_pair, ew_pair  int8: team kinds, which pair of the team sits
                       (0 pair one, 1 pair two); -1 for pair kinds
    Entrants (E), or (E, 2) per team pair for team kinds:
        direction      int8 NS, EW or MIXED (sat both ways)
        ns_boards, ew_boards  int32 boards played sitting NS / EW
    Optional:
        entrant_players int32 (E, 2): online room, the two room players of
                       each pair formed; None otherwise
        points         float64 (E): Swiss, the final standings (VPs); None
                       for static movements
    """

    name: str
    kind: int
    winners: int
    n_entrants: int
    boards: int
    n_sets: int
    n_rounds: int
    n_tables: int
    round: np.ndarray
    table: np.ndarray
    ns: np.ndarray
    ew: np.ndarray
    board_set: np.ndarray
    ns_pair: np.ndarray
    ew_pair: np.ndarray
    direction: np.ndarray
    ns_boards: np.ndarray
    ew_boards: np.ndarray
    entrant_players: np.ndarray | None = None
    points: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.round)

    @property
    def n_boards(self) -> int:
        """Distinct boards in the session (boards 1..n_boards)."""
        return self.n_sets * self.boards

    @property
    def is_teams(self) -> bool:
        return self.kind in TEAM_KINDS

    def set_plays(self) -> np.ndarray:
        """How many tables play each board set over the session."""
        return np.bincount(self.board_set, minlength=self.n_sets).astype(np.int32)

    @property
    def expected_plays(self) -> int:
        """Plays of the most-played board: Neuberg's N for the other boards."""
        return int(self.set_plays().max())

    def first_board(self, board_set) -> np.ndarray:
        """First board number (from 1) of each board set."""
        return np.asarray(board_set) * self.boards + 1

    def rows(self) -> dict:
        """The row arrays as a dict (for printing / DataFrames)."""
        return {k: getattr(self, k) for k in ("round", "table", "ns", "ew", "board_set", "ns_pair", "ew_pair")}


def _ro(a, dtype):
    a = np.ascontiguousarray(a, dtype=dtype)
    a.setflags(write=False)
    return a


def make_schedule(name, kind, winners, n_entrants, boards, rnd, table, ns, ew, board_set,
                  ns_pair=None, ew_pair=None, entrant_players=None, points=None) -> Schedule:
    """Assemble a Schedule from rows (any order; rounds/tables from 1).

    Board sets are relabelled 0..n_sets-1 in order of first play so that
    every board 1..B is played; directions and NS/EW board counts are
    derived from the rows.
    """
    rnd, table = np.asarray(rnd, np.int32), np.asarray(table, np.int32)
    order = np.lexsort((table, rnd))
    rnd, table = rnd[order], table[order]
    ns, ew = np.asarray(ns, np.int32)[order], np.asarray(ew, np.int32)[order]
    board_set = np.asarray(board_set, np.int64)[order]
    used, first = np.unique(board_set, return_index=True)
    relabel = np.empty(used.max() + 1 if len(used) else 0, np.int64)
    relabel[used] = np.argsort(np.argsort(first))  # rank of each set by first play
    board_set = relabel[board_set]
    teams = kind in TEAM_KINDS
    if teams:
        ns_pair = np.asarray(ns_pair, np.int8)[order]
        ew_pair = np.asarray(ew_pair, np.int8)[order]
        ns_plays = np.zeros((n_entrants, 2), np.int32)
        ew_plays = np.zeros((n_entrants, 2), np.int32)
        np.add.at(ns_plays, (ns, ns_pair), 1)
        np.add.at(ew_plays, (ew, ew_pair), 1)
    else:
        ns_pair = np.full(len(rnd), -1, np.int8)
        ew_pair = np.full(len(rnd), -1, np.int8)
        ns_plays = np.bincount(ns, minlength=n_entrants).astype(np.int32)
        ew_plays = np.bincount(ew, minlength=n_entrants).astype(np.int32)
    direction = np.where(ew_plays == 0, NS, np.where(ns_plays == 0, EW, MIXED)).astype(np.int8)
    return Schedule(
        name=name, kind=int(kind), winners=int(winners), n_entrants=int(n_entrants), boards=int(boards),
        n_sets=len(used), n_rounds=int(rnd.max()) if len(rnd) else 0,
        n_tables=int(table.max()) if len(table) else 0,
        round=_ro(rnd, np.int32), table=_ro(table, np.int32), ns=_ro(ns, np.int32), ew=_ro(ew, np.int32),
        board_set=_ro(board_set, np.int32), ns_pair=_ro(ns_pair, np.int8), ew_pair=_ro(ew_pair, np.int8),
        direction=_ro(direction, np.int8), ns_boards=_ro(ns_plays * boards, np.int32),
        ew_boards=_ro(ew_plays * boards, np.int32),
        entrant_players=None if entrant_players is None else _ro(entrant_players, np.int32),
        points=None if points is None else _ro(points, np.float64),
    )


# --- argument checks shared by the movements -------------------------------

def check_int(name: str, value, lo: int, hi: int | None = None, what: str = "") -> int:
    """``value`` as an int in [lo, hi]; ValueError naming the allowed range."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        allowed = f"{lo} to {hi}" if hi is not None else f"at least {lo}"
        raise ValueError(f"{name} must be {allowed}{what}, got {v}")
    return v


def check_boards(boards) -> int:
    return check_int("boards (boards per round)", boards, 1, 36)


# --- the single entry point --------------------------------------------------

SUPPORTED = {m.name: m.sizes for m in MOVEMENTS}
"""The sizes every movement accepts, by name (from the registry)."""


def supported_sizes() -> dict:
    """The sizes every movement accepts (also printed by ``python -m simcore.movements``)."""
    return dict(SUPPORTED)


def generate(kind: str, n_entrants: int, boards: int, *, seed: int = 0, **options) -> Schedule:
    """The Schedule of one session of movement ``kind``.

    kind: one of ``results.MOVEMENT_KINDS``.
    n_entrants: pairs (mitchell, howell, swiss_pairs), teams (multiple_teams,
        swiss_teams) or room players (online).
    boards: boards per round (per match for Swiss / teams), at least 1.
    seed: random seed of the dynamic kinds (Swiss round-1 draw, online
        seating); the static kinds ignore it.
    options: see ``mitchell.mitchell``, ``howell.howell``,
        ``teams.multiple_teams``, ``swiss.swiss_pairs`` / ``swiss.swiss_teams``
        (which need ``results=callback``) and ``online.online_room``.

    Static schedules are memoised and read-only: the same arguments return
    the same object.
    """
    m = movement(str(kind))
    if m.seeded:
        return m.builder(n_entrants, boards, seed=seed, **options)
    return m.builder(n_entrants, boards, **options)


# --- the standard choice for a field ------------------------------------------------

def choose_layout(kind: int, n_entrants: int, target_boards: int, winners: int = 2) -> Layout:
    """The movement a club or event runs for a field of ``n_entrants``: its kind's layout rule.

    Pairs kinds take pairs, team kinds teams, the online room players.  The
    rules live in the registry (``registry.MOVEMENTS[kind].layout``), e.g.:
    fewer than 8 pairs play a Howell instead of a Mitchell; more than 40
    pairs an arrow-switched Mitchell instead of a Howell; more than 40 teams
    Swiss teams instead of a round robin; one-winner (``winners=1``)
    Mitchells arrow-switch the last quarter of their rounds.
    """
    return movement(kind).layout(int(n_entrants), max(1, int(target_boards)), int(winners))


def layout_schedule(layout: Layout) -> Schedule:
    """The (memoised) Schedule of a static layout from ``choose_layout``."""
    return generate(layout.name, layout.n, layout.boards, **dict(layout.options))


KINDS = {m.name: m.code for m in MOVEMENTS}
