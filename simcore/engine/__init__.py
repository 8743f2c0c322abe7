"""The engine: every scheme variant grades the same simulated world.

``run(scenario, schemes=..., replicates=R, years=Y, seed=S)`` simulates R
independent replicate populations of a scenario week by week and grades
every session under every requested scheme variant from the very same
results (common random numbers), recording snapshots of true strengths and
grades.  It returns an ``xarray.Dataset`` (see ``DATASET_DOC``).

The calendar is cut into chunks that end at snapshot times (every week or
at the first week of each month).  For each chunk and replicate:

* pass A (simulation, never reads a grade): the world plans who plays where
  with whom (``world.plan_sessions``), each session is laid out by its
  movement (``simcore.movements``), played (``play.play_sessions``: bridge
  model scores and card play), assembled as ``Results`` and scored
  (``scoring.score_results``);
* pass B (grading): every scheme variant applies the chunk's
  ``ScoredResults`` (IMPs-lost: the chunk's card-play records) to its state;
* at the chunk's end every variant's grades and the true strengths are
  recorded.

Parallelism: pass A of a replicate and pass B of a (replicate, variant) are
tasks on a thread pool running nogil numba kernels; pass A of the next chunk
overlaps pass B of this one.  Every task's output depends only on its
inputs and every random draw comes from a stream keyed by (replicate key,
unit), so the Dataset is bit-identical whatever the thread count.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from simcore.bridge.model import BridgeModelParams, build_pool
from simcore.engine.dataset import DATASET_DOC, build_dataset
from simcore.movements import choose_layout, layout_schedule
from simcore.movements.online import online_seat_round
from simcore.simulate.play import play_sessions, play_swiss_sessions
from simcore.results import (KIND_MULTIPLE_TEAMS, KIND_ONLINE, KIND_SWISS_PAIRS, KIND_SWISS_TEAMS, MOVEMENT_KINDS,
                      Results, days_to_months)
from simcore.rng import child_key, replicate_keys
from simcore.scenario import Scenario, load_scenario, with_overrides
from simcore.schemes import PlayerTable, make_scheme, parse_variant, split_variants, variant_label
from simcore.scoring import PartnershipTable, score_results
from simcore.world import World, active_on, build_world, plan_sessions, strength_on

ALL_SCHEMES = ("ngs", "ppi", "elo-pairs", "imps-lost")
CARD_PLAY_SCHEMES = ("imps-lost",)
# scheme extras recorded at every snapshot (schemes' ``extras()`` offer more, e.g. PPI's k and w)
SNAPSHOT_EXTRAS = {"ngs": ("status", "band"), "ppi": ("shown", "active", "band")}

# --- scheme variants --------------------------------------------------------------

@dataclass
class Variant:
    """A scheme with parameter overrides, labelled e.g. ``ngs(gain=2)``."""

    label: str
    name: str
    overrides: dict
    scheme: object


def resolve_schemes(schemes) -> list[Variant]:
    """Variants from ``"ngs,ngs(gain=2),ppi"`` or a list of such strings."""
    items = split_variants(schemes) if isinstance(schemes, str) else list(schemes)
    if not items:
        raise ValueError("no scheme given; choose from " + ", ".join(ALL_SCHEMES))
    out, seen = [], set()
    for text in items:
        name, overrides = parse_variant(text)
        try:
            scheme = make_scheme(name, overrides)
        except ModuleNotFoundError:
            raise ValueError(f"scheme {name!r} is not available in this build") from None
        label = variant_label(name, overrides)
        if label in seen:
            raise ValueError(f"scheme variant {label!r} is given twice")
        seen.add(label)
        out.append(Variant(label, name, overrides, scheme))
    return out


# --- calendar chunks ------------------------------------------------------------------

def chunk_weeks(world: World, snapshot: str) -> list[tuple[int, int]]:
    """[(first_week, stop_week)]: chunks ending at each snapshot."""
    n = world.n_weeks
    if snapshot == "weekly":
        ends = list(range(1, n + 1))
    else:
        starts = world.start_day + 7 * np.arange(n + 1)
        months = days_to_months(starts)
        ends = [w for w in range(1, n + 1) if months[w] != months[w - 1]]
        if not ends or ends[-1] != n:
            ends.append(n)
    out, first = [], 0
    for e in ends:
        out.append((first, e))
        first = e
    return out


# --- replicate state -----------------------------------------------------------------

@dataclass
class _Replicate:
    index: int
    key: np.uint64
    world: World
    pool: object
    players: PlayerTable
    player_names: np.ndarray
    partnerships: PartnershipTable = field(default_factory=PartnershipTable)
    states: dict = field(default_factory=dict)
    n_sessions: int = 0
    boards: np.ndarray | None = None
    card_boards: np.ndarray | None = None
    card_imps: np.ndarray | None = None
    bundle_parts: list = field(default_factory=list)
    card_records: list = field(default_factory=list)


@dataclass
class _Chunk:
    """Pass A's output for one chunk of one replicate."""

    results: Results
    scored: object
    card: object  # CardPlay records or None
    n_partnerships: int
    player_boards: int
    boards: np.ndarray  # boards each player played in this chunk
    first_day: int
    true_pair: np.ndarray  # true strength of each pair entry (mean of the two, + bonus), grade points


