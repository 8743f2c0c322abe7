"""Mitchell movements: NS stationary, EW move up a table, boards move down.

With ``T`` tables, NS pair ``t`` (entrant ``t``, 0-based) sits at table
``t+1`` all session; EW pair ``e`` (entrant ``T+e``) starts at table
``e+1`` and moves up one table a round (from table T to table 1); the board
sets start with set ``t`` at table ``t+1`` and move down a table a round.
In round ``r`` (0-based) table ``t`` (0-based) therefore has EW pair
``t - r`` and board set ``t + r`` (mod T).  There are T board sets.

* **Odd T** (the plain Mitchell): T rounds; every NS pair meets every EW
  pair once and plays every set once; every set is played once a round.
* **Even T, skip** (``even="skip"``, the default): plain EW movement would
  bring every EW pair back to the boards it has played after T/2 rounds,
  so after round T/2 the EW pairs move up two tables (skip one).  At most
  T-1 rounds then fit without an NS pair meeting an EW pair twice; every
  set is still played once a round, each NS pair misses one set.
* **Even T, relay and bye stand** (``even="relay"``): T rounds.  Tables 1
  and T share (relay) a board set every round and a bye stand between
  tables T/2 and T/2+1 holds one set; boards move down through the cycle
  table 1(+T), 2, …, T/2, bye stand, T/2+1, …, T-1.  Every round one set
  is played twice (tables 1 and T, boards passed between them) and one set
  not at all; over the session every NS pair plays every set and every set
  is played T times, every EW pair plays every set once and meets every NS
  pair once.
* **Half table** (odd number of pairs): the pair that would complete table
  T is missing.  ``sitout="ew"`` (default): the EW pair starting at table T
  is absent, so each round the NS pair facing it sits out (the set at that
  table rests); ``sitout="ns"``: the NS pair of table T is absent and each
  EW pair sits out the round it reaches table T.  Sets played fewer times
  are match-pointed with Neuberg.
* ``rounds``: play only the first ``rounds`` rounds (every set still in play).
* ``arrow_switch=k``: in the last k rounds NS and EW change seats at every
  table, so the session is one-winner (every pair ranked against everyone);
  every pair's direction is then MIXED and its NS/EW boards are recorded.

Two-winner otherwise: each pair is ranked against the pairs of its own
direction.  Name: ``mitchell:{T}t`` (``6.5t`` with a sit-out), then
``-skip`` / ``-relay`` for even T, ``-{R}r`` when shortened, ``-arrow{k}``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from simcore.results import KIND_MITCHELL
from simcore.movements import Schedule
from simcore.movements import check_boards
from simcore.movements import check_int
from simcore.movements import make_schedule

MIN_TABLES, MAX_TABLES = 3, 30
EVEN_METHODS = ("skip", "relay")


def max_rounds(tables: int, even: str = "skip") -> int:
    """Most rounds a Mitchell of ``tables`` tables can play without a repeat."""
    return tables - 1 if tables % 2 == 0 and even == "skip" else tables


def relay_position(tables: int) -> np.ndarray:
    """Position of each table in the relay board cycle (length T, bye at T/2)."""
    t = np.arange(tables)
    pos = np.where(t >= tables // 2, t + 1, t)
    pos[0] = pos[-1] = 0  # tables 1 and T share the relay set
    return pos


def mitchell(n_pairs: int, boards: int, *, even: str = "skip", rounds: int | None = None,
             arrow_switch: int = 0, sitout: str = "ew") -> Schedule:
    """A Mitchell for ``n_pairs`` pairs (5..60) and ``boards`` boards a round."""
    n_pairs = check_int("a Mitchell's number of pairs", n_pairs, 2 * MIN_TABLES - 1, 2 * MAX_TABLES,
                        f" ({MIN_TABLES} to {MAX_TABLES} tables; an odd count gets a sit-out)")
    boards = check_boards(boards)
    tables = (n_pairs + 1) // 2
    if even not in EVEN_METHODS:
        raise ValueError(f"even must be one of {EVEN_METHODS}, got {even!r}")
    if sitout not in ("ew", "ns"):
        raise ValueError(f"sitout must be 'ew' or 'ns', got {sitout!r}")
    top = max_rounds(tables, even)
    rounds = top if rounds is None else check_int(
        f"rounds of a {tables}-table Mitchell{' (' + even + ')' if tables % 2 == 0 else ''}", rounds, 1, top)
    arrow_switch = check_int("arrow_switch (switched last rounds)", arrow_switch, 0, rounds)
    if tables % 2 == 1:
        even = "odd"
    return _mitchell(n_pairs, boards, even, rounds, arrow_switch, sitout if n_pairs % 2 else "none")


@lru_cache(maxsize=None)
def _mitchell(n_pairs, boards, even, rounds, arrow_switch, sitout) -> Schedule:
    T = (n_pairs + 1) // 2
    r = np.repeat(np.arange(rounds), T)
    t = np.tile(np.arange(T), rounds)
    skip = (r >= T // 2) if even == "skip" else np.zeros_like(r, bool)
    ew_start = (t - r - skip) % T
    board_set = ((relay_position(T)[t] if even == "relay" else t) + r) % T
    ns_id, ew_id = t, T + ew_start
    keep = np.ones(len(r), bool)
    if sitout == "ew":  # EW pair starting at table T is absent
        keep = ew_start != T - 1
    elif sitout == "ns":  # NS pair of table T is absent; EW ids shift down
        keep = t != T - 1
        ew_id = ew_id - 1
    ns_id, ew_id = np.where(r >= rounds - arrow_switch, ew_id, ns_id), np.where(r >= rounds - arrow_switch, ns_id, ew_id)
    name = f"mitchell:{T - 0.5 if n_pairs % 2 else T:g}t"
    if T % 2 == 0:
        name += f"-{even}"
    if rounds < max_rounds(T, even):
        name += f"-{rounds}r"
    if arrow_switch:
        name += f"-arrow{arrow_switch}"
    return make_schedule(name, KIND_MITCHELL, 1 if arrow_switch else 2, n_pairs, boards,
                         r[keep] + 1, t[keep] + 1, ns_id[keep], ew_id[keep], board_set[keep])
