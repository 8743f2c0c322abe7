"""Playing planned sessions: seats + the bridge model → travellers and card play.

``play_sessions`` is the inner loop of the engine's pass A.  For every
session of a chunk it takes the session's entries (pairs from the world's
plan), its seating (one row per round and table: the NS entry, the EW entry
and a run of boards, read through the session's layout number from the
layouts of ``simcore.movements.seating``) and draws:

* each pair's strength for the session: the mean true strength of its two
  players + its partnership bonus + form ~ N(0, form_sd) (grade points);
* the session's noise scale from the mean true strength of its players
  (``bridge_model.field_sigma``: strong fields are flatter, FR18);
* one deal per board number, shared by every table that plays the board;
* every table's NS score on every board (``bridge_model.draw_ns_score``);
* optionally card play: one declarer per table-board (any of the four
  players, 1/4 each) and the IMPs they lose against double dummy on it at
  the rate of their card play (true strength + the player's card-play
  offset; ``bridge_model.draw_imps_lost``), added to per-player totals.

``play_swiss_sessions`` does the same for Swiss pairs and Swiss teams,
pairing each round from the standings as it goes.

Every session opens its own random stream keyed by (replicate key, session
index), so a session's results do not depend on which thread plays it or
how the calendar is chunked.

The kernels take their arrays grouped in named tuples: ``Sessions`` /
``SwissSessions``, ``Entries``, ``Rows``, ``Deals``, ``PlayModel``, and the
outputs ``Travellers`` and ``CardTotals``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore._jit import helper, kernel
from simcore.bridge.model import (MAX_RUNGS, MEAN_MISTAKE_IMPS, _poisson, _vulnerability, deal_board, draw_ns_score,
                                  field_sigma, imps_lost_rate, mistakes_cost, ns_score_of, poisson_inverse,
                                  take_boards)
from simcore.movements.swiss import standings_order, swiss_first_round, swiss_pair_round
from simcore.movements.seating import LayoutRows as Rows  # seating's layouts, played here as they are
from simcore._memory import prefetch_l2, prefetch_row_l2
from simcore.rng import GOLDEN, normal, seed_stream, skip, uniform, uniform_at
from simcore.scoring.board import board_butler, board_matchpoints
from simcore.scoring.imp_scale import imps, victory_points

_PLAY_SALT = 7  # stream label of session play (the world uses 0..3 per week)

# Helpers called only from other kernels (never from Python) compile without numba's Python entry wrapper, which
# unboxes every array of every bundle they take (as world.plan's helpers).  _step: also without reference counting
# (see _jit.kernel): they allocate nothing and their arrays are the caller's.
_inner = kernel(helper=True)
_step = kernel(refcount=False, helper=True)


class Sessions(NamedTuple):
    """Sessions played from fixed rows (S)."""

    index: np.ndarray  # int64: the session's number in the replicate (labels its stream)
    week: np.ndarray  # int32: row of ``strength``
    boards: np.ndarray  # int32: boards are numbered 1..boards
    entry_start: np.ndarray  # int64 (S+1): session s owns entries [entry_start[s], entry_start[s+1])
    trav_start: np.ndarray  # int64 (S): first traveller the session writes
    layout: np.ndarray  # int64 (S): the session's layout (its rows) in ``Rows``


class SwissSessions(NamedTuple):
    """Swiss sessions, paired round by round (S)."""

    index: np.ndarray  # int64
    week: np.ndarray  # int32
    is_teams: np.ndarray  # bool: Swiss teams (else Swiss pairs)
    imps_scoring: np.ndarray  # bool: standings in VPs from IMPs (else match MP %)
    rounds: np.ndarray  # int64
    bpr: np.ndarray  # int64: boards a round
    entry_start: np.ndarray  # int64 (S+1)
    trav_start: np.ndarray  # int64 (S)


class Entries(NamedTuple):
    """Pair entries (E): the two players, the partnership bonus (grade points), the team (-1 none)."""

    a: np.ndarray
    b: np.ndarray
    bonus: np.ndarray
    team: np.ndarray


class Deals(NamedTuple):
    """The bridge model's deal pool (``bridge.model.DealPool``)."""

    scores: np.ndarray
    thresholds: np.ndarray
    n_deals: int


