"""Scoring: from bridge scores on travellers to match points, IMPs and ranks.

Board-level kernels (this section) score one board from the NS scores of the
tables that played it; every session-level method is built from them so
match points, Butler IMPs, cross-IMPs, aggregate and team IMPs all come from
the very same scores.

* ``board_matchpoints`` — 2 match points per pair beaten, 1 per tie, as a %
  of the top.  When a board was played ``n`` times but the session's boards
  were meant to be played ``N`` > n times, the Neuberg formula
  ``(mp + 1)·N/n − 1`` rescales the match points to a top of 2(N−1).
* ``board_cross_imps`` — IMPs against every other table, averaged over the
  n−1 comparisons (IMPs per comparison, so one unit is one IMP).
* ``board_butler`` — IMPs against a datum: the mean NS score, after dropping
  the ``trim`` highest and ``trim`` lowest scores when enough tables remain.
* ``board_aggregate`` — points above the board's mean NS score.

All take the board's NS scores (bridge points) and write the NS pair's
result per table into ``out``; the EW pair's result is the complement
(100 − % for match points, the negation for the others).
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel
from simcore.scoring.imp_scale import imps


@kernel
def board_matchpoints(ns_scores, expected_plays, neuberg, out):
    """NS match-point % per table on one board.

    ns_scores: scores (bridge points) of the n tables that played the board.
    expected_plays: N, the number of times the board should have been played
        (the most-played board of the session); ignored unless ``neuberg``.
    neuberg: apply the Neuberg correction when n < N.
    out: float64[n], written with NS MP % (0..100).
    """
    n = ns_scores.shape[0]
    if n == 1:
        out[0] = 50.0
        return
    big_n = expected_plays if (neuberg and expected_plays > n) else n
    top = 2.0 * (big_n - 1)
    for i in range(n):
        mp = 0
        si = ns_scores[i]
        for j in range(n):
            if j != i:
                sj = ns_scores[j]
                if si > sj:
                    mp += 2
                elif si == sj:
                    mp += 1
        if big_n != n:
            out[i] = 100.0 * ((mp + 1.0) * big_n / n - 1.0) / top
        else:
            out[i] = 100.0 * mp / top


@kernel
def board_cross_imps(ns_scores, out):
    """NS cross-IMPs per table: IMPs against each other table, averaged."""
    n = ns_scores.shape[0]
    if n == 1:
        out[0] = 0.0
        return
    for i in range(n):
        total = 0
        for j in range(n):
            if j != i:
                total += imps(ns_scores[i] - ns_scores[j])
        out[i] = total / (n - 1.0)


@kernel
def butler_datum(ns_scores, trim):
    """Mean NS score after dropping the ``trim`` highest and lowest.

    Trimming applies only while at least three scores would remain; with
    fewer tables the datum is the plain mean.  ``trim=0`` is the plain mean.
    """
    n = ns_scores.shape[0]
    t = trim
    while t > 0 and n - 2 * t < 3:
        t -= 1
    if t == 0:
        return ns_scores.sum() / n
    srt = np.sort(ns_scores)
    return srt[t:n - t].sum() / (n - 2.0 * t)


@kernel
def board_butler(ns_scores, trim, out):
    """NS Butler IMPs per table against the (trimmed) mean datum."""
    datum = butler_datum(ns_scores, trim)
    for i in range(ns_scores.shape[0]):
        out[i] = imps(ns_scores[i] - datum)


@kernel
def board_aggregate(ns_scores, out):
    """NS points above the board's mean NS score."""
    mean = ns_scores.sum() / ns_scores.shape[0]
    for i in range(ns_scores.shape[0]):
        out[i] = ns_scores[i] - mean


