"""Session-level scoring: ``Results`` → ``ScoredResults``.

Two passes over the sessions, each a kernel looping over sessions with
explicit offsets (so any caller can score a chunk of sessions at once):

1. ``_score_session_pairs``: the distinct pairs of each session in order of
   first appearance (NS before EW within a traveller) -> pair entries;
   every board's tables scored together (``scoring.board``); each pair's
   session score, boards, direction, group, rank; the NS match-point % of
   every traveller.
2. ``_session_matches``: match rows for Swiss and team kinds.

The kernels take their arrays grouped in named tuples (``Travellers``,
``Sessions``, ``PairsOut``, ``TravOut``, ``MatchesOut``).  Partnership ids
come from a ``PartnershipTable`` that persists across calls, so the engine
can score one chunk of the calendar at a time.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from simcore._jit import kernel
from simcore._memory import prefetch_row
from simcore.movements.registry import kind_flags
from simcore.results import (EW, MIXED, NS, SCORING_AGGREGATE, SCORING_BUTLER, SCORING_MP, ScoredResults,
                             days_to_months)
from simcore.scoring.board import board_aggregate, board_butler, board_cross_imps, board_matchpoints
from simcore.scoring.imp_scale import imps

# lookup tables by kind code, from the movement registry (numba reads them as constants)
_KIND_IS_MATCH = np.array(kind_flags(lambda m: m.is_match), np.bool_)
_KIND_IS_TEAM = np.array(kind_flags(lambda m: m.is_team), np.bool_)

ERR_NONE, ERR_DIRECTION, ERR_TEAM = 0, 1, 2

RANK_BY_COUNTING = 48
"""Groups of up to this many pairs are ranked by comparing every pair with every other (no sort)."""


@kernel(helper=True)
def _pair_key(a, b):
    lo, hi = (a, b) if a < b else (b, a)
    return (np.int64(lo) << 32) | np.int64(hi)


@kernel(refcount=False, helper=True)
def _session_bounds(trav_session, trav_start):
    """Each session's rows: session s owns rows [trav_start[s], trav_start[s + 1]) of the travellers
    (``trav_session`` ascends; trav_start has S+1 slots, written), each found by galloping from the
    previous session's end (a few steps, where numpy's searchsorted took ~1 ms a national month)."""
    T = trav_session.shape[0]
    trav_start[0] = 0
    for s in range(trav_start.shape[0] - 1):
        lo = trav_start[s]  # the first row past session s is in [lo, hi]
        hi = lo
        step = 1
        while hi < T and trav_session[hi] <= s:
            lo = hi + 1
            hi += step
            step *= 2
        hi = min(hi, T)
        while lo < hi:
            mid = (lo + hi) // 2
            if trav_session[mid] <= s:
                lo = mid + 1
            else:
                hi = mid
        trav_start[s + 1] = lo


@kernel(refcount=False)
def _sort_by_key(key, idx, tmp):
    """``idx`` reordered in place so ``key[idx]`` ascends (stable): a bottom-up merge sort.

    tmp: work buffer at least as long as ``idx``.  Written here because
    numba's own sorts cost seconds to compile, and used only where counting
    does not do (sparse board numbers, ranking hundreds of pairs).
    """
    n = idx.shape[0]
    src, dst = idx, tmp
    in_idx = True
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                if i < mid and (j >= hi or key[src[i]] <= key[src[j]]):
                    dst[k] = src[i]
                    i += 1
                else:
                    dst[k] = src[j]
                    j += 1
        src, dst = dst, src
        in_idx = not in_idx
        width *= 2
    if not in_idx:
        for k in range(n):
            idx[k] = src[k]


@kernel(refcount=False)
def _group_by_board(trav_board, trav_score, t0, t1, counts, rows, scores, ends):
    """Rows t0..t1 of a session grouped by board number; returns the number of boards.

    rows[j]: the rows, each board's together (any order within a board);
    scores[j]: their NS scores; ends[g]: where board g's group ends in
    ``rows`` (g in board-number order).  A counting sort over the session's
    board range when it is compact (the usual 1..B: ``counts`` must hold
    span + 1), else a merge sort (``counts`` as its work buffer).
    """
    lo = trav_board[t0]
    hi = lo
    for t in range(t0, t1):
        lo = min(lo, trav_board[t])
        hi = max(hi, trav_board[t])
    span = hi - lo + 1
    m = t1 - t0
    if span > counts.shape[0] - 1 or span > 4 * m + 64:
        for j in range(m):
            rows[j] = t0 + j
        _sort_by_key(trav_board, rows[:m], counts)
        g = 0
        for j in range(m):
            scores[j] = trav_score[rows[j]]
            if j > 0 and trav_board[rows[j]] != trav_board[rows[j - 1]]:
                ends[g] = j
                g += 1
        ends[g] = m
        return g + 1
    for k in range(span + 1):
        counts[k] = 0
    for t in range(t0, t1):
        counts[trav_board[t] - lo + 1] += 1
    for k in range(span):
        counts[k + 1] += counts[k]
    for t in range(t0, t1):
        b = trav_board[t] - lo
        rows[counts[b]] = t
        scores[counts[b]] = trav_score[t]
        counts[b] += 1
    # counts[b] now ends board b's group; boards nobody played have empty groups
    g = 0
    last = 0
    for k in range(span):
        if counts[k] > last:
            last = counts[k]
            ends[g] = last
            g += 1
    return g


class Travellers(NamedTuple):
    """The travellers being scored (T rows, sorted by session, round, board, table)."""

    start: np.ndarray  # int64 (S+1): session s owns rows [start[s], start[s+1])
    round: np.ndarray
    board: np.ndarray
    ns: np.ndarray  # (T, 2) players
    ew: np.ndarray  # (T, 2) players
    ns_score: np.ndarray  # bridge points


class Sessions(NamedTuple):
    """Per session (S): its pair entries' offsets and how it is scored."""

    pair_start: np.ndarray  # int64 (S+1)
    scoring: np.ndarray  # SCORINGS code
    winners: np.ndarray  # 1 or 2
    kind: np.ndarray  # MOVEMENT_KINDS code
    expected_plays: np.ndarray  # int64: times each board should have been played (Neuberg's N); 0 = the most-played