@dataclass
class _Seating:
    """One session laid out: its entries (pairs), rows and movement."""

    kind: int
    name: str
    winners: int
    n_boards: int
    a: np.ndarray
    b: np.ndarray
    bonus: np.ndarray
    team: np.ndarray
    rows: np.ndarray  # (R, 6): round, table, ns entry, ew entry, first board, boards
    n_travellers: int
    rank: np.ndarray  # final position, within the session, of each traveller in the order it is written
    swiss_rounds: int = 0
    bpr: int = 0


def _team_firsts(entry_team, entry_start, is_team) -> np.ndarray:
    """Entry index of each team's first pair in team sessions (a team's pairs are adjacent)."""
    firsts = []
    for s in np.flatnonzero(is_team):
        lo, hi = entry_start[s], entry_start[s + 1]
        firsts.append(lo + np.arange(0, hi - lo, 2))
    return np.concatenate(firsts).astype(np.int64) if firsts else np.zeros(0, np.int64)


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


_TEMPLATES: dict = {}


def _static_template(kind: int, n: int, boards: int, winners: int):
    """(rows, name, winners, n_boards, kind) of a static movement, memoised.

    rows (R, 6): round, table, NS entry, EW entry, first board, boards.  For
    team movements entrant (team t, pair j) is entry 2t + j: the world lists
    a team's two pairs next to each other.
    """
    key = (kind, n, boards, winners)
    hit = _TEMPLATES.get(key)
    if hit is not None:
        return hit
    layout = choose_layout(kind, n, boards, winners)
    sched = layout_schedule(layout)
    if sched.is_teams:
        ns = 2 * sched.ns.astype(np.int64) + sched.ns_pair
        ew = 2 * sched.ew.astype(np.int64) + sched.ew_pair
    else:
        ns, ew = sched.ns.astype(np.int64), sched.ew.astype(np.int64)
    bpr = sched.boards
    rows = np.stack([sched.round, sched.table, ns, ew, sched.board_set * bpr + 1, np.full(len(ns), bpr)],
                    axis=1).astype(np.int64)
    rows.setflags(write=False)
    rank = _written_rank(rows)
    hit = _TEMPLATES[key] = (rows, sched.name, sched.winners, sched.n_boards, sched.kind, rank)
    return hit


def _written_rank(rows: np.ndarray) -> np.ndarray:
    """Position in (round, board, table) order of each traveller as ``play_sessions`` writes them."""
    rep = rows[:, 5]
    rnd = np.repeat(rows[:, 0], rep)
    table = np.repeat(rows[:, 1], rep)
    board = np.repeat(rows[:, 4], rep) + (np.arange(int(rep.sum())) - np.repeat(np.cumsum(rep) - rep, rep))
    order = np.lexsort((table, board, rnd))
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    rank.setflags(write=False)
    return rank