# ---------------------------------------------------------------------------
# Session-level scoring: Results -> ScoredResults
# ---------------------------------------------------------------------------
#
# Three passes over the sessions, each a kernel looping over sessions with
# explicit offsets (so any caller can score a chunk of sessions at once):
#
# 1. ``_session_entries``: the distinct pairs of each session in order of
#    first appearance (NS before EW within a traveller) -> pair entries.
# 2. ``_score_session_pairs``: every board's tables scored together; each
#    pair's session score, boards, direction, group, rank; the NS match-point
#    % of every traveller.
# 3. ``_session_matches``: match rows for Swiss and team kinds.
#
# Partnership ids come from a ``PartnershipTable`` that persists across
# calls, so the engine can score one chunk of the calendar at a time.

from simcore.movements.registry import kind_flags  # noqa: E402
from simcore.results import (EW, KIND_SWISS_PAIRS, MATCH_KINDS, MIXED, NS, SCORING_AGGREGATE,  # noqa: E402
                      SCORING_BUTLER, SCORING_CROSS_IMPS, SCORING_MP, SCORING_TEAMS_IMPS, TEAM_KINDS,
                      ScoredResults, days_to_months)

# lookup tables by kind code, from the movement registry (numba reads them as constants)
_KIND_IS_MATCH = np.array(kind_flags(lambda m: m.is_match), np.bool_)
_KIND_IS_TEAM = np.array(kind_flags(lambda m: m.is_team), np.bool_)

ERR_NONE, ERR_DIRECTION, ERR_TEAM = 0, 1, 2


@kernel
def _pair_key(a, b):
    lo, hi = (a, b) if a < b else (b, a)
    return (np.int64(lo) << 32) | np.int64(hi)


@kernel
def _session_entries(trav_start, trav_ns, trav_ew, row_ns_local, row_ew_local, n_entries):
    """Pass 1: local pair-entry index of each traveller's NS and EW pair.

    Pairs are numbered in order of first appearance (NS before EW within a
    traveller) with an open-addressing hash table whose slots are stamped
    with the session index, so it is never cleared between sessions.
    """
    max_rows = 0
    for s in range(trav_start.shape[0] - 1):
        max_rows = max(max_rows, trav_start[s + 1] - trav_start[s])
    size = 16
    while size < 4 * max_rows:
        size *= 2
    mask = size - 1
    slot_key = np.empty(size, np.int64)
    slot_id = np.empty(size, np.int64)
    slot_stamp = np.full(size, -1, np.int64)
    for s in range(trav_start.shape[0] - 1):
        count = 0
        for t in range(trav_start[s], trav_start[s + 1]):
            for side in range(2):
                if side == 0:
                    key = _pair_key(trav_ns[t, 0], trav_ns[t, 1])
                else:
                    key = _pair_key(trav_ew[t, 0], trav_ew[t, 1])
                h = ((key * np.int64(-7046029254386353131)) >> np.int64(20)) & mask
                while slot_stamp[h] == s and slot_key[h] != key:
                    h = (h + 1) & mask
                if slot_stamp[h] != s:
                    slot_stamp[h] = s
                    slot_key[h] = key
                    slot_id[h] = count
                    count += 1
                if side == 0:
                    row_ns_local[t] = slot_id[h]
                else:
                    row_ew_local[t] = slot_id[h]
        n_entries[s] = count


@kernel
def _group_by_board(trav_board, t0, t1, counts, out):
    """Rows t0..t1 of a session grouped by board number into ``out`` (any order within a board).

    Counting sort over the session's board range when it is compact (the
    usual 1..B); a sort when board numbers are sparse.
    """
    lo = trav_board[t0]
    hi = lo
    for t in range(t0, t1):
        lo = min(lo, trav_board[t])
        hi = max(hi, trav_board[t])
    span = hi - lo + 1
    m = t1 - t0
    if span > counts.shape[0] - 1 or span > 4 * m + 64:
        order = np.argsort(trav_board[t0:t1])
        for j in range(m):
            out[j] = t0 + order[j]
        return
    for k in range(span + 1):
        counts[k] = 0
    for t in range(t0, t1):
        counts[trav_board[t] - lo + 1] += 1
    for k in range(span):
        counts[k + 1] += counts[k]
    for t in range(t0, t1):
        b = trav_board[t] - lo
        out[counts[b]] = t
        counts[b] += 1


