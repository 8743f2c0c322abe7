"""The play kernels against their plain-Python twin (tests/naive/simulate.py)."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from simcore.bridge.model import BridgeModelParams, build_pool
from simcore.simulate.play import (CardTotals, Deals, Entries, PlayModel, Rows, Sessions, SwissSessions, Travellers,
                                  play_sessions, play_swiss_sessions)

PARAMS = BridgeModelParams()


@pytest.fixture(scope="module")
def pool():
    return build_pool(PARAMS, np.uint64(77), n_deals=256)


def _random_sessions(rng, n_players):
    """1..4 sessions: random pairs of distinct players, random rows (any round, table, entries and boards);
    about one in four has no rows (a Swiss session among static ones: skipped, its neighbours' boards and
    players looked ahead past it)."""
    out = []
    for _ in range(rng.integers(1, 5)):
        n = int(rng.integers(2, 9))
        players = rng.permutation(n_players)[:2 * n]
        pairs = [(int(players[2 * i]), int(players[2 * i + 1])) for i in range(n)]
        boards = int(rng.integers(1, 13))
        rows = []
        for _ in range(rng.integers(1, 10) if rng.random() > 0.25 else 0):
            ns, ew = rng.choice(n, 2, replace=False)
            first = int(rng.integers(1, boards + 1))
            rows.append((int(rng.integers(1, 5)), int(rng.integers(1, 7)), int(ns), int(ew), first,
                         int(rng.integers(1, boards - first + 2))))
        out.append(dict(pairs=pairs, bonus=rng.normal(0, 1, n).tolist(), boards=boards, rows=rows,
                        week=int(rng.integers(0, 2)), index=int(rng.integers(0, 10**6))))
    return out


def _play_model(params, card_play):
    """``PlayModel`` of the bridge model ``params``: form sd 0.9, Butler trim 1."""
    return PlayModel(0.9, params.alpha, params.sigma_slope, params.sigma_floor, card_play, params.imps_lost_base,
                     params.imps_lost_slope, params.imps_lost_floor, params.dummy_share, 1)


def _empty_travellers(T):
    return Travellers(np.empty(T, np.int32), np.empty(T, np.int32), np.empty(T, np.int32),
                      np.empty((T, 2), np.int32), np.empty((T, 2), np.int32), np.empty(T, np.int32))


def _as_written(out, stored_at):
    """The travellers stored at ``stored_at`` (in written order), as the twin's tuples."""
    return [(int(out.round[t]), int(out.board[t]), int(out.table[t]), tuple(out.ns[t].tolist()),
             tuple(out.ew[t].tolist()), int(out.score[t])) for t in stored_at]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**64 - 1), st.booleans())
def test_play_sessions_matches_reference(pool, seed, key, card_play):
    _check_play_sessions(pool, seed, key, card_play, PARAMS)


@pytest.mark.parametrize("rates", [dict(imps_lost_base=0.0, imps_lost_slope=0.0, imps_lost_floor=0.0),
                                   dict(imps_lost_base=0.0, imps_lost_slope=0.2, imps_lost_floor=0.0),
                                   dict(imps_lost_base=40.0), dict(imps_lost_base=2300.0)])
def test_card_play_without_mistakes_and_beyond_one_poisson_chunk(pool, rates):
    """Declarers who never err (no Poisson draw at all), err often (past play's table of CDF_TERMS Poisson
    terms) or more than 400 times a board (the Poisson draw in two chunks) draw as ``draw_imps_lost`` does."""
    for seed in range(3):
        _check_play_sessions(pool, seed, 2**63 + seed, True, dataclasses.replace(PARAMS, **rates))