class PairsOut(NamedTuple):
    """Per pair entry (E), written by ``_score_session_pairs``."""

    players: np.ndarray  # int32 (E, 2), lower id first
    direction: np.ndarray  # NS, EW or MIXED
    group: np.ndarray  # who it is ranked against: 0, or 0 (NS) / 1 (EW) for two-winner and team kinds
    boards: np.ndarray
    score: np.ndarray  # session score in the session's units (MP %, IMPs, points)
    beaten: np.ndarray  # pairs of its group beaten + half the ties
    n_ranked: np.ndarray  # other pairs in its group
    match_rows: np.ndarray  # match and team kinds: distinct rounds played (one match row each); else 0


class TravOut(NamedTuple):
    """Per traveller (T), written by ``_score_session_pairs``."""

    ns_mp: np.ndarray  # NS match-point %
    ns_value: np.ndarray  # NS result in the session's own units: written for Swiss pairs sessions only (their
    # match rows add it up), so the pages of other sessions' rows are never touched (T x 8 bytes of fresh
    # memory the kernel would have to zero at national scale)
    ns_entry: np.ndarray  # the NS pair's entry (global index)
    ew_entry: np.ndarray


class MatchesOut(NamedTuple):
    """Match rows (one per pair per round in match and team kinds), written by ``_session_matches``."""

    start: np.ndarray  # int64 (E+1): entry e owns rows [start[e], start[e+1])
    opp: np.ndarray  # the opposing pair entry
    mate: np.ndarray  # teams: the team-mate pair entry (-1 for pairs)
    opp_mate: np.ndarray  # teams: the opposing team's other pair (-1 for pairs)
    boards: np.ndarray
    result: np.ndarray  # 1 win, 0.5 draw, 0 loss
    score: np.ndarray  # MP % (MP Swiss) or IMPs


class Lookup(NamedTuple):
    """Work tables of ``_pair_rows`` for finding a pair's entry in its session (never cleared: each
    slot is stamped with the session that wrote it)."""

    own: np.ndarray  # int64 (n_players): by a pair's lower player, session << 32 | entry in the session
    partner: np.ndarray  # int32 (n_players): that pair's higher player
    key: np.ndarray  # int64 (power of two): the hash table's pair keys
    entry: np.ndarray  # int64: their entries
    stamp: np.ndarray  # int64: the session that wrote the slot (-1: none)


