"""A simple full Mitchell on the bridge model, for calibration and tests.

It matchpoints its own boards (``simcore.scoring.board_matchpoints``), so it
lives beside the bridge model rather than in it: the model itself stays
before scoring in the data flow.  Simulations use the movement registry,
never this.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore import rng
from simcore._jit import kernel
from simcore.bridge.model import (BridgeModelParams, DealPool, _vulnerability, deal_board, draw_ns_score,
                                  tables_setup)
from simcore.rng import seed_stream
from simcore.scoring import board_matchpoints


@kernel
def mitchell_round(tables, board_set, table):
    """Round in which ``table`` plays ``board_set`` in the internal full Mitchell.

    T tables, T rounds, one board set per table.  NS pair t sits at table t;
    EW pair e sits at table (e + r) mod T in round r (EW move up a table).
    Odd T: the sets move down a table (table t plays set (t + r) mod T).
    Even T: the sets are duplicated and every table plays set r in round r
    (a plain Mitchell would bring EW back to the sets they have played).
    """
    if tables % 2 == 1:
        return (board_set - table) % tables
    return board_set


@kernel
def _play_mitchell(scores, thresholds, codes, boards_per_round, ns_strength, ew_strength, alpha, sigma,
                   key, session, out_scores, out_ew, out_pct):
    """Play one session of the internal full Mitchell.

    codes: int32[T * boards_per_round] board codes; ns_strength, ew_strength:
    float64[T] (grade points).  Writes out_scores[b, t] (NS score, bridge
    points, at table t on board b), out_ew[b, t] (EW pair id there) and
    out_pct[0:T] NS pairs' and out_pct[T:2T] EW pairs' session MP %.
    """
    T = ns_strength.shape[0]
    nb = codes.shape[0]
    st = np.empty(1, np.uint64)
    mp = np.empty(T, np.float64)
    for i in range(2 * T):
        out_pct[i] = 0.0
    for b in range(nb):
        seed_stream(st, key, session, b)
        s = b // boards_per_round
        for t in range(T):
            r = mitchell_round(T, s, t)
            e = (t - r) % T
            out_ew[b, t] = e
            out_scores[b, t] = draw_ns_score(scores, thresholds, codes[b], ns_strength[t], ew_strength[e],
                                             alpha, sigma, st)
        board_matchpoints(out_scores[b], T, False, mp)
        for t in range(T):
            out_pct[t] += mp[t]
            out_pct[T + out_ew[b, t]] += 100.0 - mp[t]
    for i in range(2 * T):
        out_pct[i] /= nb



@dataclass(frozen=True)
class MitchellSession:
    """One session of the internal full Mitchell (see ``mitchell_round``).

    ns_scores: int32[boards, T] NS score (bridge points) at table t on board
    b; ew_pair: int32[boards, T] the EW pair at that table; codes: the board
    codes; ns_pct, ew_pct: float64[T] session MP % of NS pair t / EW pair e.
    Board b is board number b + 1 and belongs to round-set b // boards_per_round.
    """

    ns_scores: np.ndarray
    ew_pair: np.ndarray
    codes: np.ndarray
    ns_pct: np.ndarray
    ew_pct: np.ndarray


def simulate_mitchell_session(params: BridgeModelParams, tables: int = 8, boards_per_round: int = 3,
                              seed: int = 0, session: int = 0, ns_strength=50.0, ew_strength=50.0,
                              field_strength: float | None = None,
                              pool: DealPool | None = None) -> MitchellSession:
    """Simulate session ``session`` of a full Mitchell: ``tables`` rounds of ``boards_per_round`` boards.

    Every pair plays every board once and every board is played ``tables``
    times.  Strengths in grade points (scalars broadcast).
    """
    for name, value, lo in (("tables", tables, 2), ("boards_per_round", boards_per_round, 1),
                            ("session", session, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
            raise ValueError(f"simulate_mitchell_session: {name}={value!r} must be an integer >= {lo}")
    ns, ew, pool, draw_key, sigma = tables_setup(params, ns_strength, ew_strength, tables, seed, field_strength, pool)
    nb = tables * boards_per_round
    codes = np.empty(nb, np.int32)
    _deal_session(pool.n_deals, rng.child_key(draw_key, session), codes)
    scores = np.empty((nb, tables), np.int32)
    ew_pair = np.empty((nb, tables), np.int32)
    pct = np.empty(2 * tables, np.float64)
    _play_mitchell(pool.scores, pool.thresholds, codes, boards_per_round, ns, ew, params.alpha, sigma,
                   draw_key, session, scores, ew_pair, pct)
    return MitchellSession(scores, ew_pair, codes, pct[:tables].copy(), pct[tables:].copy())


@kernel
def _deal_session(n_deals, key, codes):
    st = np.empty(1, np.uint64)
    seed_stream(st, key, 0, 0)
    for b in range(codes.shape[0]):
        codes[b] = deal_board(n_deals, _vulnerability(b + 1), st)
