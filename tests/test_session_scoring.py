import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from results_factory import build, random_session
from simcore import scoring
from simcore.results import EW, MIXED, NS

KIND_SCORINGS = [("mitchell", "mp"), ("mitchell", "butler"), ("mitchell", "cross_imps"),
                 ("mitchell", "aggregate"), ("howell", "mp"), ("howell", "cross_imps"),
                 ("swiss_pairs", "mp"), ("swiss_pairs", "butler"), ("multiple_teams", "teams_imps"),
                 ("swiss_teams", "teams_imps"), ("online", "mp")]
DIRS = {"NS": NS, "EW": EW, "MIXED": MIXED}


def rows_of(sess):
    rows = sorted(sess["rows"], key=lambda r: (r[0], r[1], r[2]))
    return [dict(round=r, board=b, table=t, ns=tuple(map(int, ns)), ew=tuple(map(int, ew)), score=sc)
            for r, b, t, ns, ew, sc in rows]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.sampled_from(KIND_SCORINGS), min_size=1, max_size=4),
       st.booleans(), st.integers(0, 2))
def test_score_results_matches_reference(seed, kinds, neuberg, trim):
    rng = np.random.default_rng(seed)
    sessions = [random_session(rng, k, sc) for k, sc in kinds]
    scored = scoring.score_results(build(sessions, 60), neuberg=neuberg, butler_trim=trim)
    for s, sess in enumerate(sessions):
        entries, mp, matches = naive.score_session(rows_of(sess), sess["scoring"], sess["winners"],
                                                   sess["kind"], neuberg, trim, sess.get("teams", ()))
        e0, e1 = scored.pair_start[s], scored.pair_start[s + 1]
        assert e1 - e0 == len(entries)
        for j, ref in enumerate(entries):
            e = e0 + j
            assert tuple(scored.pair_players[e]) == ref["players"]
            assert scored.pair_direction[e] == DIRS[ref["direction"]]
            assert scored.pair_group[e] == ref["group"]
            assert scored.pair_boards[e] == ref["boards"]
            assert scored.pair_score[e] == pytest.approx(ref["score"], abs=1e-9)
            assert scored.pair_beaten[e] == ref["beaten"] and scored.pair_n_ranked[e] == ref["n_ranked"]
            got = [dict(opp=scored.match_opp[m] - e0, mate=scored.match_mate[m] - e0 if scored.match_mate[m] >= 0 else -1,
                        opp_mate=scored.match_opp_mate[m] - e0 if scored.match_opp_mate[m] >= 0 else -1,
                        boards=scored.match_boards[m], score=pytest.approx(scored.match_score[m]),
                        result=scored.match_result[m])
                   for m in range(scored.match_start[e], scored.match_start[e + 1])]
            want = [dict(m, score=pytest.approx(m["score"])) for m in matches.get(j, [])]
            assert [dict(g, score=g["score"].expected) for g in got] == want
        t0, t1 = scored.trav_start[s], scored.trav_start[s + 1]
        np.testing.assert_allclose(scored.trav_ns_mp[t0:t1], mp, atol=1e-9)


def _session(rows, **kw):
    return dict(rows=[(r, b, t, ns, ew, sc) for r, b, t, ns, ew, sc in rows], **kw)


def test_three_table_mitchell_by_hand():
    # NS pairs (0,1) (2,3) (4,5); EW pairs (6,7) (8,9) (10,11); one board each round, 3 rounds.
    ns = [(0, 1), (2, 3), (4, 5)]
    ew = [(6, 7), (8, 9), (10, 11)]
    scores = {1: [420, 450, 420], 2: [-100, 140, 110], 3: [620, 620, 620]}
    rows = []
    for rnd in (1, 2, 3):
        for t in range(3):
            board = (t - rnd) % 3 + 1  # every table plays a different board each round
            rows.append((rnd, board, t + 1, ns[t], ew[(t + rnd) % 3], scores[board][(t + rnd) % 3]))
    scored = scoring.score_results(build([_session(rows, kind="mitchell", scoring="mp", winners=2)], 12))
    # board 1: 420 420 450 -> NS MPs 1,1,4 of 4 -> 25%, 25%, 100%; board 2: -100,140,110 -> 0, 100, 50;
    # board 3: flat -> 50 each.  Each NS pair plays each board once.
    got = {tuple(p): s for p, s in zip(scored.pair_players, scored.pair_score)}
    by_ns = {}
    for rnd in (1, 2, 3):
        for t in range(3):
            board = (t - rnd) % 3 + 1
            pct = {1: [25, 100, 25], 2: [0, 100, 50], 3: [50, 50, 50]}[board][(t + rnd) % 3]
            by_ns.setdefault(ns[t], []).append(pct)
    for pair, pcts in by_ns.items():
        assert got[pair] == pytest.approx(np.mean(pcts))
    groups = {tuple(p): g for p, g in zip(scored.pair_players, scored.pair_group)}
    assert all(groups[p] == 0 for p in ns) and all(groups[p] == 1 for p in ew)
    ns_mean = np.mean([got[p] for p in ns])
    assert ns_mean == pytest.approx(50.0)  # NS percentages average 50 in a full Mitchell