@kernel
def _score_session_pairs(trav_start, pair_start, trav_round, trav_board, trav_ns, trav_ew, trav_ns_score,
                         row_ns_local, row_ew_local, scoring, winners, kind, neuberg, butler_trim,
                         pair_players, pair_direction, pair_group, pair_boards, pair_score, pair_beaten,
                         pair_n_ranked, pair_rounds, trav_ns_mp, trav_ns_value, trav_ns_entry, trav_ew_entry,
                         error):
    """Pass 2: score every board and every pair of every session.

    ``trav_ns_value`` receives the NS result of each traveller in the
    session's own units (MP %, Butler IMPs, cross-IMPs, aggregate points
    above the board mean); ``pair_rounds`` the number of distinct rounds each
    pair played (the number of its match rows in match / team kinds).
    ``error[s]`` is set to ERR_DIRECTION when a pair changes direction in a
    two-winner session.
    """
    max_rows = 1
    max_entries = 1
    for s in range(trav_start.shape[0] - 1):
        max_rows = max(max_rows, trav_start[s + 1] - trav_start[s])
        max_entries = max(max_entries, pair_start[s + 1] - pair_start[s])
    by_board = np.empty(max_rows, np.int64)
    counts = np.empty(4 * max_rows + 66, np.int64)
    scores = np.empty(max_rows, np.int32)
    mp = np.empty(max_rows)
    val = np.empty(max_rows)
    seen = np.empty(max_entries, np.int8)  # bit 1: sat NS, bit 2: sat EW
    last_round = np.empty(max_entries, np.int64)
    for s in range(trav_start.shape[0] - 1):
        t0, t1 = trav_start[s], trav_start[s + 1]
        e0, e1 = pair_start[s], pair_start[s + 1]
        m = t1 - t0
        n_e = e1 - e0
        seen[:n_e] = 0
        for e in range(e0, e1):
            pair_boards[e] = 0
            pair_score[e] = 0.0
        for i in range(m):
            t = t0 + i
            en, ew = e0 + row_ns_local[t], e0 + row_ew_local[t]
            trav_ns_entry[t] = en
            trav_ew_entry[t] = ew
            a, b = trav_ns[t, 0], trav_ns[t, 1]
            pair_players[en, 0], pair_players[en, 1] = (a, b) if a < b else (b, a)
            a, b = trav_ew[t, 0], trav_ew[t, 1]
            pair_players[ew, 0], pair_players[ew, 1] = (a, b) if a < b else (b, a)
            seen[en - e0] |= 1
            seen[ew - e0] |= 2
        # boards: the session's rows grouped by board number
        _group_by_board(trav_board, t0, t1, counts, by_board)
        plays_max = 0
        run = 0
        for j in range(m):
            run = run + 1 if (j > 0 and trav_board[by_board[j]] == trav_board[by_board[j - 1]]) else 1
            if run > plays_max:
                plays_max = run
        sc = scoring[s]
        j = 0
        while j < m:
            k = j
            while k < m and trav_board[by_board[k]] == trav_board[by_board[j]]:
                k += 1
            n = k - j
            for q in range(n):
                scores[q] = trav_ns_score[by_board[j + q]]
            board_matchpoints(scores[:n], plays_max, neuberg, mp[:n])
            if sc == SCORING_MP:
                val[:n] = mp[:n]
            elif sc == SCORING_BUTLER:
                board_butler(scores[:n], butler_trim, val[:n])
            elif sc == SCORING_AGGREGATE:
                board_aggregate(scores[:n], val[:n])
            else:  # cross_imps, and teams_imps: cross-IMPs against the same-direction field
                board_cross_imps(scores[:n], val[:n])
            for q in range(n):
                t = by_board[j + q]
                trav_ns_mp[t] = mp[q]
                trav_ns_value[t] = val[q]
            j = k
        # accumulate each pair's result from its own direction
        ew_value_is_complement = sc == SCORING_MP
        for i in range(m):
            t = t0 + i
            en, ew = trav_ns_entry[t], trav_ew_entry[t]
            v = trav_ns_value[t]
            pair_score[en] += v
            pair_score[ew] += (100.0 - v) if ew_value_is_complement else -v
            pair_boards[en] += 1
            pair_boards[ew] += 1
        for e in range(e0, e1):
            if sc == SCORING_MP and pair_boards[e] > 0:
                pair_score[e] /= pair_boards[e]
            d = seen[e - e0]
            pair_direction[e] = NS if d == 1 else (EW if d == 2 else MIXED)
            if winners[s] == 2 or _KIND_IS_TEAM[kind[s]]:
                if d == 3:
                    error[s] = ERR_DIRECTION
                pair_group[e] = 0 if d == 1 else 1
            else:
                pair_group[e] = 0
        # rank within groups: pairs beaten + half the ties
        for e in range(e0, e1):
            beaten = 0.0
            ranked = 0
            for f in range(e0, e1):
                if f != e and pair_group[f] == pair_group[e]:
                    ranked += 1
                    if pair_score[e] > pair_score[f]:
                        beaten += 1.0
                    elif pair_score[e] == pair_score[f]:
                        beaten += 0.5
            pair_beaten[e] = beaten
            pair_n_ranked[e] = ranked
        # distinct rounds per pair (travellers are sorted by round)
        last_round[:n_e] = -(2 ** 31)
        for e in range(e0, e1):
            pair_rounds[e] = 0
        for i in range(m):
            t = t0 + i
            for e in (trav_ns_entry[t], trav_ew_entry[t]):
                if last_round[e - e0] != trav_round[t]:
                    last_round[e - e0] = trav_round[t]
                    pair_rounds[e] += 1