@kernel
def _score_session_pairs(trav_session, n_players, s_from, trav, sess, neuberg, butler_trim, pairs, out, error):
    """Score every board and every pair of sessions s_from, s_from + 1, ... in one pass over each
    session's rows; returns the session it stopped before (S when all are done).

    trav: ``Travellers`` (``trav.start`` written when s_from is 0: each session's rows, found in
    ``trav_session``, which ascends); sess: ``Sessions`` (``sess.pair_start`` written from
    s_from + 1 on: pair_start[s_from] must hold the entries before); pairs: ``PairsOut`` and out:
    ``TravOut`` (written).  A session's entries are its distinct pairs in order of first
    appearance (NS before EW within a traveller), numbered on from the previous session's; players
    are ids 0..n_players-1 (others are looked up by hashing).  ``out.ns_value`` receives the NS
    result of each traveller of a Swiss pairs session in the session's units (MP % or IMPs against
    the datum); ``pairs.match_rows`` the number of distinct rounds each pair played in match / team
    kinds (its match rows; 0 in other kinds).  ``error[s]`` is set to ERR_DIRECTION when a pair
    changes direction in a two-winner session.

    The pair outputs have room for a fixed number of entries, which the entries of the sessions
    still to come may exceed before they are counted: the kernel stops before a session that might
    not fit (2 entries per row at most), so the caller gives it more room and calls again from
    there.  Scoring and numbering the entries in one pass (they were two kernels) reads each
    session's rows once and finds each table's run of boards once.
    """
    S = trav.start.shape[0] - 1
    if s_from == 0:
        _session_bounds(trav_session, trav.start)
        sess.pair_start[0] = 0
    max_rows = 1
    for s in range(S):
        max_rows = max(max_rows, trav.start[s + 1] - trav.start[s])
    rows = np.empty(max_rows, np.int64)
    counts = np.empty(4 * max_rows + 66, np.int64)
    ends = np.empty(max_rows, np.int64)
    scores = np.empty(max_rows, np.int32)
    mp = np.empty(max_rows)
    val = np.empty(max_rows)
    row_val = np.empty(max_rows)
    seen = np.empty(2 * max_rows, np.int8)  # bit 1: sat NS, bit 2: sat EW
    last_round = np.empty(2 * max_rows, np.int64)
    order = np.empty(2 * max_rows, np.int64)
    work = np.empty(2 * max_rows, np.int64)
    size = 16
    while size < 4 * max_rows:
        size *= 2
    # one load per lookup, no hashing: 15-20 % less time than the hash table alone (captured chunks)
    look = Lookup(own=np.full(n_players, -1, np.int64), partner=np.empty(n_players, np.int32),
                  key=np.empty(size, np.int64), entry=np.empty(size, np.int64), stamp=np.full(size, -1, np.int64))
    room = pairs.boards.shape[0]
    for s in range(s_from, S):
        t0, t1 = trav.start[s], trav.start[s + 1]
        e0 = sess.pair_start[s]
        if e0 + 2 * (t1 - t0) > room:
            return s
        if t1 == t0:
            sess.pair_start[s + 1] = e0
            continue
        n_boards = _group_by_board(trav.board, trav.ns_score, t0, t1, counts, rows, scores, ends)
        _score_boards(n_boards, ends, sess.scoring[s], sess.expected_plays[s], neuberg, butler_trim, t0, rows,
                      scores, mp, val, out.ns_mp, row_val)
        k = sess.kind[s]
        e1 = e0 + _pair_rows(s, t0, t1, e0, sess.scoring[s] == SCORING_MP, _KIND_IS_MATCH[k] or _KIND_IS_TEAM[k],
                             trav, look, pairs, out, row_val, seen, last_round)
        sess.pair_start[s + 1] = e1
        if _KIND_IS_MATCH[k] and not _KIND_IS_TEAM[k]:  # Swiss pairs: pass 3 adds up match rows from these
            for t in range(t0, t1):
                out.ns_value[t] = row_val[t - t0]
        two_groups = sess.winners[s] == 2 or _KIND_IS_TEAM[sess.kind[s]]
        for e in range(e0, e1):
            if sess.scoring[s] == SCORING_MP:
                pairs.score[e] /= pairs.boards[e]
            d = seen[e - e0]
            pairs.direction[e] = NS if d == 1 else (EW if d == 2 else MIXED)
            if two_groups:
                if d == 3:
                    error[s] = ERR_DIRECTION
                pairs.group[e] = 0 if d == 1 else 1
            else:
                pairs.group[e] = 0
        _rank_in_groups(e0, e1, pairs.score, pairs.group, pairs.beaten, pairs.n_ranked, order, work)
    return S


@kernel(refcount=False, helper=True)
def _score_boards(n_boards, ends, sc, expected_plays, neuberg, butler_trim, t0, rows, scores, mp, val, ns_mp,
                  row_val):
    """Every board of a session scored across its tables: NS MP % and NS result in the session's units.

    rows, scores, ends: ``_group_by_board``'s; Neuberg's N is the session's
    most-played board, or ``expected_plays`` when that is more (tables given
    an artificial score played the board but have no row here).  mp, val:
    work buffers; ns_mp[t] (T rows) gets each row's NS MP %, row_val[t - t0]
    (the session's rows) its NS result in the session's units.
    """
    plays_max = expected_plays
    j = 0
    for g in range(n_boards):
        plays_max = max(plays_max, ends[g] - j)
        j = ends[g]
    j = 0
    for g in range(n_boards):
        k = ends[g]
        board_matchpoints(scores[j:k], plays_max, neuberg, mp[j:k])
        if sc == SCORING_BUTLER:
            board_butler(scores[j:k], butler_trim, val[j:k])
        elif sc == SCORING_AGGREGATE:
            board_aggregate(scores[j:k], val[j:k])
        elif sc != SCORING_MP:  # cross_imps, and teams_imps: cross-IMPs against the same-direction field
            board_cross_imps(scores[j:k], val[j:k])
        j = k
    value = mp if sc == SCORING_MP else val
    for q in range(j):
        t = rows[q]
        ns_mp[t] = mp[q]
        row_val[t - t0] = value[q]