def _check_play_sessions(pool, seed, key, card_play, params):
    PARAMS = params
    rng = np.random.default_rng(seed)
    P = 40
    strength = rng.normal(50, 8, (2, P))
    sess = _random_sessions(rng, P)
    cat = lambda f, dt: np.array([x for s in sess for x in f(s)], dt)  # noqa: E731
    entry_start = np.cumsum([0] + [len(s["pairs"]) for s in sess]).astype(np.int64)
    per = [sum(r[5] for r in s["rows"]) for s in sess]
    trav_start = np.cumsum([0] + per).astype(np.int64)
    T = int(trav_start[-1])
    # the layouts in a random order (session s plays layout layout[s]), each with a random traveller order
    layout = rng.permutation(len(sess)).astype(np.int64)
    by_layout = [sess[s] for s in np.argsort(layout)]
    row_start = np.cumsum([0] + [len(s["rows"]) for s in by_layout]).astype(np.int64)
    rows = np.array([r for s in by_layout for r in s["rows"]], np.int64).reshape(-1, 6)
    ranks = [rng.permutation(sum(r[5] for r in s["rows"])) for s in by_layout]
    rank_start = np.cumsum([0] + [len(k) for k in ranks]).astype(np.int64)
    rank = np.concatenate([np.zeros(0, np.int64)] + ranks).astype(np.int64)
    sessions = Sessions(cat(lambda s: [s["index"]], np.int64), cat(lambda s: [s["week"]], np.int32),
                        cat(lambda s: [s["boards"]], np.int32), entry_start, trav_start[:-1], layout)
    entries = Entries(cat(lambda s: [a for a, _ in s["pairs"]], np.int32), cat(lambda s: [b for _, b in s["pairs"]],
                      np.int32), cat(lambda s: s["bonus"], np.float64), np.full(entry_start[-1], -1, np.int32))
    seats = Rows(row_start, rows[:, 0].astype(np.int32), rows[:, 1].astype(np.int32), rows[:, 2], rows[:, 3],
                 rows[:, 4].astype(np.int32), rows[:, 5], rank_start, rank)
    model = _play_model(PARAMS, card_play)
    out = _empty_travellers(T)
    offset = rng.normal(0, 4, P)
    card = CardTotals(np.zeros(P, np.int64), np.zeros(P), offset)
    play_sessions(np.uint64(key), sessions, entries, seats, strength, Deals(pool.scores, pool.thresholds,
                  pool.n_deals), model, out, card)
    want_boards, want_imps = np.zeros(P, np.int64), np.zeros(P)
    for s, x in enumerate(sess):
        if not x["rows"]:
            continue
        trav, totals = naive.play_session(key, x["index"], x["boards"], x["pairs"], x["bonus"], x["rows"],
                                          strength[x["week"]].tolist(), 0.9, PARAMS, pool.scores.tolist(),
                                          pool.thresholds.tolist(), pool.n_deals,
                                          offset.tolist() if card_play else None)
        lay = layout[s]  # written traveller i is stored at the session's first + its layout's rank of i
        stored_at = trav_start[s] + rank[rank_start[lay]:rank_start[lay + 1]]
        assert len(stored_at) == len(trav) and _as_written(out, stored_at) == trav
        for p, (n, lost) in totals.items():
            want_boards[p] += n
            want_imps[p] += lost
    if card_play:
        assert card.boards.tolist() == want_boards.tolist()
        assert card.boards.sum() == T  # one declarer per table-board
        np.testing.assert_allclose(card.imps, want_imps, rtol=0, atol=1e-12)
    else:
        assert not card.boards.any() and not card.imps.any()


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**64 - 1), st.booleans())
def test_play_swiss_sessions_matches_reference(pool, seed, key, card_play):
    """Swiss pairs (MP or IMPs) and Swiss teams sessions, rounds paired from the standings as they go."""
    rng = np.random.default_rng(seed)
    P = 60
    strength = rng.normal(50, 8, (2, P))
    sess = []
    for _ in range(rng.integers(1, 4)):
        teams = bool(rng.integers(0, 2))
        n = int(rng.integers(4, 9))  # entrants
        n_pairs = 2 * n if teams else n
        players = rng.permutation(P)[:2 * n_pairs]
        sess.append(dict(teams=teams, imps=teams or bool(rng.integers(0, 2)), n=n,
                         rounds=int(rng.integers(1, n + (n % 2))), bpr=int(rng.integers(1, 4)),
                         pairs=[(int(players[2 * i]), int(players[2 * i + 1])) for i in range(n_pairs)],
                         bonus=rng.normal(0, 1, n_pairs).tolist(),
                         team_of=[i // 2 for i in range(n_pairs)] if teams else [-1] * n_pairs,
                         week=int(rng.integers(0, 2)), index=int(rng.integers(0, 10**6))))
    cat = lambda f, dt: np.array([x for s in sess for x in f(s)], dt)  # noqa: E731
    entry_start = np.cumsum([0] + [len(s["pairs"]) for s in sess]).astype(np.int64)
    per = [s["rounds"] * s["bpr"] * (s["n"] // 2) * (2 if s["teams"] else 1) for s in sess]
    trav_start = np.cumsum([0] + per).astype(np.int64)
    T = int(trav_start[-1])
    sessions = SwissSessions(cat(lambda s: [s["index"]], np.int64), cat(lambda s: [s["week"]], np.int32),
                             cat(lambda s: [s["teams"]], np.bool_), cat(lambda s: [s["imps"]], np.bool_),
                             cat(lambda s: [s["rounds"]], np.int64), cat(lambda s: [s["bpr"]], np.int64),
                             entry_start, trav_start[:-1])
    entries = Entries(cat(lambda s: [a for a, _ in s["pairs"]], np.int32), cat(lambda s: [b for _, b in s["pairs"]],
                      np.int32), cat(lambda s: s["bonus"], np.float64), cat(lambda s: s["team_of"], np.int32))
    model = _play_model(PARAMS, card_play)
    out = _empty_travellers(T)
    offset = rng.normal(0, 4, P)
    card = CardTotals(np.zeros(P, np.int64), np.zeros(P), offset)
    play_swiss_sessions(np.uint64(key), sessions, entries, strength,
                        Deals(pool.scores, pool.thresholds, pool.n_deals), model, out, card)
    want_boards, want_imps = np.zeros(P, np.int64), np.zeros(P)
    for s, x in enumerate(sess):
        trav, totals = naive.play_swiss_session(key, x["index"], x["teams"], x["imps"], x["rounds"], x["bpr"],
                                                x["pairs"], x["bonus"], x["team_of"], strength[x["week"]].tolist(),
                                                0.9, PARAMS, pool.scores.tolist(), pool.thresholds.tolist(),
                                                pool.n_deals, 1, offset.tolist() if card_play else None)
        lo = trav_start[s]
        assert len(trav) == per[s]
        assert _as_written(out, range(lo, lo + len(trav))) == trav  # stored as written: (round, board, table)
        for p, (n, lost) in totals.items():
            want_boards[p] += n
            want_imps[p] += lost
    assert card.boards.tolist() == want_boards.tolist()
    assert card.imps.tolist() == want_imps.tolist()


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_chunk_tallies_match_reference(data):
    """score_chunk's bookkeeping kernel (boards per player, true pair strength) against its twin."""
    from simcore.simulate.chunk import _chunk_tallies
    P = data.draw(st.integers(2, 9))
    entries = data.draw(st.lists(st.integers(0, 4), max_size=6))  # pair entries of each session
    rows = data.draw(st.lists(st.integers(0, 30), min_size=len(entries), max_size=len(entries)))
    pair_start = np.concatenate([[0], np.cumsum(entries)]).astype(np.int64)
    trav_start = np.concatenate([[0], np.cumsum(rows)]).astype(np.int64)
    E = int(pair_start[-1])
    replaces = np.array(data.draw(st.lists(st.integers(-1, 3), min_size=len(entries), max_size=len(entries))),
                        np.int32)
    pair_players = np.array(data.draw(st.lists(st.tuples(st.integers(0, P - 1), st.integers(0, P - 1)),
                                               min_size=E, max_size=E)), np.int32).reshape(E, 2)
    pair_boards = np.array(data.draw(st.lists(st.integers(0, 40), min_size=E, max_size=E)), np.int32)
    strength = np.array(data.draw(st.lists(st.floats(-50, 150), min_size=P, max_size=P)))
    boards, true_pair = np.zeros(P, np.int64), np.empty(E)
    n = _chunk_tallies(pair_start, trav_start, replaces, pair_players, pair_boards, strength, boards, true_pair)
    want_boards, want_true, want_n = naive.chunk_tallies(pair_start, trav_start, replaces, pair_players,
                                                         pair_boards, strength, P)
    assert n == want_n
    np.testing.assert_array_equal(boards, want_boards)
    np.testing.assert_array_equal(true_pair, np.array(want_true, np.float64))