@kernel
def _session_matches(trav_start, pair_start, match_start, trav_round, trav_board, trav_ns_score,
                     trav_ns_value, trav_ns_entry, trav_ew_entry, scoring, kind, pair_team,
                     match_opp, match_mate, match_opp_mate, match_boards, match_result, match_score, error):
    """Pass 3: one match row per pair per round for Swiss and team kinds.

    Swiss pairs: the match is the pair's boards against one opposing pair in
    a round; its score is the pair's MP % on those boards (MP Swiss) or its
    net IMPs there (IMP Swiss: the session's IMPs against the datum, which
    the two pairs at a table share with opposite signs, as in scoring a
    Swiss pairs match by IMPs against a datum).
    Team kinds: the match is a round between two teams whose pairs meet at
    two tables on the same boards; its score is the team's IMPs,
    imps(NS score at this table − NS score at the other table) from the
    team's view, summed over the match's boards.
    """
    for s in range(trav_start.shape[0] - 1):
        k = kind[s]
        if not (_KIND_IS_MATCH[k] or _KIND_IS_TEAM[k]):
            continue
        t0, t1 = trav_start[s], trav_start[s + 1]
        e0, e1 = pair_start[s], pair_start[s + 1]
        fill = np.empty(e1 - e0, np.int64)
        for e in range(e0, e1):
            fill[e - e0] = match_start[e]
        teams = _KIND_IS_TEAM[k]
        i = t0
        while i < t1:  # one round at a time
            r_end = i
            while r_end < t1 and trav_round[r_end] == trav_round[i]:
                r_end += 1
            for e in range(e0, e1):
                boards = 0
                total = 0.0
                opp = -1
                mate = -1
                opp_mate = -1
                for t in range(i, r_end):
                    if trav_ns_entry[t] == e:
                        is_ns, other = True, trav_ew_entry[t]
                    elif trav_ew_entry[t] == e:
                        is_ns, other = False, trav_ns_entry[t]
                    else:
                        continue
                    boards += 1
                    opp = other
                    if not teams:
                        v = trav_ns_value[t]
                        if scoring[s] == SCORING_MP:
                            total += v if is_ns else 100.0 - v
                        else:
                            total += v if is_ns else -v
                        continue
                    # teams: find the other room, where the two teams' other pairs play this board
                    my_team = pair_team[e]
                    their_team = pair_team[other]
                    found = False
                    for u in range(i, r_end):
                        if u == t or trav_board[u] != trav_board[t]:
                            continue
                        a, b = trav_ns_entry[u], trav_ew_entry[u]
                        if pair_team[a] == their_team and pair_team[b] == my_team and is_ns:
                            mate, opp_mate = b, a
                        elif pair_team[a] == my_team and pair_team[b] == their_team and not is_ns:
                            mate, opp_mate = a, b
                        else:
                            continue
                        net = trav_ns_score[t] - trav_ns_score[u]
                        total += imps(net) if is_ns else -imps(net)
                        found = True
                        break
                    if not found:
                        error[s] = ERR_TEAM
                if boards == 0:
                    continue
                row = fill[e - e0]
                fill[e - e0] += 1
                match_opp[row] = opp
                match_mate[row] = mate
                match_opp_mate[row] = opp_mate
                match_boards[row] = boards
                if not teams and scoring[s] == SCORING_MP:
                    total /= boards
                    match_result[row] = 1.0 if total > 50.0 else (0.5 if total == 50.0 else 0.0)
                else:
                    match_result[row] = 1.0 if total > 0 else (0.5 if total == 0 else 0.0)
                match_score[row] = total
            i = r_end