@kernel(refcount=False, helper=True)
def _pair_rows(s, t0, t1, e0, mp_scoring, matches, trav, look, pairs, out, row_val, seen, last_round):
    """One pass over session s's rows [t0, t1): each traveller's NS and EW entries (global, from e0 on;
    ``look``: ``Lookup``), each entry's players, directions sat (``seen``), boards, score total (in
    row order, from ``row_val[t - t0]``, the NS results) and, when ``matches``, match rows (distinct
    rounds: rows are sorted by round).  Returns the session's number of entries.

    Rows come in runs of one table's boards in a round (the same two pairs, consecutive rows): a
    run's two entries are looked up once, and its two totals are added up in registers, in row
    order, and stored once, so consecutive rows do not wait on each other's stores (the same
    additions in the same order as row by row: the same totals).  A pair is found by its lower
    player's slot in ``look.own`` (one load, no hashing); a player in two pairs of one session (not
    in a simulated movement, but an import may have it), or an id outside ``look.own``, sends the
    pair to the open-addressing hash table instead."""
    n_players = look.own.shape[0]
    mask = look.key.shape[0] - 1
    count = 0
    en = ew = e0
    t = t0
    while t < t1:
        for side in range(2):
            if side == 0:
                a, b = trav.ns[t, 0], trav.ns[t, 1]
            else:
                a, b = trav.ew[t, 0], trav.ew[t, 1]
            lo, hi = (a, b) if a < b else (b, a)
            hashed = True
            e = count
            if 0 <= lo < n_players:  # (an id out of range is hashed)
                v = look.own[lo]
                if (v >> 32) != s:
                    look.own[lo] = (np.int64(s) << 32) | count
                    look.partner[lo] = hi
                    hashed = False
                elif look.partner[lo] == hi:
                    e = v & 0xFFFFFFFF
                    hashed = False
            if hashed:
                key = _pair_key(a, b)
                h = ((key * np.int64(-7046029254386353131)) >> np.int64(20)) & mask
                while look.stamp[h] == s and look.key[h] != key:
                    h = (h + 1) & mask
                if look.stamp[h] != s:
                    look.stamp[h] = s
                    look.key[h] = key
                    look.entry[h] = count
                e = look.entry[h]
            if e == count:  # the pair's first row in the session
                count += 1
                seen[e] = 0
                last_round[e] = -(2 ** 31)
                pairs.players[e0 + e, 0] = lo
                pairs.players[e0 + e, 1] = hi
                pairs.boards[e0 + e] = 0
                pairs.score[e0 + e] = 0.0
                pairs.match_rows[e0 + e] = 0
            if side == 0:
                en = e0 + e
            else:
                ew = e0 + e
        seen[en - e0] |= 1
        seen[ew - e0] |= 2
        run_end = t + 1
        while run_end < t1 and trav.ns[run_end, 0] == trav.ns[t, 0] and trav.ns[run_end, 1] == trav.ns[t, 1] \
                and trav.ew[run_end, 0] == trav.ew[t, 0] and trav.ew[run_end, 1] == trav.ew[t, 1]:
            run_end += 1
        ns_total = pairs.score[en]
        if en == ew:  # a pair on both sides of its own table (an import's error): one total, row by row
            for u in range(t, run_end):
                v = row_val[u - t0]
                ns_total += v
                ns_total += (100.0 - v) if mp_scoring else -v
                out.ns_entry[u] = en
                out.ew_entry[u] = ew
            pairs.score[en] = ns_total
        else:
            ew_total = pairs.score[ew]
            if mp_scoring:
                for u in range(t, run_end):
                    v = row_val[u - t0]
                    ns_total += v
                    ew_total += 100.0 - v
                    out.ns_entry[u] = en
                    out.ew_entry[u] = ew
            else:
                for u in range(t, run_end):
                    v = row_val[u - t0]
                    ns_total += v
                    ew_total -= v
                    out.ns_entry[u] = en
                    out.ew_entry[u] = ew
            pairs.score[en] = ns_total
            pairs.score[ew] = ew_total
        pairs.boards[en] += run_end - t
        pairs.boards[ew] += run_end - t
        if matches:
            for u in range(t, run_end):
                r = trav.round[u]
                if last_round[en - e0] != r:
                    last_round[en - e0] = r
                    pairs.match_rows[en] += 1
                if last_round[ew - e0] != r:
                    last_round[ew - e0] = r
                    pairs.match_rows[ew] += 1
        t = run_end
    return count


