"""Pass A of one chunk of the calendar: plan → seat → play → ``Results`` → ``ScoredResults``.

Pass A never reads a grade.  For the weeks [first_week, stop_week) of one
replicate's world, ``play_chunk``

1. plans who plays where with whom (``world.plan_sessions``);
2. seats every session with its movement (``movements.seating``);
3. plays every board (``simulate.play``: static movements from their rows,
   Swiss kinds pairing each round from the standings);
4. writes the travellers in (session, round, board, table) order as
   ``Results`` (steps 2–4 are ``play_plan``: the one path from a movement
   to ``Results``); then ``score_chunk``
5. scores them (``scoring.score_results``) and, with card play, collects
   each player's boards and IMPs lost as ``CardPlay`` records dated the
   chunk's last day.

The engine runs the two as separate tasks, because only scoring carries
state (the replicate's partnerships) from chunk to chunk: chunks are played
in any order and scored in order.

Sessions are numbered on from ``first_session``: the number labels every
session's random stream, so results do not depend on how the calendar is
chunked or which thread runs the chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simcore._jit import kernel
from simcore.movements.registry import kind_flags
from simcore.movements.seating import Seated, seat_sessions
from simcore.results import CardPlay, Results, ScoredResults
from simcore.rng import child_key
from simcore.scoring import score_results
from simcore.simulate.play import (CardTotals, Deals, Entries, PlayModel, Sessions, SwissSessions, Travellers,
                                   play_sessions, play_swiss_sessions)
from simcore.world import plan_sessions, strength_on

SWISS_BUTLER_TRIM = 1  # IMP Swiss pairs standings: scores dropped from each end of a board's Butler datum
_IS_TEAM = np.array(kind_flags(lambda m: m.is_team))


@dataclass
class Chunk:
    """Pass A's output for one chunk of one replicate."""

    results: Results
    scored: ScoredResults
    card: CardPlay | None
    n_partnerships: int  # partnerships seen so far in the replicate
    player_boards: int  # 4 × travellers: player-boards played in the chunk
    boards: np.ndarray  # boards each player played in this chunk
    first_day: int  # days since 1970-01-01
    true_pair: np.ndarray  # true strength of each pair entry (mean of the two, + bonus), grade points

    @property
    def n_sessions(self) -> int:
        """Sessions played in the chunk (a correction republishes one: not counted)."""
        return int((self.results.session_replaces < 0).sum())


class PassA(NamedTuple):
    """What pass A needs besides the plan.

    key: the replicate key (uint64); pool: the bridge model's deal pool
    (``bridge.model.build_pool``); model: ``BridgeModelParams``; form_sd: a
    pair's session form (grade points); card_play: also draw IMPs lost;
    card_offset: each player's card play minus true strength (grade points).
    """

    key: np.uint64
    pool: object
    model: object
    form_sd: float
    card_play: bool
    card_offset: object = None  # float64 (P): world.card_play - world.base_strength (grade points); None = 0


@dataclass
class Played:
    """A chunk of one replicate planned, seated and played (``play_chunk``), not yet scored."""

    results: Results
    card_totals: object  # simulate.play.CardTotals: boards and IMPs lost per player
    strength: np.ndarray  # float64 (P) true strengths at the chunk's first day, grade points
    n_sessions: int  # sessions played (a correction republishes one: not counted)
    first_day: int  # days since 1970-01-01
    last_day: int  # the chunk's last day: the date of its card-play records


