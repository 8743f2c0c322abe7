"""Playing planned sessions: seats + the bridge model → travellers and card play.

``play_sessions`` is the inner loop of the engine's pass A.  For every
session of a chunk it takes the session's entries (pairs from the world's
plan), its seating (one row per round and table: the NS entry, the EW entry
and a run of boards, from ``simcore.movements``) and draws:

* each pair's strength for the session: the mean true strength of its two
  players + its partnership bonus + form ~ N(0, form_sd) (grade points);
* the session's noise scale from the mean true strength of its players
  (``bridge_model.field_sigma``: strong fields are flatter, FR18);
* one deal per board number, shared by every table that plays the board;
* every table's NS score on every board (``bridge_model.draw_ns_score``);
* optionally each player's IMPs lost against double dummy over the session
  (``bridge_model.draw_imps_lost``), added to per-player card-play totals.

Every session opens its own random stream keyed by (replicate key, session
index), so a session's results do not depend on which thread plays it or
how the calendar is chunked.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .bridge_model import _vulnerability, deal_board, draw_imps_lost, draw_ns_score, field_sigma
from .rng import normal, seed_stream

_PLAY_SALT = 7  # stream label of session play (the world uses 0..3 per week)


@kernel
def play_sessions(key, session_index, session_week, session_boards, entry_start, entry_a, entry_b,
                  entry_bonus, row_start, row_round, row_table, row_ns, row_ew, row_first_board,
                  row_n_boards, trav_start, strength, form_sd, alpha, sigma_slope, sigma_floor,
                  pool_scores, pool_thresholds, n_deals, card_play, il_base, il_slope, il_floor,
                  dummy_share, out_round, out_board, out_table, out_ns, out_ew, out_score,
                  card_boards, card_imps):
    """Play every session of a chunk.

    Sessions (S): session_index int64 (stream label), session_week int32 (row
    of ``strength``), session_boards int32 (boards are numbered 1..B).
    Entries, per session [entry_start[s], entry_start[s+1]): entry_a/entry_b
    players (b = -1 only before the online room's seating; never here),
    entry_bonus grade points.  Rows, per session [row_start[s], row_start[s+1]):
    round, table, row_ns / row_ew (entry offsets within the session),
    row_first_board, row_n_boards.  Travellers of session s are written from
    trav_start[s] in row order, boards in order within a row (the caller
    sorts them into (round, board, table) order).
    strength: float64 (W, P) true strengths at the start of each week.
    card_boards / card_imps: per-player totals, added to when ``card_play``.
    """
    st = np.empty(1, np.uint64)
    max_entries = 1
    max_boards = 1
    for s in range(session_index.shape[0]):
        max_entries = max(max_entries, entry_start[s + 1] - entry_start[s])
        max_boards = max(max_boards, session_boards[s])
    pair_strength = np.empty(max_entries)
    pair_boards = np.empty(max_entries, np.int64)
    codes = np.empty(max_boards + 1, np.int64)
    for s in range(session_index.shape[0]):
        seed_stream(st, key, _PLAY_SALT, session_index[s])
        t_row = strength[session_week[s]]
        e0, e1 = entry_start[s], entry_start[s + 1]
        field = 0.0
        for e in range(e0, e1):
            a, b = entry_a[e], entry_b[e]
            field += t_row[a] + t_row[b]
            pair_strength[e - e0] = 0.5 * (t_row[a] + t_row[b]) + entry_bonus[e] + form_sd * normal(st)
            pair_boards[e - e0] = 0
        sigma = field_sigma(field / (2.0 * (e1 - e0)), sigma_slope, sigma_floor)
        for board in range(1, session_boards[s] + 1):
            codes[board] = deal_board(n_deals, _vulnerability(board), st)
        t = trav_start[s]
        for r in range(row_start[s], row_start[s + 1]):
            ns, ew = row_ns[r], row_ew[r]
            s_ns, s_ew = pair_strength[ns], pair_strength[ew]
            for k in range(row_n_boards[r]):
                board = row_first_board[r] + k
                out_round[t] = row_round[r]
                out_board[t] = board
                out_table[t] = row_table[r]
                out_ns[t, 0], out_ns[t, 1] = entry_a[e0 + ns], entry_b[e0 + ns]
                out_ew[t, 0], out_ew[t, 1] = entry_a[e0 + ew], entry_b[e0 + ew]
                out_score[t] = draw_ns_score(pool_scores, pool_thresholds, codes[board], s_ns, s_ew, alpha,
                                             sigma, st)
                t += 1
            pair_boards[ns] += row_n_boards[r]
            pair_boards[ew] += row_n_boards[r]
        if card_play:
            for e in range(e0, e1):
                if pair_boards[e - e0] == 0:
                    continue
                for k in range(2):
                    p = entry_a[e] if k == 0 else entry_b[e]
                    imps, played = draw_imps_lost(t_row[p], pair_boards[e - e0], il_base, il_slope, il_floor,
                                                  dummy_share, st)
                    card_boards[p] += played
                    card_imps[p] += imps