class PlayModel(NamedTuple):
    """Scalars of the bridge model (``BridgeModelParams``) and the field."""

    form_sd: float  # grade points: a pair's session form
    alpha: float
    sigma_slope: float
    sigma_floor: float
    card_play: bool  # also draw IMPs lost
    il_base: float  # IMPs lost per board by a 50 player
    il_slope: float
    il_floor: float
    dummy_share: float
    butler_trim: int  # Swiss Butler datum: scores dropped from each end


class Travellers(NamedTuple):
    """Output rows (T), one per table per board."""

    round: np.ndarray  # int32
    board: np.ndarray  # int32
    table: np.ndarray  # int32
    ns: np.ndarray  # int32 (T, 2) players
    ew: np.ndarray  # int32 (T, 2)
    score: np.ndarray  # int32 NS score, bridge points


class CardTotals(NamedTuple):
    """Per-player card play (P): boards declared and IMPs lost on them (added to); the card-play offset (read)."""

    boards: np.ndarray  # int64 boards declared
    imps: np.ndarray  # float64 IMPs lost against double dummy on them
    offset: np.ndarray  # float64 card play minus true strength (grade points; world.card_play - base_strength)


@kernel
def play_sessions(key, sessions, entries, rows, strength, deals, model, out, card):
    """Play every session of a chunk from its layout's rows.

    sessions: ``Sessions``; entries: ``Entries`` (b = -1 only before the
    online room's seating; never here); rows: ``Rows`` (the layouts, from
    ``movements.seating``; session s plays layout sessions.layout[s]);
    strength: float64 (W, P) true strengths at the start of each week;
    deals: ``Deals``; model: ``PlayModel``.  Session s writes its
    travellers in row order, boards in order within a row; its i-th is
    stored at ``out[sessions.trav_start[s] + rows.rank[rows.rank_start[l] +
    i]]`` (``Travellers``; l its layout: the (session, round, board, table)
    position, so nobody sorts them afterwards).  A session whose layout has
    no rows (Swiss: paired while playing, ``play_swiss_sessions``) is
    skipped.  card (``CardTotals``) is added to when ``model.card_play``.
    """
    st = np.empty(1, np.uint64)
    ahead = np.empty(1, np.uint64)
    max_entries = 1
    max_boards = 1
    for s in range(sessions.index.shape[0]):
        max_entries = max(max_entries, sessions.entry_start[s + 1] - sessions.entry_start[s])
        max_boards = max(max_boards, sessions.boards[s])
    pair_strength = np.empty(max_entries)
    # board codes of this session and of the next one played (drawn ahead to prefetch their pool rows)
    codes = np.empty(max_boards + 1, np.int64)
    codes_next = np.empty(max_boards + 1, np.int64)
    # the session's boards: their ladders copied out of the pool (``take_boards``), row = board number
    ladders = Deals(np.empty((max_boards + 1, MAX_RUNGS), np.int32), np.empty((max_boards + 1, MAX_RUNGS)), 0)
    rates = _new_rates(2 * max_entries)
    s = _next_played(rows, sessions.layout, 0)
    if s < sessions.index.shape[0]:
        _look_ahead(key, sessions, s, entries, strength, deals, model.card_play, card, ahead, codes_next)
    while s < sessions.index.shape[0]:
        lay = sessions.layout[s]
        r0, r1 = rows.start[lay], rows.start[lay + 1]
        seed_stream(st, key, _PLAY_SALT, sessions.index[s])
        t_row = strength[sessions.week[s]]
        e0, e1 = sessions.entry_start[s], sessions.entry_start[s + 1]
        sigma = _session_form(t_row, entries, e0, e1, model, st, pair_strength)
        # the boards' deals were drawn ahead (the same draws): step the stream past them
        codes, codes_next = codes_next, codes
        skip(st, 2 * sessions.boards[s])
        take_boards(deals.scores, deals.thresholds, codes, 1, sessions.boards[s] + 1, ladders.scores,
                    ladders.thresholds)
        s_next = _next_played(rows, sessions.layout, s + 1)
        if s_next < sessions.index.shape[0]:
            _look_ahead(key, sessions, s_next, entries, strength, deals, model.card_play, card, ahead, codes_next)
        _play_rows(rows, r0, r1, entries, e0, pair_strength, codes, ladders, model.alpha, sigma, st, out,
                   rows.rank_start[lay], sessions.trav_start[s])
        if model.card_play:
            _declarer_rates(t_row, entries, e0, e1, model, card.offset, rates)
            _card_play_rows(rows, r0, r1, rates, st)
            _add_card_play(entries, e0, e1, rates, card)
        s = s_next


