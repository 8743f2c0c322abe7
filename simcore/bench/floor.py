"""The fused floor: the least work a simulated player-board can cost.

One numba loop plays whole 13-table, 26-board Mitchell sessions (13 rounds
of 2 boards; NS stationary, EW move up, boards down) from the same bridge
score model as the pipeline (the deal pool, ``draw_ns_score``),
match-points every board as soon as its 13 tables have played it, and
updates every player's PPI board by board (SPEC §1.1's formula and m
schedule from k; w is taken as k, since there is no calendar here; a
board's 13 tables update together, boards in board order).  No
world, no movements, no bookkeeping, no other scheme: what is left is the
random draws, the match-pointing and one scheme update, which is why
``simcore bench`` reports the whole pipeline as a ratio to this figure.

Work per session: 26 boards × 13 tables × 4 players = 1352 player-boards.
"""

from __future__ import annotations

import time

import numpy as np

from simcore._jit import kernel
from simcore.bridge.model import (BridgeModelParams, board_vulnerability, build_pool, deal_board, draw_ns_score,
                                  field_sigma)
from simcore.rng import child_key, seed_stream
from simcore.schemes.ppi import ppi_update
from simcore.scoring import board_matchpoints

TABLES = 13
BOARDS_PER_ROUND = 2
BOARDS = TABLES * BOARDS_PER_ROUND
PLAYER_BOARDS_PER_SESSION = BOARDS * TABLES * 4


@kernel(helper=True)
def floor_m(a, k):
    """PPI weighting factor m (boards) from k qualifying boards, w taken as k, halved below 46 MP %."""
    if k < 30:
        m = 30.0
    elif k <= 300:
        m = np.float64(k)
    else:
        m = 600.0  # k > 300, and w (= k) > 300
    return m / 2.0 if a < 46.0 else m


@kernel
def play_floor_sessions(scores, thresholds, n_deals, vul, strength, alpha, sigma, key, n_sessions, ppi, k):
    """Play ``n_sessions`` fused Mitchell sessions; updates ``ppi`` (MP %) and ``k`` (boards) in place.

    strength: float64[P] true strengths (grade points) of a club of P >= 52
    players; session s seats players (52 s + i) mod P, pairs (2i, 2i + 1) of
    those, NS pairs 0..12 and EW pairs 13..25.  vul: int64[BOARDS]
    vulnerability of each board.  Returns the sum of every NS score drawn
    (bridge points), so the work cannot be optimised away.
    """
    P = strength.shape[0]
    st = np.empty(1, np.uint64)
    codes = np.empty(BOARDS, np.int32)
    table_scores = np.empty(TABLES, np.int32)
    mp = np.empty(TABLES, np.float64)
    seat = np.empty(4 * TABLES, np.int64)
    ns_strength = np.empty(TABLES, np.float64)
    ew_strength = np.empty(TABLES, np.float64)
    check = np.int64(0)
    for s in range(n_sessions):
        seed_stream(st, key, s, 0)
        for i in range(4 * TABLES):
            seat[i] = (4 * TABLES * s + i) % P
        for t in range(TABLES):
            ns_strength[t] = 0.5 * (strength[seat[2 * t]] + strength[seat[2 * t + 1]])
            ew_strength[t] = 0.5 * (strength[seat[2 * TABLES + 2 * t]] + strength[seat[2 * TABLES + 2 * t + 1]])
        for b in range(BOARDS):
            codes[b] = deal_board(n_deals, vul[b], st)
        for b in range(BOARDS):
            board_set = b // BOARDS_PER_ROUND
            for t in range(TABLES):
                e = (t - (board_set - t)) % TABLES  # EW pair at table t when it plays this set
                table_scores[t] = draw_ns_score(scores, thresholds, codes[b], ns_strength[t], ew_strength[e],
                                                alpha, sigma, st)
                check += table_scores[t]
            board_matchpoints(table_scores, TABLES, False, mp)
            for t in range(TABLES):
                e = (t - (board_set - t)) % TABLES
                n1, n2 = seat[2 * t], seat[2 * t + 1]
                e1, e2 = seat[2 * TABLES + 2 * e], seat[2 * TABLES + 2 * e + 1]
                a, bb, c, dd = ppi[n1], ppi[n2], ppi[e1], ppi[e2]
                p_ns, p_ew = mp[t], 100.0 - mp[t]
                ppi[n1] = ppi_update(a, bb, c, dd, p_ns, floor_m(a, k[n1]))
                ppi[n2] = ppi_update(bb, a, c, dd, p_ns, floor_m(bb, k[n2]))
                ppi[e1] = ppi_update(c, dd, a, bb, p_ew, floor_m(c, k[e1]))
                ppi[e2] = ppi_update(dd, c, a, bb, p_ew, floor_m(dd, k[e2]))
                k[n1] += 1
                k[n2] += 1
                k[e1] += 1
                k[e2] += 1
    return check


def floor_inputs(players: int = 400, seed: int = 2026):
    """(pool arrays, vulnerabilities, strengths, alpha, sigma, key) for the floor, from the default model."""
    if players < 4 * TABLES:
        raise ValueError(f"players={players}: the floor needs at least {4 * TABLES} players")
    params = BridgeModelParams()
    key = child_key(np.uint64(seed), 0xF1002)
    pool = build_pool(params, child_key(key, 1))
    rng = np.random.default_rng(seed)
    strength = rng.normal(50.0, 5.0, players)
    vul = np.array([board_vulnerability(b + 1) for b in range(BOARDS)], np.int64)
    sigma = field_sigma(50.0, params.sigma_slope, params.sigma_floor)
    return pool, vul, strength, params.alpha, sigma, child_key(key, 2)


def time_floor(sessions: int = 4000, repeats: int = 5, players: int = 400, seed: int = 2026) -> dict:
    """Median ns per player-board of the fused floor on one thread (compiled before timing)."""
    pool, vul, strength, alpha, sigma, key = floor_inputs(players, seed)
    args = (pool.scores, pool.thresholds, pool.n_deals, vul, strength, alpha, sigma, key)
    play_floor_sessions(*args, 2, np.full(players, 50.0), np.zeros(players, np.int64))  # compile
    times = []
    for _ in range(repeats):
        ppi, k = np.full(players, 50.0), np.zeros(players, np.int64)
        t0 = time.perf_counter()
        play_floor_sessions(*args, sessions, ppi, k)
        times.append(time.perf_counter() - t0)
    wall = float(np.median(times))
    pb = sessions * PLAYER_BOARDS_PER_SESSION
    return {"floor_ns_per_player_board": wall / pb * 1e9, "floor_player_boards": pb, "floor_repeats": repeats}