def play_chunk(world, first_week: int, stop_week: int, setup: PassA, *, first_session: int, players,
               player_names) -> Played:
    """Plan, seat and play weeks [first_week, stop_week) of a replicate: steps 1-4 above.

    setup: ``PassA``.  first_session: sessions the replicate played before
    this chunk.  players: member / at_start / initial_grade of every player
    (``schemes.PlayerTable``); player_names: their names.

    Reads nothing any earlier chunk wrote but ``first_session`` (its random
    streams are keyed by week and session number), so the chunks of a
    replicate can be played in any order once their first sessions are known.
    """
    w = world
    strength = np.empty((stop_week - first_week, len(w.base_strength)))
    for i, wk in enumerate(range(first_week, stop_week)):
        strength_on(w, w.start_day + 7 * wk, out=strength[i])
    plan = plan_sessions(w, first_week, stop_week, strength=strength)
    week_of = ((plan.day - w.start_day) // 7 - first_week).astype(np.int32)
    session_index = first_session + np.arange(plan.n_sessions, dtype=np.int64)
    results, card_totals = play_plan(plan, strength, week_of, session_index, setup, players, player_names,
                                     w.venue_names())
    results = publish_corrections(results, plan, session_index, setup.key)
    return Played(results, card_totals, strength[0], plan.n_sessions, w.start_day + 7 * first_week,
                  w.start_day + 7 * stop_week - 1)


def score_chunk(played: Played, partnerships, card_play: bool, n_players: int) -> Chunk:
    """Score a played chunk (``scoring.score_results``) with the replicate's partnerships (grows: scoring
    is the one step of pass A that carries state from chunk to chunk, so chunks are scored in order)."""
    results = played.results
    scored = score_results(results, partnerships=partnerships)
    played_boards = np.zeros(n_players, np.int64)
    true_pair = np.empty(len(scored.pair_boards))
    first_travellers = _chunk_tallies(scored.pair_start, scored.trav_start, results.session_replaces,
                                      scored.pair_players, scored.pair_boards, played.strength, played_boards,
                                      true_pair)
    card = None
    if card_play:
        totals = played.card_totals
        who = np.flatnonzero(totals.boards > 0).astype(np.int32)
        card = CardPlay(who, np.full(len(who), played.last_day, np.int32), totals.boards[who].astype(np.int32),
                        totals.imps[who].astype(np.float64))
    return Chunk(results, scored, card, len(partnerships), 4 * first_travellers, played_boards,
                 played.first_day, true_pair)


@kernel
def _chunk_tallies(pair_start, trav_start, replaces, pair_players, pair_boards, strength, played_boards,
                   true_pair):
    """One pass over a scored chunk's pair entries for the engine's bookkeeping; returns the travellers
    of first publications.

    played_boards[p] (zeroed by the caller) += the boards of every pair entry of player p, sessions
    republished as corrections left out (their boards were counted with the first publication);
    true_pair[e]: the mean true strength (grade points, ``strength`` at the chunk's first day) of entry
    e's two players.  One kernel where numpy took a repeat, a mask, a gather, a bincount and casts.
    """
    first_travellers = 0
    for s in range(pair_start.shape[0] - 1):
        first = replaces[s] < 0
        if first:
            first_travellers += trav_start[s + 1] - trav_start[s]
        for e in range(pair_start[s], pair_start[s + 1]):
            a, b = pair_players[e, 0], pair_players[e, 1]
            true_pair[e] = 0.5 * (strength[a] + strength[b])
            if first:
                played_boards[a] += pair_boards[e]
                played_boards[b] += pair_boards[e]
    return first_travellers


_MISENTRY_STREAM = 0x5C0E  # child-key label of a first publication's scoring error


def publish_corrections(results: Results, plan, session_index, key) -> Results:
    """Sessions with ``plan.corrected_on`` >= 0 published twice: first with a scoring error, then corrected.

    The first publication keeps the session's id and day of play, with one
    traveller's NS score entered with the wrong sign (a direction mix-up, the
    traveller drawn from the session's keyed stream ``child_key(key,
    _MISENTRY_STREAM, session index)`` among those with a non-zero score, so
    the draw does not depend on threads or chunking).  The correction, the
    true results, is appended as a new session (name ``S<i>c``) on the same
    day, reaching the schemes on ``corrected_on``, with ``session_replaces``
    naming the first publication.  A session whose every score is 0 cannot be
    mis-entered this way and is published once.  No corrections: ``results``
    unchanged (the same object).
    """
    corrected_on = getattr(plan, "corrected_on", None)
    if corrected_on is None or not (corrected_on >= 0).any():
        return results
    r = results
    S = r.n_sessions
    bounds = r.session_trav_bounds()
    wrong = r.trav_ns_score.copy()
    fixed = []
    for s in np.flatnonzero(corrected_on >= 0):
        t = bounds[s] + np.flatnonzero(r.trav_ns_score[bounds[s]:bounds[s + 1]] != 0)
        if not len(t):
            continue
        g = np.random.default_rng(int(child_key(key, _MISENTRY_STREAM, int(session_index[s]))))
        wrong[t[g.integers(len(t))]] *= -1
        fixed.append(s)
    if not fixed:
        return results
    fixed = np.array(fixed, np.int64)
    K = len(fixed)
    take = np.concatenate([np.arange(bounds[s], bounds[s + 1]) for s in fixed])
    new_id = S + np.arange(K, dtype=np.int32)
    new_trav_session = np.repeat(new_id, bounds[fixed + 1] - bounds[fixed]).astype(np.int32)
    tm = np.isin(r.team_session, fixed)
    remap = np.full(S, -1, np.int32)
    remap[fixed] = new_id
    cat = np.concatenate
    sess = lambda a: cat([a, a[fixed]])  # noqa: E731
    trav = lambda a: cat([a, a[take]])  # noqa: E731
    return Results(
        session_names=cat([r.session_names, np.array([f"{n}c" for n in r.session_names[fixed]], object)]),
        session_day=sess(r.session_day), session_club=sess(r.session_club), session_event=sess(r.session_event),
        session_scoring=sess(r.session_scoring), session_winners=sess(r.session_winners),
        session_kind=sess(r.session_kind), session_movement=sess(r.session_movement),
        session_boards=sess(r.session_boards), trav_session=cat([r.trav_session, new_trav_session]),
        trav_round=trav(r.trav_round), trav_board=trav(r.trav_board), trav_table=trav(r.trav_table),
        trav_ns=trav(r.trav_ns), trav_ew=trav(r.trav_ew), trav_ns_score=cat([wrong, r.trav_ns_score[take]]),
        team_session=cat([r.team_session, remap[r.team_session[tm]]]).astype(np.int32),
        team_players=cat([r.team_players, r.team_players[tm]]).reshape(-1, 4),
        team_names=cat([r.team_names, np.array([f"{n}c" for n in r.team_names[tm]], object)]),
        player_names=r.player_names, player_member=r.player_member, player_at_start=r.player_at_start,
        player_initial_grade=r.player_initial_grade, club_names=r.club_names,
        session_scored_on=cat([r.session_scored_on, corrected_on[fixed]]).astype(np.int32),
        session_replaces=cat([r.session_replaces, fixed]).astype(np.int32))


def play_plan(plan, strength, week_of, session_index, setup: PassA, players, player_names, venue_names):
    """Seat and play every session of a ``world.SessionPlan``: (``Results``, per-player ``CardTotals``).

    The one path from a movement to ``Results``.  strength: float64 (W, P)
    true strengths (grade points) at the start of each week; week_of: each
    session's row of it; session_index: each session's number in the
    replicate (labels its random streams and names it ``S<number>``).
    players, player_names: as ``play_chunk``; venue_names: the
    ``club_names`` of the Results.
    """
    seated = seat_sessions(plan, setup.key, np.asarray(session_index, np.int64))
    out = _new_travellers(int(seated.trav_start[-1]))
    P = strength.shape[1]
    offset = np.zeros(P) if setup.card_offset is None else np.ascontiguousarray(setup.card_offset, np.float64)
    card = CardTotals(np.zeros(P, np.int64), np.zeros(P), offset)
    _play(seated, plan, session_index, week_of, strength, setup, out, card)
    return _results(plan, seated, out, session_index, players, player_names, venue_names), card


def _new_travellers(T: int) -> Travellers:
    """Uninitialised ``Travellers`` for T rows, all six arrays views of one allocation (32 bytes a row).

    The play kernels write every row once: at national scale a chunk's travellers are ~32 MB, and when
    that memory is new (freshly mapped) its page faults cost ~20 % of the static play as six allocations
    against one, which takes fewer, larger (transparent huge) pages (``benchmarks/_play_ab.py``'s loop,
    loaded machine).  In an engine run the allocator mostly hands back pages already touched, and the
    play task's CPU moved little (``experiments.engine_schedule national 1 1``: 16.5-17.2 -> 16.4-16.6
    ns per player-board, loaded machine).
    """
    widths = (1, 1, 1, 2, 2, 1)  # int32s a row: round, board, table, ns (2), ew (2), score
    buf = np.empty(sum(widths) * T, np.int32)
    at = np.cumsum((0,) + widths) * T
    part = [buf[at[i]:at[i + 1]] for i in range(len(widths))]
    return Travellers(round=part[0], board=part[1], table=part[2], ns=part[3].reshape(T, 2),
                      ew=part[4].reshape(T, 2), score=part[5])


def _play(seated: Seated, plan, session_index, week_of, strength, setup: PassA, out, card) -> None:
    """Play the static sessions from their rows and the Swiss sessions round by round, into ``out``."""
    m, pool = setup.model, setup.pool
    deals = Deals(pool.scores, pool.thresholds, pool.n_deals)
    model = PlayModel(setup.form_sd, m.alpha, m.sigma_slope, m.sigma_floor, setup.card_play, m.imps_lost_base,
                      m.imps_lost_slope, m.imps_lost_floor, m.dummy_share, SWISS_BUTLER_TRIM)
    x = seated
    entry_start, trav_start = x.entry_start, x.trav_start
    if not x.swiss.all():  # every static session from its rows (Swiss sessions have none: skipped)
        sessions = Sessions(np.asarray(session_index, np.int64), week_of, x.n_boards, entry_start, trav_start[:-1],
                            x.layout)
        play_sessions(setup.key, sessions, _entries(x, slice(None)), x.layouts, strength, deals, model, out, card)
    if x.swiss.any():
        idx = np.flatnonzero(x.swiss)
        sessions = SwissSessions(session_index[idx], week_of[idx], _IS_TEAM[x.kind[idx]], plan.scoring[idx] != 0,
                                 x.swiss_rounds[idx], x.swiss_bpr[idx], _sub_starts(entry_start, idx),
                                 trav_start[idx])
        play_swiss_sessions(setup.key, sessions, _entries(x, _take_ranges(entry_start, idx)), strength, deals,
                            model, out, card)


def _entries(seated: Seated, ents) -> Entries:
    x = seated
    return Entries(x.entry_a[ents], x.entry_b[ents], x.entry_bonus[ents], x.entry_team[ents])


def _results(plan, seated: Seated, out, session_index, players, player_names, venue_names) -> Results:
    """The played travellers in (session, round, board, table) order, with the sessions, teams and players."""
    x = seated
    S = len(x.kind)
    trav_session = np.repeat(np.arange(S, dtype=np.int32), np.diff(x.trav_start))
    team_session, team_players, team_names = _teams(x, session_index)
    return Results(
        session_names=np.array([f"S{i}" for i in np.asarray(session_index).tolist()], object), session_day=plan.day,
        session_club=plan.venue, session_event=plan.event, session_scoring=plan.scoring,
        session_winners=x.winners, session_kind=x.kind, session_movement=x.names,
        session_boards=x.n_boards, trav_session=trav_session, trav_round=out.round,
        trav_board=out.board, trav_table=out.table, trav_ns=out.ns, trav_ew=out.ew, trav_ns_score=out.score,
        team_session=team_session, team_players=team_players, team_names=team_names,
        player_names=player_names, player_member=players.member, player_at_start=players.at_start,
        player_initial_grade=players.initial_grade, club_names=np.array(venue_names, object),
        session_scored_on=plan.scored_on)


def _teams(seated: Seated, session_index):
    """(team_session, team_players (M, 4), team_names) of the team sessions: a team's two pairs are adjacent."""
    x = seated
    teams = np.flatnonzero(_IS_TEAM[x.kind])  # the team sessions (a few a chunk): work grows with them only
    if not len(teams):  # most chunks of a pairs club world
        return np.zeros(0, np.int32), np.zeros((0, 4), np.int32), np.array([], object)
    start = x.entry_start[teams]
    per = (x.entry_start[teams + 1] - start + 1) // 2  # teams a session: its entries at even offsets
    before = np.cumsum(per) - per
    # each team's first pair: the even offsets of team sessions, session by session
    team_first = np.repeat(start - 2 * before, per).astype(np.int64) + 2 * np.arange(int(per.sum()), dtype=np.int64)
    team_session = np.repeat(teams, per).astype(np.int32)
    a, b = x.entry_a, x.entry_b
    team_players = np.stack([a[team_first], b[team_first], a[team_first + 1], b[team_first + 1]],
                            axis=1).astype(np.int32) if len(team_first) else np.zeros((0, 4), np.int32)
    # formatted from Python ints (tolist): numpy scalars format several times slower, per team
    team_names = np.array([f"S{s}-T{t}" for s, t in zip(np.asarray(session_index)[team_session].tolist(),
                                                          (x.entry_team[team_first] + 1).tolist())], object)
    return team_session, team_players, team_names


def _sub_starts(starts: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Offsets of the selected sessions' ranges, packed."""
    out = np.zeros(len(idx) + 1, np.int64)
    np.cumsum(starts[idx + 1] - starts[idx], out=out[1:])
    return out


def _take_ranges(starts: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Indices of the selected sessions' ranges, concatenated."""
    lengths = starts[idx + 1] - starts[idx]
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    # each range as its start plus 0..len-1: one repeat and one arange
    offsets = np.repeat(starts[idx] - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return offsets + np.arange(total)