def seat_session(plan, s: int, key, session_index: int) -> _Seating:
    """Lay out session ``s`` of a plan with its movement (``simcore.movements``)."""
    lo, hi = plan.entry_start[s], plan.entry_start[s + 1]
    a, b, bonus, team = plan.a[lo:hi], plan.b[lo:hi], plan.bonus[lo:hi], plan.team[lo:hi]
    kind, boards, winners = int(plan.kind[s]), int(plan.boards[s]), int(plan.winners[s])
    if kind == KIND_ONLINE:
        return _seat_online(a, b, bonus, boards, int(plan.boards_per_round[s]) or 2, key, session_index)
    teams = kind in (KIND_MULTIPLE_TEAMS, KIND_SWISS_TEAMS)
    n = int(team.max()) + 1 if teams else len(a)
    if kind == KIND_MULTIPLE_TEAMS and n > 40:
        kind = KIND_SWISS_TEAMS  # too many teams for a round robin
    if kind in (KIND_SWISS_PAIRS, KIND_SWISS_TEAMS):
        layout = choose_layout(kind, n, boards, winners)
        rounds, bpr = dict(layout["options"])["rounds"], layout["boards"]
        tables = (n // 2) * (2 if teams else 1)
        word = MOVEMENT_KINDS[kind]
        n_trav = rounds * tables * bpr
        return _Seating(kind, f"{word}:{n}{'teams' if teams else 'pairs'}-{rounds}x{bpr}",
                        1 if kind == KIND_SWISS_PAIRS else 2, rounds * bpr, a, b, bonus, team,
                        np.zeros((0, 6), np.int64), n_trav, np.arange(n_trav), rounds, bpr)
    rows, name, win, n_boards, skind, rank = _static_template(kind, n, boards, winners)
    return _Seating(skind, name, win, n_boards, a, b, bonus, team, rows, len(rank), rank)


def _seat_online(a, b, bonus, boards, bpr, key, session_index) -> _Seating:
    """The online room: partners and tables drawn afresh each round (``online_seat_round``)."""
    from simcore.rng import new_stream
    st = new_stream(np.uint64(key), 0x0717E, int(session_index))
    fixed = b >= 0
    fa, fb = a[fixed].astype(np.int64), b[fixed].astype(np.int64)
    bonus_of = {(min(x, y), max(x, y)): v for x, y, v in zip(fa, fb, bonus[fixed])}
    singles = a[~fixed].astype(np.int64)
    rounds = max(1, boards // bpr)
    cap = (len(singles) + 2 * len(fa)) // 4 + 1
    pair_id: dict = {}
    rows = []
    for r in range(rounds):
        na, nb, ea, eb = (np.empty(cap, np.int64) for _ in range(4))
        tables = online_seat_round(singles, fa, fb, st, na, nb, ea, eb)
        for t in range(tables):
            ids = [pair_id.setdefault((min(x, y), max(x, y)), len(pair_id)) for x, y in ((na[t], nb[t]), (ea[t], eb[t]))]
            rows.append((r + 1, t + 1, ids[0], ids[1], r * bpr + 1, bpr))
    pairs = np.array(list(pair_id), np.int64).reshape(-1, 2)
    pb = np.array([bonus_of.get(tuple(p), 0.0) for p in pairs.tolist()])
    rows = np.array(rows, np.int64).reshape(-1, 6)
    return _Seating(KIND_ONLINE, f"online:{len(a)}entries-{rounds}x{bpr}", 1, rounds * bpr, pairs[:, 0], pairs[:, 1],
                    pb, np.full(len(pairs), -1, np.int32), rows, len(rows) * bpr, _written_rank(rows))


def _digest(chunk: _Chunk, card: bool) -> str:
    """Fingerprint of the results a pass-B task graded (for the same-results test)."""
    import hashlib
    h = hashlib.sha1()
    if card:
        for a in (chunk.card.player, chunk.card.boards, chunk.card.imps_lost):
            h.update(np.ascontiguousarray(a).tobytes())
    else:
        r, sc = chunk.results, chunk.scored
        for a in (r.trav_ns, r.trav_ew, r.trav_board, r.trav_ns_score, sc.trav_ns_mp, sc.pair_score):
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


class Engine:
    """One run: configuration, replicate states, snapshots; ``run()`` drives it."""

    def __init__(self, scenario, schemes=ALL_SCHEMES, replicates=1, years=None, seed=0, snapshot=None,
                 threads=None, trace=False, bundle_dir=None, model: BridgeModelParams | None = None,
                 progress=False, session_stats=False):
        sc = load_scenario(scenario) if not isinstance(scenario, Scenario) else scenario
        if years is not None:
            if isinstance(years, bool) or not isinstance(years, (int, float)) or not 0 < years <= 100:
                raise ValueError(f"years={years!r}: give a number of years in (0, 100]")
            sc = with_overrides(sc, {"calendar.years": float(years)})
        if snapshot is not None:
            sc = with_overrides(sc, {"calendar.snapshot": snapshot})
        if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < 1:
            raise ValueError(f"replicates={replicates!r}: give a positive integer")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed={seed!r}: give a non-negative integer")
        if threads is not None and (not isinstance(threads, (int, np.integer)) or threads < 1):
            raise ValueError(f"threads={threads!r}: give a positive integer")
        self.scenario = sc
        self.variants = resolve_schemes(schemes)
        self.replicates = int(replicates)
        self.seed = int(seed)
        self.threads = int(threads or os.cpu_count() or 1)
        self.trace = bool(trace)
        self.bundle_dir = bundle_dir
        self.model = model or BridgeModelParams()
        self.progress = progress
        self.card_play = any(v.name in CARD_PLAY_SCHEMES for v in self.variants)
        self.session_stats = bool(session_stats)
        self.trace_rows: list = []
        self.graded: dict = {}  # with trace: (replicate, variant) -> digests of what it graded
        self.timing = {"pass_a": 0.0, "pass_b": 0.0, "snapshot": 0.0}

    # -- setup -------------------------------------------------------------------------
    def _new_replicate(self, r: int, key) -> _Replicate:
        world = build_world(self.scenario, key)
        P = world.n_players
        players = PlayerTable(world.member.copy(), world.at_start.copy(), np.full(P, np.nan))
        pool = build_pool(self.model, child_key(key, 0xB0A7D))
        rep = _Replicate(index=r, key=np.uint64(key), world=world, pool=pool, players=players,
                         player_names=np.array([f"p{i}" for i in range(P)], object))
        rep.boards = np.zeros(P, np.int64)
        rep.card_boards = np.zeros(P, np.int64)
        rep.card_imps = np.zeros(P)
        for v in self.variants:
            rep.states[v.label] = v.scheme.new_state(players, 1024)
        return rep

    # -- pass A ------------------------------------------------------------------------
    def _pass_a(self, rep: _Replicate, first_week: int, stop_week: int) -> _Chunk:
        w = rep.world
        plan = plan_sessions(w, first_week, stop_week)
        S = plan.n_sessions
        strength = np.stack([strength_on(w, w.start_day + 7 * wk) for wk in range(first_week, stop_week)])
        week_of = ((plan.day - w.start_day) // 7 - first_week).astype(np.int32)
        session_index = rep.n_sessions + np.arange(S, dtype=np.int64)
        seats = [seat_session(plan, s, rep.key, session_index[s]) for s in range(S)]
        kinds = np.empty(S, np.int8)
        winners = np.empty(S, np.int8)
        n_boards = np.empty(S, np.int32)
        e_count = np.empty(S, np.int64)
        r_count = np.empty(S, np.int64)
        trav_per_session = np.empty(S, np.int64)
        swiss = np.zeros(S, bool)
        swiss_rounds = np.zeros(S, np.int64)
        swiss_bpr = np.zeros(S, np.int64)
        names, row_parts, rank_parts, online = [], [], [], []
        for i, x in enumerate(seats):
            kinds[i], winners[i], n_boards[i] = x.kind, x.winners, x.n_boards
            e_count[i], r_count[i], trav_per_session[i] = len(x.a), len(x.rows), x.n_travellers
            names.append(x.name)
            if x.swiss_rounds:
                swiss[i], swiss_rounds[i], swiss_bpr[i] = True, x.swiss_rounds, x.bpr
            else:
                row_parts.append(x.rows)
            rank_parts.append(x.rank)
            if x.kind == KIND_ONLINE:
                online.append(i)
        entry_start = np.zeros(S + 1, np.int64)
        np.cumsum(e_count, out=entry_start[1:])
        if online:  # the online room re-pairs its players: its entries are the pairs formed
            cat = lambda f, dt: np.concatenate([getattr(x, f) for x in seats]).astype(dt)  # noqa: E731
            entry_a, entry_b = cat("a", np.int32), cat("b", np.int32)
            entry_bonus, entry_team = cat("bonus", np.float64), cat("team", np.int32)
        else:
            entry_a, entry_b, entry_bonus, entry_team = plan.a, plan.b, plan.bonus, plan.team
        row_start = np.zeros(S + 1, np.int64)
        np.cumsum(r_count, out=row_start[1:])
        rows = np.concatenate(row_parts) if row_parts else np.zeros((0, 6), np.int64)
        trav_start = np.zeros(S + 1, np.int64)
        np.cumsum(trav_per_session, out=trav_start[1:])
        T = int(trav_start[-1])
        out = dict(round=np.empty(T, np.int32), board=np.empty(T, np.int32), table=np.empty(T, np.int32),
                   ns=np.empty((T, 2), np.int32), ew=np.empty((T, 2), np.int32), score=np.empty(T, np.int32))
        m = self.model
        form = self.scenario.partnerships.form_sd
        static = ~swiss
        common = (strength, form, m.alpha, m.sigma_slope, m.sigma_floor, rep.pool.scores, rep.pool.thresholds,
                  rep.pool.n_deals, self.card_play, m.imps_lost_base, m.imps_lost_slope, m.imps_lost_floor,
                  m.dummy_share)
        outs = (out["round"], out["board"], out["table"], out["ns"], out["ew"], out["score"], rep.card_boards,
                rep.card_imps)
        if static.any():
            idx = np.flatnonzero(static)
            es, ts = _sub_starts(entry_start, idx), trav_start[idx]
            rs = np.zeros(len(idx) + 1, np.int64)
            np.cumsum(r_count[idx], out=rs[1:])
            ents = _take_ranges(entry_start, idx) if len(idx) < S or online else slice(None)
            play_sessions(rep.key, session_index[idx], week_of[idx], n_boards[idx], es, entry_a[ents],
                          entry_b[ents], entry_bonus[ents], rs, rows[:, 0].astype(np.int32),
                          rows[:, 1].astype(np.int32), rows[:, 2], rows[:, 3], rows[:, 4].astype(np.int32),
                          rows[:, 5], ts, *common, *outs)
        if swiss.any():
            idx = np.flatnonzero(swiss)
            es = _sub_starts(entry_start, idx)
            ents = _take_ranges(entry_start, idx)
            play_swiss_sessions(rep.key, session_index[idx], week_of[idx], kinds[idx] == KIND_SWISS_TEAMS,
                                plan.scoring[idx] != 0, swiss_rounds[idx], swiss_bpr[idx], es, entry_a[ents],
                                entry_b[ents], entry_bonus[ents], entry_team[ents], trav_start[idx], *common, 1,
                                *outs)
        trav_session = np.repeat(np.arange(S, dtype=np.int32), trav_per_session)
        # travellers into (session, round, board, table) order: each session's written order ranks
        dest = np.concatenate(rank_parts) + np.repeat(trav_start[:-1], trav_per_session) if T else \
            np.zeros(0, np.int64)
        order = np.empty(T, np.int64)
        order[dest] = np.arange(T)
        # teams of team sessions: a team's two pairs are adjacent entries (the world lists them so)
        is_team = np.isin(kinds, (KIND_MULTIPLE_TEAMS, KIND_SWISS_TEAMS))
        team_first = _team_firsts(entry_team, entry_start, is_team)
        team_session = np.repeat(np.arange(S), e_count)[team_first].astype(np.int32)
        team_players = np.stack([entry_a[team_first], entry_b[team_first], entry_a[team_first + 1],
                                 entry_b[team_first + 1]], axis=1).astype(np.int32) if len(team_first) else \
            np.zeros((0, 4), np.int32)
        team_names = np.array([f"S{session_index[s]}-T{entry_team[f] + 1}" for s, f in zip(team_session, team_first)],
                              object)
        results = Results(
            session_names=np.array([f"S{i}" for i in session_index], object), session_day=plan.day,
            session_club=plan.venue, session_event=plan.event, session_scoring=plan.scoring,
            session_winners=winners, session_kind=kinds, session_movement=np.array(names, object),
            session_boards=n_boards, trav_session=trav_session[order], trav_round=out["round"][order],
            trav_board=out["board"][order], trav_table=out["table"][order], trav_ns=out["ns"][order],
            trav_ew=out["ew"][order], trav_ns_score=out["score"][order],
            team_session=team_session, team_players=team_players,
            team_names=team_names, player_names=rep.player_names,
            player_member=rep.players.member, player_at_start=rep.players.at_start,
            player_initial_grade=rep.players.initial_grade, club_names=np.array(w.venue_names(), object))
        scored = score_results(results, partnerships=rep.partnerships)
        # boards played per player: each pair entry's boards, for both its players (E entries, not 4T seats)
        played = np.bincount(scored.pair_players.ravel(), weights=np.repeat(scored.pair_boards, 2),
                             minlength=w.n_players).astype(np.int64)
        card = None
        if self.card_play:
            from simcore.schemes.imps_lost import CardPlay
            who = np.flatnonzero(rep.card_boards > 0).astype(np.int32)
            day = w.start_day + 7 * stop_week - 1
            card = CardPlay(who, np.full(len(who), day, np.int32), rep.card_boards[who].astype(np.int32),
                            rep.card_imps[who].astype(np.float64))
            rep.card_boards[:] = 0
            rep.card_imps[:] = 0.0
        rep.n_sessions += S
        if rep.index == 0 and self.bundle_dir is not None:
            rep.bundle_parts.append(results)
            if card is not None:
                rep.card_records.append(card)
        t0 = strength[0]
        true_pair = 0.5 * (t0[scored.pair_players[:, 0]] + t0[scored.pair_players[:, 1]])
        return _Chunk(results, scored, card, len(rep.partnerships), 4 * results.n_travellers, played,
                      w.start_day + 7 * first_week, true_pair)

    # -- pass B ------------------------------------------------------------------------
    def _pass_b(self, rep: _Replicate, v: Variant, chunk: _Chunk):
        state = rep.states[v.label]
        if self.trace:
            self.graded.setdefault((rep.index, v.label), []).append(_digest(chunk, v.name in CARD_PLAY_SCHEMES))
        if v.name in CARD_PLAY_SCHEMES:
            card = chunk.card
            out = np.empty((len(card.player), 5))
            v.scheme.apply(state, card, out)
            return (("card", out) if (self.trace and rep.index == 0) else None), None
        state = v.scheme.grow(state, max(chunk.n_partnerships, 1))
        rep.states[v.label] = state
        stats = None
        if self.session_stats:
            from simcore.metrics import fr18_chunk
            before = v.scheme.grades(state, chunk.first_day)
            stats = fr18_chunk(chunk.results, chunk.scored, before, chunk.true_pair)
        tracing = self.trace and rep.index == 0
        if not tracing and getattr(v.scheme, "optional_out_after", False):
            out = None  # nobody reads the post-session grades: the scheme may skip them
        else:
            out = np.full((chunk.scored.n_entries, 2), np.nan)
        v.scheme.apply(state, chunk.scored, out)
        return (("sessions", out) if tracing else None), stats

    def _grade_chunk(self, rep: _Replicate, v: Variant, chunk: _Chunk, day: int):
        """Pass B, then the variant's snapshot on ``day``: (traced, stats, grades, int8 extras by name)."""
        traced, stats = self._pass_b(rep, v, chunk)
        state = rep.states[v.label]
        grades_now = v.scheme.grades(state, day)
        extras_now = {}
        keep = SNAPSHOT_EXTRAS.get(v.name, ())
        if keep:
            more = v.scheme.extras(state, day)
            for key in keep:
                values = np.asarray(more[key], np.float64)
                extras_now[f"{v.name.replace('-', '_')}_{key}"] = np.where(np.isnan(values), -1, values).astype(np.int8)
        return traced, stats, grades_now, extras_now

    # -- the run -----------------------------------------------------------------------
    def run(self):
        keys = replicate_keys(self.seed, self.replicates)
        with ThreadPoolExecutor(max_workers=self.threads) as pool:
            reps = list(pool.map(lambda r: self._new_replicate(r, keys[r]), range(self.replicates)))
            w0 = reps[0].world
            chunks = chunk_weeks(w0, self.scenario.calendar.snapshot)
            n_t, P, V, R = len(chunks), w0.n_players, len(self.variants), self.replicates
            grade = np.full((R, V, n_t, P), np.nan, np.float32)
            truth = np.empty((R, n_t, P), np.float32)
            active = np.empty((R, n_t, P), bool)
            boards = np.empty((R, n_t, P), np.int32)
            extras: dict[str, np.ndarray] = {}
            fr18: dict[str, np.ndarray] = {}
            times = np.empty(n_t, "datetime64[D]")
            bar = None
            if self.progress:
                from tqdm import tqdm
                bar = tqdm(total=w0.n_weeks, unit="week", desc=f"simcore {self.scenario.name}",
                           dynamic_ncols=True)
            started = time.perf_counter()
            player_boards = 0
            pending = [pool.submit(self._pass_a, rep, *chunks[0]) for rep in reps]
            for c, (first, stop) in enumerate(chunks):
                t0 = time.perf_counter()
                done = [f.result() for f in pending]
                self.timing["pass_a"] += time.perf_counter() - t0
                if c + 1 < n_t:  # simulate the next chunk while this one is graded
                    pending = [pool.submit(self._pass_a, rep, *chunks[c + 1]) for rep in reps]
                t0 = time.perf_counter()
                day = w0.start_day + 7 * stop
                # each (replicate, variant) grades the chunk and reads its snapshot in one task, so the
                # variants' snapshots (NGS's grades, Elo's individual fit) run in parallel too
                graded = {(r, j): pool.submit(self._grade_chunk, reps[r], v, done[r], day)
                          for r in range(R) for j, v in enumerate(self.variants)}
                for (r, j), fut in graded.items():
                    traced, stats, grades_now, extras_now = fut.result()
                    if traced is not None:
                        self._record_trace(self.variants[j], done[r], traced)
                    if stats is not None:
                        for key, value in stats.items():
                            arr = fr18.setdefault(key, np.full((R, V, n_t), np.nan))
                            arr[r, j, c] = value
                    grade[r, j, c] = grades_now
                    for name, values in extras_now.items():
                        arr = extras.get(name)
                        if arr is None:  # int8 codes: 1 byte a player-snapshot at national scale
                            arr = extras[name] = np.full((R, V, n_t, P), -1, np.int8)
                        arr[r, j, c] = values
                self.timing["pass_b"] += time.perf_counter() - t0
                t0 = time.perf_counter()
                times[c] = np.datetime64(int(day), "D")
                for r, rep in enumerate(reps):
                    # rep.boards is touched only here: pass A of the next chunk may already be running
                    rep.boards += done[r].boards
                    truth[r, c] = strength_on(rep.world, day)
                    active[r, c] = active_on(rep.world, day)
                    boards[r, c] = rep.boards
                self.timing["snapshot"] += time.perf_counter() - t0
                player_boards += sum(ch.player_boards for ch in done)
                if bar is not None:
                    elapsed = time.perf_counter() - started
                    bar.set_postfix_str(f"{player_boards / max(elapsed, 1e-9) / 1e6:.1f} M player-boards/s")
                    bar.update(stop - first)
            if bar is not None:
                bar.close()
        self.elapsed = time.perf_counter() - started
        self.player_boards = player_boards
        if self.bundle_dir is not None:
            self._write_bundle(reps[0])
        return build_dataset(self.scenario, self.seed, self.variants, [r.world for r in reps], times, grade,
                             truth, active, boards, extras, fr18)

    def _record_trace(self, v: Variant, chunk: _Chunk, traced):
        kind, out = traced
        if kind == "card":
            card = chunk.card
            self.trace_rows.append((v.label, "card", card.player.copy(), card.day.copy(), out.copy()))
            return
        sc = chunk.scored
        sess = np.repeat(np.arange(sc.n_sessions), np.diff(sc.pair_start))
        self.trace_rows.append((v.label, "sessions", chunk.results.session_names[sess], sc.day[sess],
                                sc.pair_players.copy(), out.copy(), sc.order.copy(), sess))

    def trace_table(self, label: str) -> dict:
        """Rows the engine graded for variant ``label`` in replicate 0, like ``simcore grade``'s output."""
        parts = [t for t in self.trace_rows if t[0] == label]
        if not parts:
            raise ValueError(f"no trace for {label!r}: run with trace=True and that scheme")
        if parts[0][1] == "card":
            return {"player": np.concatenate([p[2] for p in parts]), "day": np.concatenate([p[3] for p in parts]),
                    "rows": np.concatenate([p[4] for p in parts])}
        cols = {"session": [], "day": [], "player": [], "grade": []}
        for _, _, names, days, players, out, order, sess in parts:
            rank = np.empty(len(order), np.int64)
            rank[order] = np.arange(len(order))
            idx = np.lexsort((np.arange(len(sess)), rank[sess]))  # sessions in processing order
            for e in idx:
                for k in range(2):
                    if not np.isnan(out[e, k]):
                        cols["session"].append(names[e])
                        cols["day"].append(days[e])
                        cols["player"].append(players[e, k])
                        cols["grade"].append(out[e, k])
        return {k: np.asarray(v) for k, v in cols.items()}

    def _write_bundle(self, rep: _Replicate) -> None:
        from simcore.io.bundle import write_bundle, write_card_play
        parts = rep.bundle_parts
        offs = np.cumsum([0] + [p.n_sessions for p in parts])
        cat = lambda f: np.concatenate([getattr(p, f) for p in parts])  # noqa: E731
        res = Results(
            session_names=cat("session_names"), session_day=cat("session_day"), session_club=cat("session_club"),
            session_event=cat("session_event"), session_scoring=cat("session_scoring"),
            session_winners=cat("session_winners"), session_kind=cat("session_kind"),
            session_movement=cat("session_movement"), session_boards=cat("session_boards"),
            trav_session=np.concatenate([p.trav_session + o for p, o in zip(parts, offs)]).astype(np.int32),
            trav_round=cat("trav_round"), trav_board=cat("trav_board"), trav_table=cat("trav_table"),
            trav_ns=cat("trav_ns"), trav_ew=cat("trav_ew"), trav_ns_score=cat("trav_ns_score"),
            team_session=np.concatenate([p.team_session + o for p, o in zip(parts, offs)]).astype(np.int32),
            team_players=cat("team_players").reshape(-1, 4), team_names=cat("team_names"),
            player_names=rep.player_names, player_member=rep.players.member,
            player_at_start=rep.players.at_start, player_initial_grade=rep.players.initial_grade,
            club_names=parts[0].club_names)
        write_bundle(res, self.bundle_dir)
        if rep.card_records:
            recs = rep.card_records
            write_card_play({"player": rep.player_names[np.concatenate([c.player for c in recs])],
                             "date": np.concatenate([c.day for c in recs]),
                             "boards": np.concatenate([c.boards for c in recs]),
                             "imps_lost": np.concatenate([c.imps_lost for c in recs])}, self.bundle_dir)

def run(scenario="default", schemes=ALL_SCHEMES, replicates=1, years=None, seed=0, snapshot=None,
        threads=None, progress=False, trace=False, bundle=None, model=None, session_stats=False):
    """Simulate ``scenario`` and grade it under every scheme variant; returns the Dataset.

    scenario: built-in name, TOML path or Scenario.  schemes: variants, e.g.
    ``"ngs,ngs(gain=2),ppi"`` or a list.  replicates: independent populations.
    years: overrides the scenario's calendar.  seed: the one seed of the run.
    snapshot: "weekly" or "monthly" (default: the scenario's).  threads:
    worker threads (default: all cores); the result does not depend on it.
    bundle: a folder to write replicate 0's results to (a results bundle).
    session_stats: also record FR18's variance decomposition terms per chunk
    (``metrics.fr18`` reads them).
    """
    engine = Engine(scenario, schemes, replicates, years, seed, snapshot, threads, trace, bundle, model, progress,
                    session_stats)
    return engine.run()