def test_neuberg_with_a_sit_out():
    # board 1 played 4 times, board 2 only 3 times (a sit-out); N = 4 for board 2
    rows = [(1, 1, 1, (0, 1), (2, 3), 420), (1, 1, 2, (4, 5), (6, 7), 400), (2, 1, 1, (8, 9), (10, 11), 170),
            (2, 1, 2, (12, 13), (14, 15), 140), (1, 2, 1, (0, 1), (6, 7), 620), (1, 2, 2, (4, 5), (2, 3), 170),
            (2, 2, 1, (8, 9), (14, 15), 170)]
    results = build([_session(rows, kind="mitchell", scoring="mp", winners=2)], 16)
    scored = scoring.score_results(results)
    board2 = scored.trav_ns_mp[results.trav_board == 2]
    assert len(board2) == 3
    # 620 beats both 170s: 4 MPs of 4 -> Neuberg (4+1)*4/3-1 = 5.667 of 6
    assert max(board2) == pytest.approx(100 * (5 * 4 / 3 - 1) / 6)
    # each 170 ties the other: 1 MP -> (1+1)*4/3-1 = 1.667 of 6
    assert sorted(board2)[0] == pytest.approx(100 * (2 * 4 / 3 - 1) / 6)


def test_two_team_match_team_imps():
    teams = [((0, 1), (2, 3)), ((4, 5), (6, 7))]
    rows = [(1, 1, 1, (0, 1), (6, 7), 620), (1, 1, 2, (4, 5), (2, 3), 170),   # team A +450 -> +10
            (1, 2, 1, (0, 1), (6, 7), -100), (1, 2, 2, (4, 5), (2, 3), 110)]  # team A -210 -> -5
    scored = scoring.score_results(build([_session(rows, kind="multiple_teams", scoring="teams_imps",
                                                   winners=2, teams=teams)], 8))
    team_a = {tuple(p): e for e, p in enumerate(scored.pair_players) if tuple(p) in ((0, 1), (2, 3))}
    for e in team_a.values():
        m = scored.match_start[e]
        assert scored.match_score[m] == 5 and scored.match_result[m] == 1.0 and scored.match_boards[m] == 2
        assert scored.pair_team[e] == 0
    e = team_a[(0, 1)]
    m = scored.match_start[e]
    assert tuple(scored.pair_players[scored.match_opp[m]]) == (6, 7)
    assert tuple(scored.pair_players[scored.match_mate[m]]) == (2, 3)
    assert tuple(scored.pair_players[scored.match_opp_mate[m]]) == (4, 5)
    # NGS grades team events by each pair's cross-IMPs against the field
    assert scored.pair_score[e] == pytest.approx(10 - 5)


def test_aggregate_session_is_points_above_the_board_mean():
    rows = [(1, 1, 1, (0, 1), (2, 3), 420), (1, 1, 2, (4, 5), (6, 7), -100), (1, 2, 1, (0, 1), (2, 3), 140),
            (1, 2, 2, (4, 5), (6, 7), 110)]
    scored = scoring.score_results(build([_session(rows, kind="mitchell", scoring="aggregate", winners=2)], 8))
    got = {tuple(p): s for p, s in zip(scored.pair_players, scored.pair_score)}
    assert got[(0, 1)] == pytest.approx(260 + 15) and got[(2, 3)] == pytest.approx(-275)


