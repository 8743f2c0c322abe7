import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from simcore import movements as mv
from simcore.bridge.model import BridgeModelParams, build_pool
from simcore.movements import howell, mitchell, online, swiss, teams
from simcore.results import KIND_HOWELL, KIND_MITCHELL, MIXED, MOVEMENT_KINDS
from simcore.rng import new_stream
from simcore.scoring import score_results


def meetings(s):
    return [tuple(sorted(x)) for x in zip(s.ns.tolist(), s.ew.tolist())]


def sets_of(s, who):
    return [b for n, e, b in zip(s.ns, s.ew, s.board_set) if who in (n, e)]


# --- Mitchell ------------------------------------------------------------------------

@pytest.mark.parametrize("tables", range(3, 31))
@pytest.mark.parametrize("even", ["skip", "relay"])
def test_mitchell_properties(tables, even):
    for n_pairs in (2 * tables, 2 * tables - 1):
        s = mitchell.mitchell(n_pairs, 2, even=even)
        assert len(set(meetings(s))) == len(s)  # each NS pair meets each EW pair at most once
        assert set(s.ns) <= set(range(tables)) and set(s.ew) >= set(range(tables, n_pairs))
        for r in range(1, s.n_rounds + 1):
            sets = s.board_set[s.round == r]
            if tables % 2 == 1 or even == "skip":
                assert len(set(sets)) == len(sets)  # every set once a round (no sharing)
            else:
                assert len(sets) - len(set(sets)) <= 1  # relay: tables 1 and T share one set
        if n_pairs == 2 * tables and (tables % 2 == 1 or even == "relay"):
            for ns in range(tables):  # full Mitchell: each board set once by each NS pair
                assert sorted(sets_of(s, ns)) == list(range(s.n_sets))
        assert s.winners == 2 and set(s.direction.tolist()) <= {0, 1}


@pytest.mark.parametrize("tables", [3, 6, 9, 14])
def test_mitchell_arrow_switch_is_one_winner(tables):
    s = mitchell.mitchell(2 * tables, 3, arrow_switch=1)
    assert s.winners == 1 and (s.direction == MIXED).all()
    assert (s.ns_boards > 0).all() and (s.ew_boards > 0).all()


# --- Howell -------------------------------------------------------------------------

@pytest.mark.parametrize("tables", range(3, howell.MAX_FULL_TABLES + 1))
def test_full_howell_properties(tables):
    for n_pairs in (2 * tables, 2 * tables - 1):
        s = howell.howell(n_pairs, 2)
        m = meetings(s)
        assert len(set(m)) == len(m)
        if n_pairs == 2 * tables:
            assert set(m) == set(itertools.combinations(range(n_pairs), 2))  # everyone meets everyone
        for p in range(n_pairs):
            assert len(set(sets_of(s, p))) == len(sets_of(s, p))  # no set twice
            if n_pairs == 2 * tables:
                assert len(sets_of(s, p)) == 2 * tables - 1
        if n_pairs == 2 * tables:
            assert (s.set_plays() == tables).all()
        shared = sum(len(s.board_set[s.round == r]) - len(set(s.board_set[s.round == r]))
                     for r in range(1, s.n_rounds + 1))
        assert shared == 0 or tables == 3  # only 3 tables (no Room square of side 5) share a set
        assert s.winners == 1 and s.kind == KIND_HOWELL


@pytest.mark.parametrize("tables", range(3, 21))
def test_shortened_howell_properties(tables):
    for n_pairs in (2 * tables, 2 * tables - 1):
        for rounds in sorted({2, min(2 * tables - 1, 9), 2 * tables - 2}):
            s = howell.howell(n_pairs, 3, rounds=rounds)
            m = meetings(s)
            assert len(set(m)) == len(m) and s.n_rounds == rounds
            for p in range(n_pairs):
                assert len(set(sets_of(s, p))) == len(sets_of(s, p))
            if n_pairs == 2 * tables:
                plays = s.set_plays()
                assert plays.max() - plays.min() <= 3
            assert s.winners == 1