@kernel
def _assign_team_rows(pair_start, pair_players, session_team_start, team_players, pair_team, error, kind):
    """Team row of every pair entry in team sessions (-1 elsewhere)."""
    for s in range(pair_start.shape[0] - 1):
        for e in range(pair_start[s], pair_start[s + 1]):
            pair_team[e] = -1
            if not _KIND_IS_TEAM[kind[s]]:
                continue
            a, b = pair_players[e, 0], pair_players[e, 1]
            for m in range(session_team_start[s], session_team_start[s + 1]):
                for h in range(2):
                    c, d = team_players[m, 2 * h], team_players[m, 2 * h + 1]
                    if (c == a and d == b) or (c == b and d == a):
                        pair_team[e] = m
            if pair_team[e] < 0:
                error[s] = ERR_TEAM


# --- partnerships -------------------------------------------------------------

@kernel
def _partnership_ids(keys, ids, players, count, pair_players, out):
    """Look up or insert each pair; ids are dense in order of first sight."""
    mask = keys.shape[0] - 1
    for e in range(pair_players.shape[0]):
        a, b = pair_players[e, 0], pair_players[e, 1]
        key = _pair_key(a, b)
        h = (key * np.int64(-7046029254386353131)) >> np.int64(17)
        slot = h & mask
        while True:
            if keys[slot] == key:
                out[e] = ids[slot]
                break
            if keys[slot] == -1:
                keys[slot] = key
                ids[slot] = count[0]
                players[count[0], 0] = min(a, b)
                players[count[0], 1] = max(a, b)
                out[e] = count[0]
                count[0] += 1
                break
            slot = (slot + 1) & mask