def test_two_winner_pair_changing_direction_is_named():
    rows = [(1, 1, 1, (0, 1), (2, 3), 420), (2, 2, 1, (2, 3), (0, 1), 420), (1, 1, 2, (4, 5), (6, 7), 400),
            (2, 2, 2, (4, 5), (6, 7), 400)]
    with pytest.raises(ValueError, match=r"session S0: pair P0 & P1 sat both NS and EW"):
        scoring.score_results(build([_session(rows, kind="mitchell", scoring="mp", winners=2)], 8))


def test_team_session_with_a_pair_in_no_team_is_named():
    rows = [(1, 1, 1, (0, 1), (6, 7), 620), (1, 1, 2, (4, 5), (2, 3), 170)]
    with pytest.raises(ValueError, match="session S0: its pairs, teams and tables"):
        scoring.score_results(build([_session(rows, kind="multiple_teams", scoring="teams_imps", winners=2,
                                              teams=[((0, 1), (2, 3))])], 8))


def test_partnership_ids_persist_and_grow():
    table = scoring.PartnershipTable(capacity=2)
    first = table.ids(np.array([[3, 1], [2, 5], [1, 3]]))
    assert list(first) == [0, 1, 0]
    many = np.array([[i, i + 1000] for i in range(5000)])
    ids = table.ids(many)
    assert list(ids) == list(range(2, 5002))
    assert list(table.ids(np.array([[5, 2], [1, 3]]))) == [1, 0]
    assert table.players[0].tolist() == [1, 3] and len(table) == 5002


# --- the session kernels against their plain-Python twins ---------------------

_pair = st.tuples(st.integers(0, 9), st.integers(0, 9)).filter(lambda p: p[0] != p[1])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.tuples(_pair, _pair, st.integers(1, 3)), max_size=40), min_size=1, max_size=5),
       st.integers(0, 10), st.integers(0, 40))
def test_session_entries_match_reference(sessions, n_players, room):
    # few players, so one player often sits in two pairs of a session (the hashed path); players with
    # ids from n_players up are hashed too; a row repeated (a table's next boards) is one run of the
    # same two pairs; sessions may have no rows.  room: the pair outputs' entries, often too few, so
    # the kernel stops before a session and is called again from there with more (as score_results)
    from simcore.scoring.session import Sessions, Travellers, TravOut, _pair_outputs, _score_session_pairs
    sessions = [[(ns, ew) for ns, ew, repeat in sess for _ in range(repeat)] for sess in sessions]
    rows = [r for sess in sessions for r in sess]
    T, S = len(rows), len(sessions)
    trav_ns = np.array([r[0] for r in rows], np.int32).reshape(-1, 2)
    trav_ew = np.array([r[1] for r in rows], np.int32).reshape(-1, 2)
    trav_session = np.repeat(np.arange(S), [len(sess) for sess in sessions]).astype(np.int32)
    board = np.ones(T, np.int32)  # one board each, scored as match points
    trav = Travellers(np.full(S + 1, -1, np.int64), np.ones(T, np.int32), board, trav_ns, trav_ew,
                      np.zeros(T, np.int32))
    sess = Sessions(np.full(S + 1, -1, np.int64), np.zeros(S, np.int8), np.ones(S, np.int8), np.zeros(S, np.int8),
                    np.zeros(S, np.int64))
    out = TravOut(np.empty(T), np.empty(T), np.full(T, -1, np.int32), np.full(T, -1, np.int32))
    pairs = _pair_outputs(room)
    s = _score_session_pairs(trav_session, n_players, 0, trav, sess, True, 1, pairs, out, np.zeros(S, np.int8))
    while s < S:
        assert sess.pair_start[s] + 2 * len(sessions[s]) > len(pairs.boards)  # it stopped for want of room
        pairs = _pair_outputs(len(pairs.boards) + 2 * len(sessions[s]), pairs, int(sess.pair_start[s]))
        s = _score_session_pairs(trav_session, n_players, s, trav, sess, True, 1, pairs, out, np.zeros(S, np.int8))
    want_ns, want_ew, want_start = naive.session_entries(sessions)
    assert out.ns_entry.tolist() == want_ns and out.ew_entry.tolist() == want_ew
    assert sess.pair_start.tolist() == want_start
    assert trav.start.tolist() == np.cumsum([0] + [len(sess) for sess in sessions]).tolist()
    players = {}  # each entry's two players, lower first, from the rows
    for e_ns, e_ew, (p_ns, p_ew) in zip(want_ns, want_ew, rows):
        players[e_ns], players[e_ew] = sorted(p_ns), sorted(p_ew)
    assert pairs.players[: want_start[-1]].tolist() == [players[e] for e in range(want_start[-1])]