@kernel(refcount=False)
def _rank_in_groups(e0, e1, score, group, beaten, n_ranked, order, work):
    """Rank within groups (0 and 1): pairs beaten + half the ties, and the pairs ranked against.

    A club session's group (up to RANK_BY_COUNTING pairs) compares every
    pair with every other without branches; a larger one (an online room has
    ~750 pairs) is sorted by score, E log E instead of E², and a run of k
    equal scores starting at position i each beat i pairs and tie k - 1.
    Either way the halves add exactly, as in counting one by one.
    order, work: buffers of at least e1 - e0.
    """
    for g in range(2):
        n = 0
        for e in range(e0, e1):
            if group[e] == g:
                order[n] = e
                n += 1
        if n <= RANK_BY_COUNTING:
            for i in range(n):
                si = score[order[i]]
                halves = -1  # its tie with itself
                for j in range(n):
                    sj = score[order[j]]
                    halves += 2 * (si > sj) + (si == sj)
                beaten[order[i]] = 0.5 * halves
                n_ranked[order[i]] = n - 1
            continue
        _sort_by_key(score, order[:n], work)
        i = 0
        while i < n:
            k = i + 1
            while k < n and score[order[k]] == score[order[i]]:
                k += 1
            for q in range(i, k):
                beaten[order[q]] = i + 0.5 * (k - i - 1)
                n_ranked[order[q]] = n - 1
            i = k