@pytest.mark.parametrize("n", sorted(howell._STARTER_ADDERS))
def test_stored_starter_adders_are_starters_and_adders(n):
    """Every stored (starter, adder) meets the definition: the starter's pairs cover 1..n-1 with every
    difference ±d once; the adder's sets are distinct and {s_0} ∪ {s_i − a_i, s_i − b_i} is Z_n."""
    starter, adder = howell.starter_adder(n)
    assert sorted(x for p in starter for x in p) == list(range(1, n))
    assert sorted(min((a - b) % n, (b - a) % n) for a, b in starter) == list(range(1, (n + 1) // 2))
    assert len(adder) == len(starter) + 1 and len(set(adder)) == len(adder)
    values = [adder[0]] + [(s - x) % n for s, p in zip(adder[1:], starter) for x in p]
    assert sorted(values) == list(range(n))


@pytest.mark.parametrize("n", [n for n in sorted(howell._STARTER_ADDERS) if n <= 25])
def test_stored_starter_adders_are_what_the_search_finds(n):
    """The table is the search's output (the larger ones cost up to 0.5 s of search each: checked above)."""
    assert howell.starter_adder(n) == howell.search_starter_adder(n)


@pytest.mark.parametrize("tables", range(3, 21))
def test_balanced_rounds_matches_reference(tables):
    rnd, _, _, _, bset = howell.full_howell(tables)
    n = 2 * tables - 1
    plays = np.zeros((n, n), np.int64)
    np.add.at(plays, (rnd, bset), 1)
    for keep in range(2, n):
        assert howell.balanced_rounds(rnd, bset, n, keep).tolist() == naive.movements.balanced_rounds(
            plays.tolist(), keep)


# --- teams --------------------------------------------------------------------------

@pytest.mark.parametrize("n_teams", range(3, 41))
def test_multiple_teams_properties(n_teams):
    s = teams.multiple_teams(n_teams, 4)
    # both tables of a match play the same set; pair one NS, pair two EW
    assert (s.ns_pair == 0).all() and (s.ew_pair == 1).all()
    matches = {}
    for r, t, a, b, bs in zip(s.round, s.table, s.ns, s.ew, s.board_set):
        matches.setdefault((r, (t + 1) // 2), []).append((a, b, bs))
    for rows in matches.values():
        (a1, b1, s1), (a2, b2, s2) = rows
        assert (a1, b1) == (b2, a2) and s1 == s2
    pairs = [tuple(sorted((rows[0][0], rows[0][1]))) for rows in matches.values()]
    assert len(set(pairs)) == len(pairs)
    assert set(pairs) == set(itertools.combinations(range(n_teams), 2))  # full round robin
    for team in range(n_teams):
        sets = [rows[0][2] for rows in matches.values() if team in rows[0][:2]]
        assert len(set(sets)) == len(sets)


# --- Swiss --------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(st.integers(4, 40), st.integers(0, 2**32 - 1), st.floats(0, 0.6))
def test_swiss_pairing_kernel_matches_reference(n, seed, density):
    rng = np.random.default_rng(seed)
    played = np.triu(rng.random((n, n)) < density, 1)
    played = played | played.T
    had_bye = rng.random(n) < 0.3
    order = rng.permutation(n).astype(np.int64)
    a, b = np.empty(n // 2, np.int64), np.empty(n // 2, np.int64)
    bye = swiss.swiss_pair_round(order, played, had_bye, a, b)
    ref, ref_bye = naive.swiss_pair_round(order, played.tolist(), had_bye.tolist())
    assert bye == ref_bye
    if ref is not None:
        assert list(zip(a.tolist(), b.tolist())) == ref
        assert not played[a, b].any()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 10.0, 10.5, 20.0, 33.25, 100.0]), min_size=1, max_size=40))
def test_standings_order_matches_reference(points):
    """Insertion by points, ties by entrant number: the stable sort play's Swiss rounds used before."""
    pts = np.array(points)
    order = np.empty(len(pts), np.int64)
    swiss.standings_order(pts, order)
    assert order.tolist() == naive.standings_order(points)
    assert order.tolist() == np.argsort(-pts, kind="mergesort").tolist()


@pytest.mark.parametrize("n", [6, 7, 12, 25, 40, 60])
def test_swiss_pairs_never_repeat(n):
    rng = np.random.default_rng(n)
    rounds = min(7, n - 1 - (n % 2 == 0))
    s = swiss.swiss_pairs(n, 4, rounds=rounds, results=lambda r, a, b: rng.normal(0, 12, len(a)))
    m = meetings(s)
    assert len(set(m)) == len(m) and s.n_rounds == rounds
    for r in range(1, rounds + 1):
        seated = np.concatenate([s.ns[s.round == r], s.ew[s.round == r]])
        assert len(set(seated.tolist())) == len(seated) == n - n % 2
        assert len(set(s.board_set[s.round == r].tolist())) == 1  # the round's boards everywhere


@pytest.mark.parametrize("kind", ["swiss_pairs", "swiss_teams"])
def test_swiss_every_supported_size(kind):
    """4..400 entrants: every round seats everyone but at most one bye, no pairing repeats."""
    rng = np.random.default_rng(7)
    make = swiss.swiss_pairs if kind == "swiss_pairs" else swiss.swiss_teams
    for n in range(4, 401):
        rounds = min(7, n - 1 if n % 2 == 0 else n)
        s = make(n, 3, rounds=rounds, results=lambda r, a, b: rng.normal(0, 10, len(a)))
        m = list(zip(s.ns.tolist(), s.ew.tolist()))
        if kind == "swiss_teams":
            m = m[::2]  # two tables a match
        m = [tuple(sorted(x)) for x in m]
        assert len(set(m)) == len(m) == rounds * (n // 2), n
        if kind == "swiss_pairs":
            for r in range(1, rounds + 1):
                seated = np.concatenate([s.ns[s.round == r], s.ew[s.round == r]])
                assert len(set(seated.tolist())) == len(seated) == n - n % 2, n


def test_online_room_every_size_seats_each_player_once_a_round():
    for n in (8, 9, 10, 11, 37, 250, 5_000, 100_000):
        fixed = n // 8
        s = online.online_room(n, 2, rounds=3, fixed_pairs=fixed, seed=n)
        players = np.asarray(s.entrant_players)
        for r in range(1, 4):
            rows = s.round == r
            seated = players[np.concatenate([s.ns[rows], s.ew[rows]])].ravel()
            assert len(set(seated.tolist())) == len(seated) > n - 4, n  # fewer than a table sits out
        assert s.winners == 1


def test_swiss_seeded_first_round_is_top_half_v_bottom_half():
    s = swiss.swiss_pairs(8, 3, rounds=1, rating=np.arange(8)[::-1], results=lambda r, a, b: np.zeros(len(a)))
    assert sorted(meetings(s)) == [(0, 4), (1, 5), (2, 6), (3, 7)]


def test_swiss_teams_two_tables_a_match():
    rng = np.random.default_rng(1)
    s = swiss.swiss_teams(10, 4, rounds=5, results=lambda r, a, b: rng.normal(0, 20, len(a)))
    assert len(s) == 5 * 10 and (s.ns_pair == 0).all() and (s.ew_pair == 1).all()


# --- online -------------------------------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(st.integers(0, 60), st.integers(0, 10), st.integers(0, 2**31))
def test_online_seating_matches_reference(n_singles, n_fixed, seed):
    singles = np.arange(2 * n_fixed, 2 * n_fixed + n_singles, dtype=np.int64)
    fa = np.arange(0, 2 * n_fixed, 2, dtype=np.int64)
    cap = (n_singles + 2 * n_fixed) // 4 + 1
    out = [np.empty(cap, np.int64) for _ in range(4)]
    tables = online.online_seat_round(singles, fa, fa + 1, new_stream(np.uint64(seed), 1, 2), *out)
    ref = naive.online_seat_round(singles.tolist(), fa.tolist(), (fa + 1).tolist(), naive.SplitMix64(seed, 1, 2))
    assert [tuple(int(o[t]) for o in out) for t in range(tables)] == ref


def test_online_room_keeps_fixed_pairs_together():
    s = online.online_room(40, 2, rounds=6, fixed_pairs=5, seed=3)
    players = s.entrant_players
    for k in range(5):
        together = [tuple(p) for p in players if 2 * k in p]
        assert together == [(2 * k, 2 * k + 1)]


# --- bad arguments -------------------------------------------------------------------

@pytest.mark.parametrize("call,message", [
    (lambda: mitchell.mitchell(4, 3), r"number of pairs must be 5 to 60"),
    (lambda: mitchell.mitchell(12, 0), r"boards \(boards per round\) must be 1 to 36"),
    (lambda: mitchell.mitchell(12, 3, rounds=7), r"rounds of a 6-table Mitchell \(skip\) must be 1 to 5"),
    (lambda: howell.howell(24, 2), r"a full Howell is available for 3 to 10 tables"),
    (lambda: teams.multiple_teams(41, 4), r"number of teams must be 3 to 40"),
    (lambda: swiss.swiss_pairs(3, 4, rounds=1, results=lambda *a: 0), r"number of entrants must be 4 to 400"),
    (lambda: swiss.swiss_pairs(8, 4, rounds=8, results=lambda *a: 0), r"rounds of Swiss pairs for 8 entrants must be 1 to 7"),
    (lambda: mv.generate("carousel", 10, 2), r"unknown movement kind 'carousel'"),
])
def test_bad_arguments_say_what_is_allowed(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- end to end: one session of each movement through the engine's path, scored ----------------

@pytest.fixture(scope="module")
def model():
    p = BridgeModelParams()
    return p, build_pool(p, np.uint64(99), n_deals=512)


# (kind, scoring code, winners, entries): pairs for pair kinds, two pair entries a team for team kinds
_ONE_SESSION = {"mitchell": (0, 2, 20), "howell": (0, 1, 10), "swiss_pairs": (1, 1, 12),
                "multiple_teams": (4, 2, 16), "swiss_teams": (4, 2, 20), "online": (0, 1, 40)}


def _one_session_plan(kind):
    from simcore.movements.registry import BY_NAME
    from simcore.world import SessionPlan
    m = BY_NAME[kind]
    scoring, winners, n = _ONE_SESSION[kind]
    a = np.arange(0, 2 * n, 2, dtype=np.int32)
    b = a + 1
    if kind == "online":  # 32 players alone and 8 regular partnerships
        a = np.concatenate([np.arange(32), np.arange(32, 48, 2)]).astype(np.int32)
        b = np.concatenate([np.full(32, -1), np.arange(33, 48, 2)]).astype(np.int32)
    team = (np.arange(len(a)) // 2).astype(np.int32) if m.is_team else np.full(len(a), -1, np.int32)
    one = lambda v, dt: np.array([v], dt)  # noqa: E731
    return SessionPlan(day=one(19000, np.int32), venue=one(0, np.int32), event=one(0, np.int8),
                       kind=one(m.code, np.int8), scoring=one(scoring, np.int8), winners=one(winners, np.int8),
                       boards=one(24, np.int32), boards_per_round=one(2 if kind == "online" else 0, np.int32),
                       scored_on=one(19000, np.int32),
                       entry_start=np.array([0, len(a)], np.int64), a=a, b=b, ptype=np.zeros(len(a), np.int8),
                       bonus=np.zeros(len(a)), team=team)


@pytest.mark.parametrize("kind", MOVEMENT_KINDS)  # a new movement needs its row in _ONE_SESSION
def test_each_movement_plays_and_scores(model, kind):
    from types import SimpleNamespace
    from simcore.movements.registry import BY_NAME
    from simcore.simulate.chunk import PassA, play_plan
    p, pool = model
    plan = _one_session_plan(kind)
    P = int(max(plan.a.max(), plan.b.max())) + 1
    strength = np.random.default_rng(0).normal(50, 5, (1, P))
    players = SimpleNamespace(member=np.ones(P, bool), at_start=np.ones(P, bool), initial_grade=np.full(P, np.nan))
    setup = PassA(np.uint64(5), pool, p, 1.0, True)
    results, card = play_plan(plan, strength, np.zeros(1, np.int32), np.zeros(1, np.int64), setup, players,
                              np.array([f"p{i}" for i in range(P)], object), ["club"])
    results.check()
    assert results.session_kind[0] == BY_NAME[kind].code
    assert results.session_movement[0].startswith(kind + ":")
    seats = np.concatenate([results.trav_ns, results.trav_ew], axis=1)
    # every entered player plays, and sits once at every table-board of every round
    assert set(np.unique(seats)) == set(range(P))
    for r in np.unique(results.trav_round):
        for board in np.unique(results.trav_board[results.trav_round == r]):
            rows = (results.trav_round == r) & (results.trav_board == board)
            assert len(np.unique(seats[rows])) == 4 * rows.sum()
    scored = score_results(results)
    # match points are a zero-sum share on every board
    mp = scored.trav_ns_mp
    for board in np.unique(results.trav_board):
        rows = results.trav_board == board
        if rows.sum() > 1:
            assert mp[rows].mean() == pytest.approx(50.0)
    assert (len(scored.match_opp) > 0) == (BY_NAME[kind].is_match or BY_NAME[kind].is_team)
    # card play: one declarer per table-board, a player declares at most the boards its pair played
    boards = np.zeros(P, np.int64)
    np.add.at(boards, scored.pair_players.ravel(), np.repeat(scored.pair_boards, 2))
    assert np.all(card.boards <= boards) and card.boards.sum() == results.n_travellers


def test_movements_timing_script_lists_every_kind(capsys):
    from simcore.movements.__main__ import main
    from simcore.movements import SUPPORTED
    assert main(["--sessions", "3"]) == 0
    out = capsys.readouterr().out
    for kind in SUPPORTED:
        assert out.count(kind) == 2, kind  # once in the sizes, once in the timings


# --- the registry ------------------------------------------------------------------------

def test_registry_codes_are_stable():
    from simcore.movements import registry
    # codes are stored in Results, bundles and golden files: a renumbering must fail here
    assert registry.MOVEMENT_KINDS == ("mitchell", "howell", "swiss_pairs", "multiple_teams", "swiss_teams", "online")
    assert registry.MATCH_KINDS == (registry.KIND_SWISS_PAIRS, registry.KIND_SWISS_TEAMS)
    assert registry.TEAM_KINDS == (registry.KIND_MULTIPLE_TEAMS, registry.KIND_SWISS_TEAMS)
    assert registry.SOPP_MATCH_KINDS == registry.MATCH_KINDS


@pytest.mark.parametrize("name", MOVEMENT_KINDS)
def test_each_record_builds_its_own_kind(name):
    from simcore.movements.registry import BY_NAME
    m = BY_NAME[name]
    n = 44 if name == "online" else 10
    layout = mv.choose_layout(m.code, n, 24, m.winners)
    assert layout.code == m.code and layout.name == name
    opts = dict(layout.options)
    if m.is_match:
        opts["results"] = lambda r, a, b: np.zeros(len(a))
    s = mv.generate(name, n, layout.boards, **opts)
    assert s.kind == m.code and s.is_teams == m.is_team
    assert s.winners == m.winners  # the builder's default is the record's
    assert mv.SUPPORTED[name] == m.sizes


@pytest.mark.parametrize("kind,n,winners,expect", [
    ("mitchell", 7, 2, ("howell", 1)), ("mitchell", 8, 2, ("mitchell", 2)), ("mitchell", 8, 1, ("mitchell", 1)),
    ("howell", 40, 1, ("howell", 1)), ("howell", 41, 1, ("mitchell", 1)),
    ("multiple_teams", 40, 2, ("multiple_teams", 2)), ("multiple_teams", 41, 2, ("swiss_teams", 2)),
])
def test_layout_rules_hand_over_between_kinds(kind, n, winners, expect):
    from simcore.movements.registry import BY_NAME
    layout = mv.choose_layout(BY_NAME[kind].code, n, 24, winners)
    assert layout.name == expect[0]
    if layout.name != "swiss_teams":
        assert mv.layout_schedule(layout).winners == expect[1]


def test_unknown_kind_names_the_choices():
    with pytest.raises(ValueError, match="unknown movement kind 'rover'.*mitchell, howell"):
        mv.generate("rover", 10, 3)
    with pytest.raises(ValueError, match="unknown movement kind 9"):
        mv.choose_layout(9, 10, 24)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**64 - 1), st.integers(1, 3))
def test_seat_rooms_matches_reference(seed, key, n_rooms):
    from simcore.movements.seating import Rooms, room_seats, seat_rooms
    rng = np.random.default_rng(seed)
    rooms = []
    for _ in range(n_rooms):  # players alone and pairs that entered together (some listed twice), random sizes
        players = rng.permutation(200)
        n_single, n_fixed = int(rng.integers(0, 30)), int(rng.integers(0, 8))
        a = list(players[:n_single]) + list(players[n_single:n_single + 2 * n_fixed:2])
        b = [-1] * n_single + list(players[n_single + 1:n_single + 2 * n_fixed:2])
        if n_fixed and rng.random() < 0.3:
            a.append(b[-1])
            b.append(a[-2])
        bonus = [0.0] * n_single + rng.normal(0, 2, len(a) - n_single).tolist()
        rooms.append(dict(a=a, b=b, bonus=bonus, rounds=int(rng.integers(1, 5)), bpr=int(rng.integers(1, 4)),
                          index=int(rng.integers(0, 10**6))))
    start = np.cumsum([0] + [len(x["a"]) for x in rooms]).astype(np.int64)
    cat = lambda f, dt: np.array([v for x in rooms for v in x[f]], dt)  # noqa: E731
    packed = Rooms(np.array([x["index"] for x in rooms], np.int64), np.array([x["rounds"] for x in rooms], np.int64),
                   np.array([x["bpr"] for x in rooms], np.int64), start, cat("a", np.int64), cat("b", np.int64),
                   cat("bonus", np.float64))
    out = room_seats(packed)
    seat_rooms(np.uint64(key), packed, out)
    for o, x in enumerate(rooms):
        rows, pairs, bonus, rank = naive.seat_online_room(key, x["index"], [int(v) for v in x["a"]],
                                                         [int(v) for v in x["b"]], x["bonus"], x["rounds"], x["bpr"])
        r = slice(out.row_start[o], out.row_start[o + 1])
        got = list(zip(*(c[r].tolist() for c in (out.round, out.table, out.ns, out.ew, out.first_board,
                                                   out.n_boards))))
        assert got == rows
        p = slice(out.pair_start[o], out.pair_start[o + 1])
        assert list(zip(out.pair_a[p].tolist(), out.pair_b[p].tolist())) == [tuple(map(int, q)) for q in pairs]
        assert out.pair_bonus[p].tolist() == bonus
        assert out.rank[out.rank_start[o]:out.rank_start[o + 1]].tolist() == rank


def test_layout_store_grown_in_batches_packs_as_all_at_once():
    """The store appends each batch of new layouts to its packed arrays (``_Packed.extended``): the same
    arrays, dtypes and ids as packing every layout at once, whatever the batches (repeats included)."""
    from simcore.movements.registry import KIND_HOWELL, KIND_MITCHELL, KIND_MULTIPLE_TEAMS, KIND_SWISS_PAIRS
    from simcore.movements.seating import _layout_code, _LayoutStore, _Packed
    rng = np.random.default_rng(3)
    store, seen = _LayoutStore(), {}
    for _ in range(6):
        k = rng.choice([KIND_MITCHELL, KIND_HOWELL, KIND_SWISS_PAIRS, KIND_MULTIPLE_TEAMS], 4)
        codes = np.unique(_layout_code(k, rng.integers(6, 16, 4), rng.choice([24, 27], 4), rng.integers(1, 3, 4)))
        for c, i in zip(codes.tolist(), store.ids(codes).tolist()):
            assert seen.setdefault(c, i) == i  # a layout keeps its id
    grown = store.snapshot()
    assert sorted(seen.values()) == list(range(len(grown.seatings)))
    whole = _Packed.of(grown.seatings)
    for name in grown.rows._fields:
        a, b = getattr(grown.rows, name), getattr(whole.rows, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    for name in ("kind", "winners", "n_boards", "names", "swiss_rounds", "bpr"):
        a, b = getattr(grown, name), getattr(whole, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
