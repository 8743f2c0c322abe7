"""Plain-Python twin of simcore.bench.floor.play_floor_sessions (same draws, schedule built explicitly)."""

import numpy as np

from simcore.bridge.model import deal_board, draw_ns_score
from simcore.rng import seed_stream
from simcore.schemes.ppi import ppi_update
from simcore.scoring import board_matchpoints

T, BPR = 13, 2


def m_of(a, k):
    m = 30.0 if k < 30 else (float(k) if k <= 300 else 600.0)
    return m / 2 if a < 46.0 else m


def play_floor_sessions(scores, thresholds, n_deals, vul, strength, alpha, sigma, key, n_sessions, ppi, k):
    P = len(strength)
    st = np.empty(1, np.uint64)
    check = 0
    for s in range(n_sessions):
        seed_stream(st, key, s, 0)
        players = [(4 * T * s + i) % P for i in range(4 * T)]
        ns_pairs = [(players[2 * t], players[2 * t + 1]) for t in range(T)]
        ew_pairs = [(players[2 * T + 2 * e], players[2 * T + 2 * e + 1]) for e in range(T)]
        pair_strength = lambda pr: 0.5 * (strength[pr[0]] + strength[pr[1]])  # noqa: E731
        # Mitchell: in round r table t plays set (t + r) mod T against EW pair (t - r) mod T
        opponent = {}
        for r in range(T):
            for t in range(T):
                opponent[((t + r) % T, t)] = (t - r) % T
        codes = [int(deal_board(n_deals, int(vul[b]), st)) for b in range(T * BPR)]
        for b in range(T * BPR):
            board_set = b // BPR
            res = np.empty(T, np.int32)
            for t in range(T):
                e = opponent[(board_set, t)]
                res[t] = draw_ns_score(scores, thresholds, np.int32(codes[b]), pair_strength(ns_pairs[t]),
                                       pair_strength(ew_pairs[e]), alpha, sigma, st)
                check += int(res[t])
            mp = np.empty(T)
            board_matchpoints(res, T, False, mp)
            for t in range(T):
                (n1, n2), (e1, e2) = ns_pairs[t], ew_pairs[opponent[(board_set, t)]]
                a, bb, c, d = ppi[n1], ppi[n2], ppi[e1], ppi[e2]
                ppi[n1] = ppi_update(a, bb, c, d, mp[t], m_of(a, k[n1]))
                ppi[n2] = ppi_update(bb, a, c, d, mp[t], m_of(bb, k[n2]))
                ppi[e1] = ppi_update(c, d, a, bb, 100 - mp[t], m_of(c, k[e1]))
                ppi[e2] = ppi_update(d, c, a, bb, 100 - mp[t], m_of(d, k[e2]))
                for q in (n1, n2, e1, e2):
                    k[q] += 1
    return check