def test_score_results_with_too_little_room_for_the_pairs(monkeypatch):
    # the pair outputs grown while scoring (room for 1 entry at first): every output as with room enough
    from simcore.scoring import session
    rng = np.random.default_rng(7)
    results = build([random_session(rng, k, sc) for k, sc in KIND_SCORINGS * 2], 60)
    want = scoring.score_results(results).arrays()
    monkeypatch.setattr(session, "_pair_room", lambda T: 1)
    got = scoring.score_results(results).arrays()
    assert got.keys() == want.keys()
    for k in want:
        assert np.array_equal(got[k], want[k]), k


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)).filter(lambda p: p[0] != p[1]),
                         max_size=80), min_size=1, max_size=5), st.integers(1, 40))
def test_partnership_ids_match_reference(batches, capacity):
    # a small table and up to ~1800 distinct pairs: it grows between and within calls
    table = scoring.PartnershipTable(capacity=capacity)
    got = [table.ids(np.array(batch, np.int32).reshape(-1, 2)).tolist() for batch in batches]
    want, players = naive.partnership_ids(batches)
    assert got == want
    assert table.players.tolist() == [list(p) for p in players]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=120), st.booleans(), st.integers(0, 5))
def test_group_by_board_matches_reference(boards, sparse, lead):
    # sparse: board numbers spread far apart, so the merge-sort path runs instead of counting
    from simcore.scoring.session import _group_by_board
    b = np.array([x * (100_003 if sparse else 1) for x in boards], np.int32)
    board = np.concatenate([np.full(lead, 7, np.int32), b])  # rows before t0 belong to another session
    score = (np.arange(len(board), dtype=np.int32) * 10 - 300)
    t0, t1 = lead, len(board)
    m = t1 - t0
    rows, scores, ends = np.empty(m, np.int64), np.empty(m, np.int32), np.empty(m, np.int64)
    counts = np.empty(4 * m + 66, np.int64)
    g = _group_by_board(board, score, t0, t1, counts, rows, scores, ends)
    want = naive.group_by_board(list(b))
    assert g == len(want)
    starts = [0] + list(ends[:g - 1])
    for (bn, positions), j, k in zip(want.items(), starts, ends[:g]):
        assert sorted(rows[j:k] - t0) == positions
        assert (board[rows[j:k]] == bn).all() and (scores[j:k] == score[rows[j:k]]).all()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12).map(lambda k: 12.5 * k), st.integers(0, 1)), min_size=1, max_size=300),
       st.integers(0, 4))
def test_rank_in_groups_matches_reference(entries, e0):
    # scores on a coarse grid so ties are common; entries before e0 belong to another session
    from simcore.scoring.session import _rank_in_groups
    score = np.array([-1.0] * e0 + [s for s, _ in entries])
    group = np.array([0] * e0 + [g for _, g in entries], np.int32)
    n = len(score)
    beaten, ranked = np.full(n, -9.0), np.full(n, -9, np.int32)
    _rank_in_groups(e0, n, score, group, beaten, ranked, np.empty(n, np.int64), np.empty(n, np.int64))
    want_beaten, want_ranked = naive.rank_in_groups([s for s, _ in entries], [g for _, g in entries])
    assert list(beaten[e0:]) == want_beaten and list(ranked[e0:]) == want_ranked
    assert (beaten[:e0] == -9.0).all()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=0, max_size=200))
def test_sort_by_key_is_a_stable_sort(keys):
    from simcore.scoring.session import _sort_by_key
    key = np.array(keys, np.int32)
    idx = np.arange(len(keys), dtype=np.int64)
    _sort_by_key(key, idx, np.empty(len(keys), np.int64))
    assert list(idx) == sorted(range(len(keys)), key=lambda i: keys[i])
