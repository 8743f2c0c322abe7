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

from simcore._jit import kernel
from simcore.bridge.model import _vulnerability, deal_board, draw_imps_lost, draw_ns_score, field_sigma
from simcore.scoring.imp_scale import imps, victory_points
from simcore.movements.swiss import swiss_first_round, swiss_pair_round
from simcore.rng import normal, seed_stream
from simcore.scoring import board_butler, board_matchpoints

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


@kernel
def play_swiss_sessions(key, session_index, session_week, is_teams, imps_scoring, session_rounds, session_bpr,
                        entry_start, entry_a, entry_b, entry_bonus, entry_team, trav_start, strength, form_sd,
                        alpha, sigma_slope, sigma_floor, pool_scores, pool_thresholds, n_deals, card_play,
                        il_base, il_slope, il_floor, dummy_share, butler_trim, out_round, out_board, out_table,
                        out_ns, out_ew, out_score, card_boards, card_imps):
    """Play Swiss pairs and Swiss teams sessions, pairing each round from the standings.

    Entrants are the session's pairs (Swiss pairs) or its teams (Swiss teams:
    ``entry_team`` groups two pair entries a team).  Round r plays boards
    r·bpr+1 .. (r+1)·bpr at every table.  Round 1 is a random draw, later
    rounds ``swiss_pair_round`` on the standings (straight down, repeats
    allowed, when no repeat-free pairing exists).  Standings: match MP % for
    MP Swiss pairs; VPs (``imps.victory_points``) from the IMP margin for
    IMP Swiss pairs (Butler IMPs against the round's datum) and Swiss teams
    (team IMPs between the match's two tables).  Travellers of session s are
    written from trav_start[s]: rounds × tables × boards.
    """
    st = np.empty(1, np.uint64)
    for s in range(session_index.shape[0]):
        seed_stream(st, key, _PLAY_SALT, session_index[s])
        t_row = strength[session_week[s]]
        e0, e1 = entry_start[s], entry_start[s + 1]
        n_e = e1 - e0
        pair_strength = np.empty(n_e)
        pair_boards = np.zeros(n_e, np.int64)
        field = 0.0
        for e in range(e0, e1):
            field += t_row[entry_a[e]] + t_row[entry_b[e]]
            pair_strength[e - e0] = (0.5 * (t_row[entry_a[e]] + t_row[entry_b[e]]) + entry_bonus[e]
                                     + form_sd * normal(st))
        sigma = field_sigma(field / (2.0 * n_e), sigma_slope, sigma_floor)
        teams = is_teams[s]
        if teams:
            n = 0
            for e in range(e0, e1):
                n = max(n, entry_team[e] + 1)
            members = np.full((n, 2), -1, np.int64)
            for e in range(e0, e1):
                k = entry_team[e]
                members[k, 0 if members[k, 0] < 0 else 1] = e - e0
        else:
            n = n_e
            members = np.empty((n, 2), np.int64)
            for k in range(n):
                members[k, 0] = k
                members[k, 1] = k
        played = np.zeros((n, n), np.bool_)
        had_bye = np.zeros(n, np.bool_)
        points = np.zeros(n)
        order = np.empty(n, np.int64)
        half = n // 2
        a = np.empty(half, np.int64)
        b = np.empty(half, np.int64)
        bpr = session_bpr[s]
        per_table = 2 if teams else 1
        tables = half * per_table
        scores = np.empty(tables, np.int32)
        value = np.empty(tables)
        t = trav_start[s]
        for r in range(session_rounds[s]):
            if r == 0:
                swiss_first_round(n, np.empty(0, np.int64), st, order)
                for m in range(half):
                    a[m], b[m] = order[2 * m], order[2 * m + 1]
                bye = order[n - 1] if n % 2 == 1 else -1
            else:
                neg = -points
                order[:] = np.argsort(neg, kind="mergesort")
                bye = swiss_pair_round(order, played, had_bye, a, b)
                if bye == -2:  # no repeat-free pairing: straight down the standings
                    bye = order[n - 1] if n % 2 == 1 else -1
                    k = 0
                    for i in range(n):
                        if order[i] != bye:
                            if k % 2 == 0:
                                a[k // 2] = order[i]
                            else:
                                b[k // 2] = order[i]
                            k += 1
            if bye >= 0:
                had_bye[bye] = True
            margin = np.zeros(half)
            for q in range(bpr):
                board = r * bpr + q + 1
                code = deal_board(n_deals, _vulnerability(board), st)
                for m in range(half):
                    x, y = a[m], b[m]
                    for h in range(per_table):
                        ns = members[x, 0] if h == 0 else members[y, 0]
                        ew = members[y, 1] if h == 0 else members[x, 1]
                        if not teams:
                            ns, ew = members[x, 0], members[y, 0]
                        score = draw_ns_score(pool_scores, pool_thresholds, code, pair_strength[ns],
                                              pair_strength[ew], alpha, sigma, st)
                        out_round[t] = r + 1
                        out_board[t] = board
                        out_table[t] = m * per_table + h + 1
                        out_ns[t, 0], out_ns[t, 1] = entry_a[e0 + ns], entry_b[e0 + ns]
                        out_ew[t, 0], out_ew[t, 1] = entry_a[e0 + ew], entry_b[e0 + ew]
                        out_score[t] = score
                        scores[m * per_table + h] = score
                        pair_boards[ns] += 1
                        pair_boards[ew] += 1
                        t += 1
                if teams:
                    for m in range(half):
                        margin[m] += imps(scores[2 * m] - scores[2 * m + 1])
                elif imps_scoring[s]:
                    board_butler(scores[:tables], butler_trim, value[:tables])
                    for m in range(half):
                        margin[m] += value[m]
                else:
                    board_matchpoints(scores[:tables], tables, False, value[:tables])
                    for m in range(half):
                        margin[m] += value[m] / bpr
            for m in range(half):
                x, y = a[m], b[m]
                played[x, y] = True
                played[y, x] = True
                if teams or imps_scoring[s]:
                    vp = victory_points(margin[m], bpr)
                    points[x] += vp
                    points[y] += 20.0 - vp
                else:
                    points[x] += margin[m]
                    points[y] += 100.0 - margin[m]
        if card_play:
            for e in range(e0, e1):
                if pair_boards[e - e0] == 0:
                    continue
                for k in range(2):
                    p = entry_a[e] if k == 0 else entry_b[e]
                    imps_, played_ = draw_imps_lost(t_row[p], pair_boards[e - e0], il_base, il_slope, il_floor,
                                                    dummy_share, st)
                    card_boards[p] += played_
                    card_imps[p] += imps_