@kernel
def _session_matches(trav, sess, out, pair_team, matches, error):
    """Pass 3: one match row per pair per round for Swiss and team kinds.

    trav: ``Travellers``; sess: ``Sessions``; out: pass 2's ``TravOut``;
    pair_team: each entry's team row within its session; matches:
    ``MatchesOut`` (written; ``matches.start`` given).

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
    max_entries = 1
    for s in range(trav.start.shape[0] - 1):
        max_entries = max(max_entries, sess.pair_start[s + 1] - sess.pair_start[s])
    acc = MatchAcc(boards=np.empty(max_entries, np.int64), total=np.empty(max_entries),
                   opp=np.empty(max_entries, np.int64), mate=np.empty(max_entries, np.int64),
                   opp_mate=np.empty(max_entries, np.int64), fill=np.empty(max_entries, np.int64))
    for s in range(trav.start.shape[0] - 1):
        k = sess.kind[s]
        if not (_KIND_IS_MATCH[k] or _KIND_IS_TEAM[k]):
            continue
        t0, t1 = trav.start[s], trav.start[s + 1]
        e0, e1 = sess.pair_start[s], sess.pair_start[s + 1]
        for e in range(e0, e1):
            acc.fill[e - e0] = matches.start[e]
        i = t0
        while i < t1:  # one round at a time
            r_end = i
            while r_end < t1 and trav.round[r_end] == trav.round[i]:
                r_end += 1
            if not _round_matches(s, i, r_end, e0, e1, _KIND_IS_TEAM[k], sess.scoring[s] == SCORING_MP, trav, out,
                                  pair_team, acc, matches):
                error[s] = ERR_TEAM
            i = r_end


class MatchAcc(NamedTuple):
    """Work buffers of ``_round_matches``, one slot per pair entry of the session."""

    boards: np.ndarray
    total: np.ndarray
    opp: np.ndarray
    mate: np.ndarray
    opp_mate: np.ndarray
    fill: np.ndarray  # the entry's next match row


@kernel(refcount=False, helper=True)
def _round_matches(s, i, r_end, e0, e1, teams, mp_scoring, trav, out, pair_team, acc, matches):
    """The match rows of one round (rows [i, r_end)): each pair's boards, opponents and total, added
    up row by row (each pair's total in row order), then one row per pair that played.  Returns
    False when a team pair's board has no other room."""
    ok = True
    for e in range(e1 - e0):
        acc.boards[e] = 0
        acc.total[e] = 0.0
        acc.opp[e] = -1
        acc.mate[e] = -1
        acc.opp_mate[e] = -1
    b0 = b1 = i  # rows [b0, b1): traveller t's board in this round (rows are sorted by board within a round)
    for t in range(i, r_end):
        if t >= b1:
            b0 = t
            b1 = t + 1
            while b1 < r_end and trav.board[b1] == trav.board[t]:
                b1 += 1
        for side in range(2):
            is_ns = side == 0
            e = out.ns_entry[t] if is_ns else out.ew_entry[t]
            other = out.ew_entry[t] if is_ns else out.ns_entry[t]
            if not is_ns and e == other:
                continue  # a pair on both sides of a table counts once, as NS
            a = e - e0
            acc.boards[a] += 1
            acc.opp[a] = other
            if not teams:
                v = out.ns_value[t]
                if mp_scoring:
                    acc.total[a] += v if is_ns else 100.0 - v
                else:
                    acc.total[a] += v if is_ns else -v
                continue
            u = _other_room(t, b0, b1, is_ns, pair_team[e], pair_team[other], out, pair_team)
            if u < 0:
                ok = False
                continue
            if is_ns:
                acc.mate[a], acc.opp_mate[a] = out.ew_entry[u], out.ns_entry[u]
            else:
                acc.mate[a], acc.opp_mate[a] = out.ns_entry[u], out.ew_entry[u]
            net = trav.ns_score[t] - trav.ns_score[u]
            acc.total[a] += imps(net) if is_ns else -imps(net)
    for a in range(e1 - e0):
        boards = acc.boards[a]
        if boards == 0:
            continue
        row = acc.fill[a]
        acc.fill[a] += 1
        matches.opp[row] = acc.opp[a]
        matches.mate[row] = acc.mate[a]
        matches.opp_mate[row] = acc.opp_mate[a]
        matches.boards[row] = boards
        total = acc.total[a]
        if not teams and mp_scoring:
            total /= boards
            matches.result[row] = 1.0 if total > 50.0 else (0.5 if total == 50.0 else 0.0)
        else:
            matches.result[row] = 1.0 if total > 0 else (0.5 if total == 0 else 0.0)
        matches.score[row] = total
    return ok


@kernel(refcount=False, helper=True)  # a small step called per session or row: no reference counting
def _other_room(t, b0, b1, is_ns, my_team, their_team, out, pair_team):
    """The row among rows [b0, b1) (traveller t's board in its round) where the two teams' other pairs
    play it, or -1."""
    for u in range(b0, b1):
        if u == t:
            continue
        a, b = out.ns_entry[u], out.ew_entry[u]
        if pair_team[a] == their_team and pair_team[b] == my_team and is_ns:
            return u
        if pair_team[a] == my_team and pair_team[b] == their_team and not is_ns:
            return u
    return -1


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


PREFETCH_AHEAD = 8
"""Partnerships looked up this many entries ahead: a chunk's lookups are cache misses in a national
table, and issued ahead they overlap instead of queueing one behind the other."""


@kernel
def _partnership_ids(slots, players, count, pair_players, out):
    """Look up or insert each pair; ids are dense in order of first sight.

    slots: (capacity, 2) int64, capacity a power of two, each slot its pair
    key (-1 free) and id side by side, so a probe touches one cache line (the
    table outgrows the caches in an online room).  A key's home slot is the
    top bits of key × an odd constant (Fibonacci hashing): bits from the
    middle of the product depended on the higher player alone, so a player's
    partnerships piled up around one slot (a default replicate's 5175 on 1187
    home slots, stored 4.8 slots past home on average; 4438 and 0.22 this way).
    """
    mask = slots.shape[0] - 1
    shift = np.int64(64)
    while (np.int64(1) << (64 - shift)) < slots.shape[0]:
        shift -= 1
    n = pair_players.shape[0]
    for e in range(n):
        if e + PREFETCH_AHEAD < n:
            ahead = _pair_key(pair_players[e + PREFETCH_AHEAD, 0], pair_players[e + PREFETCH_AHEAD, 1])
            prefetch_row(slots, ((ahead * np.int64(-7046029254386353131)) >> shift) & mask, 0)
        a, b = pair_players[e, 0], pair_players[e, 1]
        key = _pair_key(a, b)
        # the product's top bits (the sign bits an arithmetic shift brings in are masked off)
        slot = ((key * np.int64(-7046029254386353131)) >> shift) & mask
        while True:
            if slots[slot, 0] == key:
                out[e] = slots[slot, 1]
                break
            if slots[slot, 0] == -1:
                slots[slot, 0] = key
                slots[slot, 1] = count[0]
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

    The slots are at most MAX_LOAD full, counting every pair of a call as
    new (a call reserves room for all of them before it looks any up).
    """

    MAX_LOAD = 0.75
    """Slots used at most (the worst case of a call).  Growing costs a national decade's score task
    more than its lookups: each growth fills a new table twice the size (~5 M partnerships by the
    decade's end: 16 M slots, 256 MB, on pages touched for the first time) and reinserts every
    partnership.  At 3/4 rather than 1/2 the table stops one doubling earlier (8 M slots) and the
    growths before fill half the memory; a call typically adds far fewer than its worst case, so the
    table runs well below 3/4, where linear probing still finds most keys on the first cache line."""

    def __init__(self, capacity: int = 1024):
        cap = 1 << max(4, int(np.ceil(np.log2(max(capacity, 1) / self.MAX_LOAD))))
        self._slots = np.full((cap, 2), -1, np.int64)
        self._players = np.zeros((self._room(cap), 2), np.int32)
        self._count = np.zeros(1, np.int64)

    @classmethod
    def _room(cls, cap: int) -> int:
        """Partnerships a table of ``cap`` slots holds."""
        return int(cap * cls.MAX_LOAD)

    def __len__(self) -> int:
        return int(self._count[0])

    @property
    def players(self) -> np.ndarray:
        """(K, 2) the players of every id so far, a view that later calls never change (new ids go
        past its end; growing moves the table to new arrays), so callers may keep it without a copy."""
        return self._players[: len(self)]

    def _reserve(self, extra: int) -> None:
        need = len(self) + extra
        if need <= self._room(len(self._slots)):
            return
        cap = len(self._slots)
        while need > self._room(cap):
            cap *= 2
        old_players = self.players  # (the old array: the new one is another)
        self._slots = np.full((cap, 2), -1, np.int64)
        self._players = np.zeros((self._room(cap), 2), np.int32)
        self._count[0] = 0
        if len(old_players):  # reinserting in id order keeps every id
            out = np.empty(len(old_players), np.int32)
            _partnership_ids(self._slots, self._players, self._count, old_players, out)

    def ids(self, pair_players: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The id of each pair (int32, written into ``out`` when given)."""
        pair_players = np.ascontiguousarray(pair_players, np.int32).reshape(-1, 2)
        self._reserve(len(pair_players))
        if out is None:
            out = np.empty(len(pair_players), np.int32)
        _partnership_ids(self._slots, self._players, self._count, pair_players, out)
        return out


# --- the public entry point ---------------------------------------------------------

def score_results(results, *, neuberg: bool = True, butler_trim: int = 1,
                  partnerships: PartnershipTable | None = None, expected_plays=None) -> ScoredResults:
    """Score every session of ``results`` (a Results) into a ScoredResults.

    neuberg: Neuberg-correct boards played fewer times than the session's
        most-played board (otherwise plain percentages of each board's top).
    expected_plays: int per session, the times each board should have been
        played when that exceeds the most-played board's rows (imported
        sessions whose every board had a table given an artificial score);
        None: the most-played board's rows.
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
    if expected_plays is None:
        expected_plays = np.zeros(S, np.int64)
    expected_plays = np.asarray(expected_plays, np.int64)
    if expected_plays.shape != (S,) or (expected_plays < 0).any():
        raise ValueError(f"expected_plays: give one non-negative count per session ({S}), "
                         f"got shape {expected_plays.shape}")
    ns_mp, ns_entry, ew_entry = _carve([(T, np.float64), (T, np.int32), (T, np.int32)])
    out = TravOut(ns_mp=ns_mp, ns_value=np.empty(T), ns_entry=ns_entry, ew_entry=ew_entry)
    trav_start, pair_start = np.empty(S + 1, np.int64), np.empty(S + 1, np.int64)
    trav = Travellers(trav_start, r.trav_round, r.trav_board, r.trav_ns, r.trav_ew, r.trav_ns_score)
    sess = Sessions(pair_start, r.session_scoring, r.session_winners, r.session_kind, expected_plays)
    error = np.zeros(S, np.int8)
    pairs = _pair_outputs(_pair_room(T))
    s = _score_session_pairs(r.trav_session, r.n_players, 0, trav, sess, bool(neuberg), int(butler_trim), pairs,
                             out, error)
    while s < S:  # more entries than the room given: more room, the entries so far kept, and on from s
        room = max(2 * len(pairs.boards), int(pair_start[s] + 2 * (trav_start[s + 1] - trav_start[s])))
        pairs = _pair_outputs(room, pairs, int(pair_start[s]))
        s = _score_session_pairs(r.trav_session, r.n_players, s, trav, sess, bool(neuberg), int(butler_trim),
                                 pairs, out, error)
    E = int(pair_start[-1])
    pairs = PairsOut(*(a[:E] for a in pairs))
    pair_team_local, pair_team, match_start, pair_partnership = _carve([(E, np.int32), (E, np.int32),
                                                                        (E + 1, np.int64), (E, np.int32)])
    pair_players, pair_direction = pairs.players, pairs.direction
    _raise_session_errors(r, error, pair_start, pair_players, pair_direction)
    # teams
    team_order = np.argsort(r.team_session, kind="stable")
    team_players = np.ascontiguousarray(r.team_players[team_order])
    team_start = np.searchsorted(r.team_session[team_order], np.arange(S + 1)).astype(np.int64)
    _assign_team_rows(pair_start, pair_players, team_start, team_players, pair_team_local, error,
                      r.session_kind)
    _raise_session_errors(r, error, pair_start, pair_players, pair_direction)
    pair_team.fill(-1)  # team rows in Results order
    has_team = pair_team_local >= 0
    pair_team[has_team] = team_order[pair_team_local[has_team]]
    # matches: one row per pair per round it played, in match / team kinds only
    match_start[0] = 0
    np.cumsum(pairs.match_rows, out=match_start[1:])
    R = int(match_start[-1])
    matches = MatchesOut(start=match_start, opp=np.empty(R, np.int32), mate=np.empty(R, np.int32),
                         opp_mate=np.empty(R, np.int32), boards=np.empty(R, np.int32), result=np.empty(R),
                         score=np.empty(R))
    _session_matches(trav, sess, out, pair_team_local, matches, error)
    _raise_session_errors(r, error, pair_start, pair_players, pair_direction)
    table = partnerships if partnerships is not None else PartnershipTable(max(E, 16))
    table.ids(pair_players, out=pair_partnership)
    order = r.processing_order()
    return ScoredResults(
        day=r.session_day.copy(), month=days_to_months(r.session_day), club=r.session_club.copy(),
        event=r.session_event.copy(), scoring=r.session_scoring.copy(), winners=r.session_winners.copy(),
        kind=r.session_kind.copy(), pair_start=pair_start, trav_start=trav_start, order=order,
        pair_players=pair_players, pair_partnership=pair_partnership, pair_direction=pair_direction,
        pair_group=pairs.group, pair_team=pair_team, pair_boards=pairs.boards, pair_score=pairs.score,
        pair_beaten=pairs.beaten, pair_n_ranked=pairs.n_ranked, match_start=match_start,
        match_opp=matches.opp, match_mate=matches.mate, match_opp_mate=matches.opp_mate,
        match_boards=matches.boards, match_result=matches.result, match_score=matches.score,
        trav_ns_mp=out.ns_mp, trav_ns_entry=out.ns_entry, trav_ew_entry=out.ew_entry,
        partnership_players=table.players, replaces=r.session_replaces.copy(),
    )


def _pair_room(T: int) -> int:
    """Pair entries the pair outputs first have room for, for T travellers: two a row (room for any
    session) up to 16 384 rows; past that a quarter of the rows, room enough for sessions whose pairs
    play 8 boards or more each (a national month has 0.09 entries a row).  A chunk with more entries
    gets more room as it goes (``score_results``); the room past the entries is never touched, so
    costs no memory."""
    return 2 * T if T <= 1 << 14 else T // 4


def _pair_outputs(room: int, old: PairsOut | None = None, done: int = 0) -> PairsOut:
    """Pair outputs with room for ``room`` entries (carved from one block), the first ``done`` copied
    from ``old``."""
    pairs = PairsOut(*_carve([((room, 2), np.int32), (room, np.int8), (room, np.int32), (room, np.int32),
                              (room, np.float64), (room, np.float64), (room, np.int32), (room, np.int64)]))
    if old is not None:
        for new, was in zip(pairs, old):
            new[:done] = was[:done]
    return pairs


def _carve(specs) -> list:
    """Empty arrays of the given (shape, dtype); from 4 MB in all, carved out of one allocation.

    numpy asks the kernel for huge pages for an allocation from 4 MB up, so at national scale one
    block is mostly huge pages where separate arrays of a few MB fault in one 4 kB page at a time
    (first touch of a national month's traveller outputs: 5.5 ms as three arrays, 2.2 ms as one block;
    of its pair outputs: 2.9 ms as separate arrays, 1.1 ms as one block).  The arrays then share the
    block, which lives as long as any of them.  Smaller sets are allocated one by one (carving costs
    a few microseconds an array).
    """
    sizes = [(math.prod(shape) if isinstance(shape, tuple) else shape) * np.dtype(dtype).itemsize
             for shape, dtype in specs]
    if sum(sizes) < HUGE_PAGE_BLOCK:
        return [np.empty(shape, dtype) for shape, dtype in specs]
    offsets, total = [], 0
    for n in sizes:
        offsets.append(total)
        total += -(-n // 64) * 64  # numpy's blocks start 16-byte aligned, enough for 8-byte items
    block = np.empty(total, np.uint8)
    return [block[o: o + n].view(dtype).reshape(shape) for (shape, dtype), o, n in zip(specs, offsets, sizes)]


HUGE_PAGE_BLOCK = 4 << 20
"""Bytes from which numpy asks for huge pages (its ``madvise`` threshold)."""


def _raise_session_errors(r, error, pair_start, pair_players, pair_direction) -> None:
    if not error.any():
        return
    bad = np.flatnonzero(error)
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