class PartnershipTable:
    """Partnership ids that stay the same across calls (an open-addressing hash table).

    ``ids(pair_players)`` returns the dense id of each (two-player) pair,
    inserting new partnerships in order of first sight; ``players`` lists
    the two players of every id, lower id first.
    """

    def __init__(self, capacity: int = 1024):
        cap = 1 << max(4, int(np.ceil(np.log2(max(capacity, 1) * 2))))
        self._keys = np.full(cap, -1, np.int64)
        self._ids = np.zeros(cap, np.int32)
        self._players = np.zeros((cap // 2, 2), np.int32)
        self._count = np.zeros(1, np.int64)

    def __len__(self) -> int:
        return int(self._count[0])

    @property
    def players(self) -> np.ndarray:
        return self._players[: len(self)]

    def _reserve(self, extra: int) -> None:
        need = len(self) + extra
        if 2 * need <= len(self._keys):
            return
        cap = len(self._keys)
        while 2 * need > cap:
            cap *= 2
        old_players = self.players.copy()
        self._keys = np.full(cap, -1, np.int64)
        self._ids = np.zeros(cap, np.int32)
        self._players = np.zeros((cap // 2, 2), np.int32)
        self._count[0] = 0
        if len(old_players):  # reinserting in id order keeps every id
            out = np.empty(len(old_players), np.int32)
            _partnership_ids(self._keys, self._ids, self._players, self._count, old_players, out)

    def ids(self, pair_players: np.ndarray) -> np.ndarray:
        pair_players = np.ascontiguousarray(pair_players, np.int32).reshape(-1, 2)
        self._reserve(len(pair_players))
        out = np.empty(len(pair_players), np.int32)
        _partnership_ids(self._keys, self._ids, self._players, self._count, pair_players, out)
        return out


# --- the public entry point ---------------------------------------------------------

def score_results(results, *, neuberg: bool = True, butler_trim: int = 1,
                  partnerships: PartnershipTable | None = None) -> ScoredResults:
    """Score every session of ``results`` (a Results) into a ScoredResults.

    neuberg: Neuberg-correct boards played fewer times than the session's
        most-played board (otherwise plain percentages of each board's top).
    butler_trim: scores dropped from each end for the Butler datum.
    partnerships: a table shared across calls (the engine scores one chunk
        of the calendar at a time); a fresh one when None.
    Raises ValueError naming the session when a pair changes direction in a
    two-winner session or a team session's pairs and teams don't match.
    """
    if butler_trim < 0:
        raise ValueError(f"butler_trim must be >= 0, got {butler_trim}")
    r = results
    S, T = r.n_sessions, r.n_travellers
    trav_start = r.session_trav_bounds()
    row_ns = np.empty(T, np.int64)
    row_ew = np.empty(T, np.int64)
    n_entries = np.zeros(S, np.int64)
    _session_entries(trav_start, r.trav_ns, r.trav_ew, row_ns, row_ew, n_entries)
    pair_start = np.zeros(S + 1, np.int64)
    np.cumsum(n_entries, out=pair_start[1:])
    E = int(pair_start[-1])
    pair_players = np.empty((E, 2), np.int32)
    pair_direction = np.empty(E, np.int8)
    pair_group = np.empty(E, np.int32)
    pair_boards = np.empty(E, np.int32)
    pair_score = np.empty(E)
    pair_beaten = np.empty(E)
    pair_n_ranked = np.empty(E, np.int32)
    pair_rounds = np.empty(E, np.int64)
    trav_ns_mp = np.empty(T)
    trav_ns_value = np.empty(T)
    trav_ns_entry = np.empty(T, np.int32)
    trav_ew_entry = np.empty(T, np.int32)
    error = np.zeros(S, np.int8)
    _score_session_pairs(trav_start, pair_start, r.trav_round, r.trav_board, r.trav_ns, r.trav_ew,
                         r.trav_ns_score, row_ns, row_ew, r.session_scoring, r.session_winners,
                         r.session_kind, bool(neuberg), int(butler_trim), pair_players, pair_direction,
                         pair_group, pair_boards, pair_score, pair_beaten, pair_n_ranked, pair_rounds,
                         trav_ns_mp, trav_ns_value, trav_ns_entry, trav_ew_entry, error)
    _raise_session_errors(r, error, pair_start, pair_players, pair_direction)
    # teams
    team_order = np.argsort(r.team_session, kind="stable")
    team_players = np.ascontiguousarray(r.team_players[team_order])
    team_start = np.searchsorted(r.team_session[team_order], np.arange(S + 1)).astype(np.int64)
    pair_team_local = np.empty(E, np.int32)
    _assign_team_rows(pair_start, pair_players, team_start, team_players, pair_team_local, error,
                      r.session_kind)
    _raise_session_errors(r, error, pair_start, pair_players, pair_direction)
    pair_team = np.full(E, -1, np.int32)  # team rows in Results order
    has_team = pair_team_local >= 0
    pair_team[has_team] = team_order[pair_team_local[has_team]]
    # matches: one row per pair per round it played, in match / team kinds only
    is_match_session = np.isin(r.session_kind, list(MATCH_KINDS) + list(TEAM_KINDS))
    session_of_entry = np.repeat(np.arange(S), n_entries)
    rows_per_entry = np.where(is_match_session[session_of_entry], pair_rounds, 0) if E else pair_rounds
    match_start = np.zeros(E + 1, np.int64)
    np.cumsum(rows_per_entry, out=match_start[1:])
    R = int(match_start[-1])
    match_opp = np.empty(R, np.int32)
    match_mate = np.empty(R, np.int32)
    match_opp_mate = np.empty(R, np.int32)
    match_boards = np.empty(R, np.int32)
    match_result = np.empty(R)
    match_score = np.empty(R)
    _session_matches(trav_start, pair_start, match_start, r.trav_round, r.trav_board, r.trav_ns_score,
                     trav_ns_value, trav_ns_entry, trav_ew_entry, r.session_scoring, r.session_kind,
                     pair_team_local, match_opp, match_mate, match_opp_mate, match_boards, match_result,
                     match_score, error)
    _raise_session_errors(r, error, pair_start, pair_players, pair_direction)
    table = partnerships if partnerships is not None else PartnershipTable(max(E, 16))
    pair_partnership = table.ids(pair_players)
    order = r.processing_order()
    return ScoredResults(
        day=r.session_day.copy(), month=days_to_months(r.session_day), club=r.session_club.copy(),
        event=r.session_event.copy(), scoring=r.session_scoring.copy(), winners=r.session_winners.copy(),
        kind=r.session_kind.copy(), pair_start=pair_start, trav_start=trav_start, order=order,
        pair_players=pair_players, pair_partnership=pair_partnership, pair_direction=pair_direction,
        pair_group=pair_group, pair_team=pair_team, pair_boards=pair_boards, pair_score=pair_score,
        pair_beaten=pair_beaten, pair_n_ranked=pair_n_ranked, match_start=match_start,
        match_opp=match_opp, match_mate=match_mate, match_opp_mate=match_opp_mate,
        match_boards=match_boards, match_result=match_result, match_score=match_score,
        trav_ns_mp=trav_ns_mp, trav_ns_entry=trav_ns_entry, trav_ew_entry=trav_ew_entry,
        partnership_players=table.players.copy(), replaces=r.session_replaces.copy(),
    )


def _raise_session_errors(r, error, pair_start, pair_players, pair_direction) -> None:
    bad = np.flatnonzero(error)
    if not len(bad):
        return
    s = int(bad[0])
    name = r.session_names[s]
    if error[s] == ERR_DIRECTION:
        e = next(e for e in range(pair_start[s], pair_start[s + 1]) if pair_direction[e] == MIXED)
        players = [r.player_names[p] for p in pair_players[e]]
        raise ValueError(f"session {name}: pair {players[0]} & {players[1]} sat both NS and EW "
                         f"in a two-winner session (winners=2); a two-winner pair keeps its direction")
    raise ValueError(f"session {name}: its pairs, teams and tables do not form team matches "
                     f"(every pair must belong to a team listed for the session, and in each round "
                     f"two teams' pairs must meet at two tables on the same boards)")