@_step
def _next_played(rows, layout, s):
    """The first session from s on whose layout has rows (Swiss layouts have none), or the number of sessions."""
    while s < layout.shape[0] and rows.start[layout[s]] == rows.start[layout[s] + 1]:
        s += 1
    return s


@_step
def _look_ahead(key, sessions, s, entries, strength, deals, card_play, card, st, codes):
    """Session s's board codes into codes[1..boards] (``deal_board``: the draws its stream makes after each
    pair's form, one normal an entry); start loading their pool rows and its players' entries.

    Called one session ahead: a session's boards are random rows of a pool
    of several MB and its players random entries of arrays by player, a
    cache miss each, that load while the session before is played.  Into
    the second-level cache only (``prefetch_l2``): into the first, the
    burst (~75 pool lines, ~200 player lines) evicted itself and the lines
    of the session being played.  Measured in engine runs (play_sessions'
    time, default 2 x 2 years, one thread, best of 3, three runs a side):
    10.6-11.9 -> 9.1-9.4 ns per player-board; a run made with a pool of
    256 deals (all in cache) plays in ~9.0.
    """
    seed_stream(st, key, _PLAY_SALT, sessions.index[s])
    skip(st, sessions.entry_start[s + 1] - sessions.entry_start[s])
    for board in range(1, sessions.boards[s] + 1):
        codes[board] = deal_board(deals.n_deals, _vulnerability(board), st)
        row = codes[board] >> 1
        # a row: 64 bytes of scores, 128 of thresholds (three lines when not 64-byte aligned)
        prefetch_row_l2(deals.scores, row, 0)
        prefetch_row_l2(deals.scores, row, MAX_RUNGS - 1)
        prefetch_row_l2(deals.thresholds, row, 0)
        prefetch_row_l2(deals.thresholds, row, MAX_RUNGS // 2)
        prefetch_row_l2(deals.thresholds, row, MAX_RUNGS - 1)
    week = sessions.week[s]
    for e in range(sessions.entry_start[s], sessions.entry_start[s + 1]):
        for p in (entries.a[e], entries.b[e]):
            prefetch_row_l2(strength, week, p)
            if card_play:
                prefetch_l2(card.offset, p)
                prefetch_l2(card.boards, p)
                prefetch_l2(card.imps, p)


@_step  # called per session: no reference counting (atomic increments on ~20 arrays a call)
def _play_rows(rows, r0, r1, entries, e0, pair_strength, codes, ladders, alpha, sigma, st, out, i, t0):
    """Rows r0..r1's boards (one NS score each, ``draw_ns_score`` on board codes[board] of ``ladders``), the
    j-th stored at ``out[t0 + rows.rank[i + j]]``.

    One call a session, not a row: rows run 2-3 boards, and a call passes
    every array of its bundles (~20) by value.
    """
    x = st[0]  # the stream's counter, in a register through the loop (``uniform_at``)
    for r in range(r0, r1):
        ns, ew = rows.ns[r], rows.ew[r]
        s_ns, s_ew = pair_strength[ns], pair_strength[ew]
        # the row's labels and players, read once for its run of boards
        rnd, table, first = rows.round[r], rows.table[r], rows.first_board[r]
        ns_a, ns_b, ew_a, ew_b = entries.a[e0 + ns], entries.b[e0 + ns], entries.a[e0 + ew], entries.b[e0 + ew]
        for k in range(rows.n_boards[r]):
            board = first + k
            x += GOLDEN
            score = ns_score_of(ladders.scores, ladders.thresholds, codes[board], s_ns, s_ew, alpha, sigma,
                                uniform_at(x))
            at = np.uint64(t0 + rows.rank[i])  # unsigned: no negative-index wrap on each of the eight stores
            out.round[at] = rnd
            out.board[at] = board
            out.table[at] = table
            out.ns[at, 0] = ns_a
            out.ns[at, 1] = ns_b
            out.ew[at, 0] = ew_a
            out.ew[at, 1] = ew_b
            out.score[at] = score
            i += 1
    st[0] = x


@_step  # a small step called per session or row: no reference counting
def _session_form(t_row, entries, e0, e1, model, st, pair_strength):
    """Each pair's strength for the session (grade points) into ``pair_strength``; returns the noise scale.

    Mean true strength of the two players + the partnership bonus + form ~
    N(0, form_sd), drawn in entry order; the scale comes from the field's
    mean true strength (``field_sigma``).
    """
    field = 0.0
    for e in range(e0, e1):
        a, b = entries.a[e], entries.b[e]
        field += t_row[a] + t_row[b]
        pair_strength[e - e0] = 0.5 * (t_row[a] + t_row[b]) + entries.bonus[e] + model.form_sd * normal(st)
    return field_sigma(field / (2.0 * (e1 - e0)), model.sigma_slope, model.sigma_floor)


class _Rates(NamedTuple):
    """Card play of a session's players, by seat j = 2 × entry offset + (0: player a, 1: player b)."""

    mu: np.ndarray  # float64: mistakes expected per board declared
    exp_neg_mu: np.ndarray  # float64: exp(-mu)
    declared: np.ndarray  # int64: boards declared in the session so far
    lost: np.ndarray  # int64: IMPs lost on them so far
    cdf: np.ndarray  # float64 (seats, CDF_TERMS): P(mistakes <= k), summed as ``poisson_step`` sums it


# Poisson CDF terms kept per seat: a declarer errs about 0.2 times a board (0.5 at 20 grade points), 4 or more
# times on ~1e-4 (2e-3) of boards, drawn by poisson_inverse; more terms cost a division each per player and session
CDF_TERMS = 4


@_inner
def _new_rates(n_seats):
    """Scratch ``_Rates`` for sessions of up to n_seats players."""
    return _Rates(np.empty(n_seats), np.empty(n_seats), np.empty(n_seats, np.int64), np.empty(n_seats, np.int64),
                  np.empty((n_seats, CDF_TERMS)))


@_step  # a small step called per session: no reference counting
def _declarer_rates(t_row, entries, e0, e1, model, offset, rates):
    """Each player's mistakes per board declared at their card play on the day (``draw_imps_lost`` over
    one board: true strength + offset; ``imps_lost_rate`` / MEAN_MISTAKE_IMPS), its exp(-mu), the first
    CDF_TERMS sums of its Poisson CDF, and no boards declared yet.  Computed once per session, not per
    table-board: the same operations on the same numbers as ``draw_imps_lost`` (the CDF as
    ``poisson_step`` sums it), so the same bits."""
    for e in range(e0, e1):
        for h in range(2):
            p = entries.a[e] if h == 0 else entries.b[e]
            j = 2 * (e - e0) + h
            mu = imps_lost_rate(t_row[p] + offset[p], model.il_base, model.il_slope, model.il_floor) \
                / MEAN_MISTAKE_IMPS
            rates.mu[j] = mu
            rates.exp_neg_mu[j] = np.exp(-mu) if mu <= _POISSON_CHUNK else 0.0
            pk = rates.exp_neg_mu[j]
            cdf = pk
            rates.cdf[j, 0] = cdf
            for k in range(1, CDF_TERMS):
                pk *= mu / k
                cdf += pk
                rates.cdf[j, k] = cdf
            rates.declared[j] = 0
            rates.lost[j] = 0


_POISSON_CHUNK = 400.0  # bridge.model._poisson draws a mean in chunks of at most this


@_step  # called per session: no reference counting
def _card_play_rows(rows, r0, r1, rates, st):
    """Card play on the travellers of rows r0..r1, in written order (``_declare`` each)."""
    for r in range(r0, r1):
        j_ns, j_ew = 2 * rows.ns[r], 2 * rows.ew[r]
        for k in range(rows.n_boards[r]):
            _declare(j_ns, j_ew, rates, st)


@_step  # called per session: no reference counting
def _card_play_seats(seats, rates, st):
    """Card play on travellers whose (NS, EW) entry offsets are the rows of ``seats``, in order."""
    for i in range(seats.shape[0]):
        _declare(2 * seats[i, 0], 2 * seats[i, 1], rates, st)


@helper(forceinline=True)  # the body of the loops above
def _declare(j_ns, j_ew, rates, st):
    """One table-board's declarer and the IMPs they lose against double dummy (``draw_imps_lost`` over one
    board, no dummy draw), the same draws in the same order.

    One uniform picks the side and which of its two players declares (each
    of the four 1/4): seat j_ns (NS entry's player a), j_ns + 1, j_ew or
    j_ew + 1 of ``rates``, whose boards declared and IMPs lost it adds to.
    """
    seat = min(int(uniform(st) * 4.0), 3)
    j = (j_ns if seat < 2 else j_ew) + (seat & 1)
    mu = rates.mu[j]
    if mu <= _POISSON_CHUNK:
        n = 0
        if mu > 0.0:
            # poisson_step's inversion: the first k whose CDF reaches u, counted without a branch a term
            # (the CDF rises, so the terms below u are a prefix); past the table, poisson_step itself
            u = uniform(st)
            for k in range(CDF_TERMS):
                n += u > rates.cdf[j, k]
            if n == CDF_TERMS:
                n = poisson_inverse(mu, rates.exp_neg_mu[j], u)
    else:
        n = _poisson(mu, st)
    rates.declared[j] += 1
    if n > 0:
        rates.lost[j] += mistakes_cost(n, st)


@_step  # a small step called per session: no reference counting
def _add_card_play(entries, e0, e1, rates, card):
    """Add each player's boards declared and IMPs lost in the session to ``card`` (by player).

    IMPs lost are whole numbers, added up in int64 over the session and
    then once to the float64 total: the same bits as adding each board's
    (every partial sum is an integer below 2**53, so exact), with one
    random access a player and session instead of one a board.
    """
    for e in range(e0, e1):
        j = 2 * (e - e0)
        card.boards[entries.a[e]] += rates.declared[j]
        card.boards[entries.b[e]] += rates.declared[j + 1]
        card.imps[entries.a[e]] += rates.lost[j]
        card.imps[entries.b[e]] += rates.lost[j + 1]


@kernel
def play_swiss_sessions(key, sessions, entries, strength, deals, model, out, card):
    """Play Swiss pairs and Swiss teams sessions, pairing each round from the standings.

    sessions: ``SwissSessions``; the rest as ``play_sessions``.  Entrants
    are the session's pairs (Swiss pairs) or its teams (Swiss teams:
    ``entries.team`` groups two pair entries a team).  Round r plays boards
    r·bpr+1 .. (r+1)·bpr at every table.  Round 1 is a random draw, later
    rounds ``swiss_pair_round`` on the standings (straight down, repeats
    allowed, when no repeat-free pairing exists).  Standings: match MP % for
    MP Swiss pairs; VPs (``imps.victory_points``) from the IMP margin for
    IMP Swiss pairs (Butler IMPs against the round's datum) and Swiss teams
    (team IMPs between the match's two tables).  Session s writes rounds ×
    boards × tables travellers from trav_start[s], written in (round,
    board, table) order: stored where they are written.
    """
    st = np.empty(1, np.uint64)
    for s in range(sessions.index.shape[0]):
        seed_stream(st, key, _PLAY_SALT, sessions.index[s])
        t_row = strength[sessions.week[s]]
        e0, e1 = sessions.entry_start[s], sessions.entry_start[s + 1]
        pair_strength = np.empty(e1 - e0)
        sigma = _session_form(t_row, entries, e0, e1, model, st, pair_strength)
        teams = sessions.is_teams[s]
        members = _swiss_entrants(entries.team, e0, e1, teams)
        n = members.shape[0]
        played = np.zeros((n, n), np.bool_)
        had_bye = np.zeros(n, np.bool_)
        points = np.zeros(n)
        order = np.empty(n, np.int64)
        a = np.empty(n // 2, np.int64)
        b = np.empty(n // 2, np.int64)
        margin = np.empty(n // 2)
        tables = (n // 2) * (2 if teams else 1)
        # each traveller's NS and EW entry offsets, in written order, for card play
        seats = np.empty((sessions.rounds[s] * sessions.bpr[s] * tables, 2), np.int64)
        t0 = sessions.trav_start[s]
        t = t0
        for r in range(sessions.rounds[s]):
            bye = _pair_swiss_round(r, n, points, played, had_bye, st, order, a, b)
            if bye >= 0:
                had_bye[bye] = True
            for m in range(n // 2):
                margin[m] = 0.0
            t = _play_swiss_round(r, sessions.bpr[s], teams, sessions.imps_scoring[s], members, a, b, entries, e0,
                                  pair_strength, deals, model, sigma, st, out, t, seats[t - t0:], margin)
            _update_standings(a, b, margin, teams or sessions.imps_scoring[s], sessions.bpr[s], played, points)
        if model.card_play:
            rates = _new_rates(2 * (e1 - e0))
            _declarer_rates(t_row, entries, e0, e1, model, card.offset, rates)
            _card_play_seats(seats[:t - t0], rates, st)
            _add_card_play(entries, e0, e1, rates, card)


@_inner
def _swiss_entrants(entry_team, e0, e1, teams):
    """(n, 2) entry offsets of each entrant: a team's two pairs, or a pair twice."""
    if teams:
        n = 0
        for e in range(e0, e1):
            n = max(n, entry_team[e] + 1)
        members = np.full((n, 2), -1, np.int64)
        for e in range(e0, e1):
            k = entry_team[e]
            members[k, 0 if members[k, 0] < 0 else 1] = e - e0
        return members
    members = np.empty((e1 - e0, 2), np.int64)
    for k in range(e1 - e0):
        members[k, 0] = k
        members[k, 1] = k
    return members


@_inner
def _pair_swiss_round(r, n, points, played, had_bye, st, order, a, b):
    """Round r's matches into a, b; returns the entrant with the bye (-1 none).

    Round 1 is a random draw; later rounds pair the standings without
    repeats, or straight down the standings when no repeat-free pairing
    exists.
    """
    half = n // 2
    if r == 0:
        swiss_first_round(n, np.empty(0, np.int64), st, order)
        for m in range(half):
            a[m], b[m] = order[2 * m], order[2 * m + 1]
        return order[n - 1] if n % 2 == 1 else -1
    standings_order(points, order)
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
    return bye


@_inner
def _play_swiss_round(r, bpr, teams, imps_scoring, members, a, b, entries, e0, pair_strength, deals, model, sigma,
                      st, out, t, seats, margin):
    """Play round r's boards at every table from traveller t (stored at ``out[t]``, its NS and EW
    entry offsets at ``seats[0], seats[1], ...``); each match's margin into ``margin`` (zeroed).

    Margin: team IMPs (teams), Butler IMPs (IMP Swiss pairs) or MP % per
    board (MP Swiss pairs), from entrant a's side.  Returns the next
    traveller row.
    """
    half = a.shape[0]
    per_table = 2 if teams else 1
    tables = half * per_table
    scores = np.empty(tables, np.int32)
    value = np.empty(tables)
    i = 0
    for q in range(bpr):
        board = r * bpr + q + 1
        code = deal_board(deals.n_deals, _vulnerability(board), st)
        for m in range(half):
            x, y = a[m], b[m]
            for h in range(per_table):
                ns = members[x, 0] if h == 0 else members[y, 0]
                ew = members[y, 1] if h == 0 else members[x, 1]
                if not teams:
                    ns, ew = members[x, 0], members[y, 0]
                score = draw_ns_score(deals.scores, deals.thresholds, code, pair_strength[ns], pair_strength[ew],
                                      model.alpha, sigma, st)
                at = t
                out.round[at] = r + 1
                out.board[at] = board
                out.table[at] = m * per_table + h + 1
                out.ns[at, 0], out.ns[at, 1] = entries.a[e0 + ns], entries.b[e0 + ns]
                out.ew[at, 0], out.ew[at, 1] = entries.a[e0 + ew], entries.b[e0 + ew]
                out.score[at] = score
                seats[i, 0], seats[i, 1] = ns, ew
                scores[m * per_table + h] = score
                t += 1
                i += 1
        if teams:
            for m in range(half):
                margin[m] += imps(scores[2 * m] - scores[2 * m + 1])
        elif imps_scoring:
            board_butler(scores[:tables], model.butler_trim, value[:tables])
            for m in range(half):
                margin[m] += value[m]
        else:
            board_matchpoints(scores[:tables], tables, False, value[:tables])
            for m in range(half):
                margin[m] += value[m] / bpr
    return t


@_step  # a small step called per session or row: no reference counting
def _update_standings(a, b, margin, in_vps, bpr, played, points):
    """Record the round's meetings and add each side's VPs (or match MP %) to the standings."""
    for m in range(a.shape[0]):
        x, y = a[m], b[m]
        played[x, y] = True
        played[y, x] = True
        if in_vps:
            vp = victory_points(margin[m], bpr)
            points[x] += vp
            points[y] += 20.0 - vp
        else:
            points[x] += margin[m]
            points[y] += 100.0 - margin[m]
