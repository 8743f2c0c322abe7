"""PPI (SPEC §1.1): worked examples, rules, the kernel against tests/naive/ppi.py, bad input."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from handmade import day, handmade
from simcore.results import days_to_months
from simcore.schemes import PlayerTable, make_scheme
from simcore.schemes import ppi

RULE = ppi.Params().m_rule()


def players(n, member=None, initial=None):
    member = np.ones(n, bool) if member is None else np.asarray(member, bool)
    initial = np.full(n, np.nan) if initial is None else np.asarray(initial, float)
    return PlayerTable(member, np.zeros(n, bool), initial)


def run(scheme, state, scored):
    out = np.empty((len(scored.pair_players), 2))
    scheme.apply(state, scored, out)
    return out


def one_table(ns_mp, boards=1, d=day("2024-03-05"), scoring="mp"):
    """Players 0,1 (NS) against 2,3 (EW) on ``boards`` boards at ns_mp each."""
    return {"day": d, "scoring": scoring,
            "tables": [(1, b + 1, 1, (0, 1), (2, 3), ns_mp) for b in range(boards)]}


# --- worked examples --------------------------------------------------------------

@pytest.mark.parametrize("p,printed", [(40, 44.925), (50, 45.2583), (60, 45.5917)])
def test_seed002_session_forecast(p, printed):
    # a = 45, partner 49, opponents 53 and 56.5, m = 600, 20 boards at p
    assert ppi.session_forecast(45, 49, 53, 56.5, p, 20, 600) == pytest.approx(printed, abs=5e-5)
    assert ppi.break_even(45, 49, 53, 56.5) == pytest.approx(42.25)


@pytest.mark.parametrize("p,exact", [(40, 44.92559), (50, 45.25630), (60, 45.58701)])
def test_seed002_board_by_board(p, exact):
    path = ppi.board_by_board(45, 49, 53, 56.5, [p] * 20, m=600)
    assert path[-1] == pytest.approx(exact, abs=5e-6)
    # every step is the formula on the previous value
    prev = np.concatenate([[45.0], path[:-1]])
    np.testing.assert_allclose(path, prev + (p - ((prev + 49 - 53 - 56.5) / 2 + 50)) / 600, rtol=0, atol=1e-12)


def test_seed002_example_ignores_the_halving_rule():
    # the example uses m = 600 although a = 45 < 46; the rule halves it
    assert ppi.weighting_factor(45.0, 1000, 400, RULE) == 300.0
    assert ppi.weighting_factor(46.0, 1000, 400, RULE) == 600.0


@pytest.mark.parametrize("k,w,m,printed", [(1000, 400, 600, 0.0833), (1000, 100, 300, 0.1667),
                                           (100, 0, 100, 0.5)])
def test_one_top_with_four_equal_players(k, w, m, printed):
    scheme = ppi.PPIScheme()
    state = scheme.new_state(players(4))
    state.k[:] = k
    state.w[:] = w
    _, scored = handmade([one_table(100.0)], 4)
    out = run(scheme, state, scored)
    np.testing.assert_allclose(state.ppi - 50, [50 / m, 50 / m, -50 / m, -50 / m], rtol=0, atol=1e-12)
    assert state.ppi[0] - 50 == pytest.approx(printed, abs=5e-5)
    np.testing.assert_array_equal(out, [[state.ppi[0], state.ppi[1]], [state.ppi[2], state.ppi[3]]])


def test_newcomer_twelve_boards_at_40():
    path = ppi.board_by_board(50, 50, 50, 50, [40] * 12, m=None, k=0, w=0)
    assert path[-1] == pytest.approx(46.347, abs=5e-4)
    assert path.min() > 46  # so m stayed 30 (k < 30, never halved)
    np.testing.assert_allclose(path, ppi.board_by_board(50, 50, 50, 50, [40] * 12, m=30), rtol=0, atol=0)


def test_seed000_slip_formula_not_print():
    # 20 boards, a = 47, partners 48.5, opponents 49, p = 44, m = 600
    change = ppi.session_forecast(47, 48.5, 49, 49, 44, 20, 600) - 47
    assert change == pytest.approx(-0.1583, abs=5e-5)
    assert ppi.break_even(47, 48.5, 49, 49) == pytest.approx(48.75)
    # the seed's printed figures drop the /2
    assert abs(change - (-0.117)) > 0.03 and ppi.break_even(47, 48.5, 49, 49) != 47.5


# --- the m table ------------------------------------------------------------------

@pytest.mark.parametrize("a,k,w,m", [
    (50, 0, 0, 30), (50, 29, 999, 30), (50, 30, 0, 30), (50, 31, 0, 31), (50, 300, 0, 300),
    (50, 301, 0, 300), (50, 301, 149, 300), (50, 301, 150, 300), (50, 301, 200, 400), (50, 301, 300, 600),
    (50, 5000, 301, 600), (45.999, 5000, 301, 300), (46.0, 5000, 301, 600), (40, 10, 0, 15), (40, 100, 0, 50),
])
def test_weighting_factor_table(a, k, w, m):
    assert ppi.weighting_factor(float(a), k, w, RULE) == m
    assert naive.ppi_weighting_factor(a, k, w, ppi.Params()) == m


@settings(max_examples=300, deadline=None)
@given(st.floats(20, 80), st.integers(0, 2000), st.integers(0, 1000))
def test_weighting_factor_matches_reference(a, k, w):
    assert ppi.weighting_factor(a, k, w, RULE) == naive.ppi_weighting_factor(a, k, w, ppi.Params())


# --- rules --------------------------------------------------------------------------

def test_guest_at_table_counts_for_nobody_there():
    # table 1 has a guest (player 3); table 2 is all members
    sess = {"day": day("2024-03-05"), "tables": [(1, 1, 1, (0, 1), (2, 3), 70.0), (1, 1, 2, (4, 5), (6, 7), 70.0)]}
    _, scored = handmade([sess], 8)
    member = np.ones(8, bool)
    member[3] = False
    scheme = ppi.PPIScheme()
    state = scheme.new_state(players(8, member, initial=[55.0] * 3 + [np.nan] * 5))
    assert state.ppi[3] == 50.0  # guests start at 50
    run(scheme, state, scored)
    np.testing.assert_array_equal(state.ppi[:4], [55, 55, 55, 50])
    np.testing.assert_array_equal(state.k, [0, 0, 0, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(state.rated, np.ones(8))
    assert state.ppi[4] > 50 > state.ppi[6]
    # the variant lets the guest's own PPI move
    scheme = ppi.PPIScheme(ppi.Params(guests_self_update=True))
    state = scheme.new_state(players(8, member))
    run(scheme, state, scored)
    assert state.ppi[3] < 50 and state.k[3] == 1 and state.ppi[0] == 50 and state.k[0] == 0


def test_newcomers_start_at_50_and_explicit_grades_win():
    scheme = ppi.PPIScheme()
    state = scheme.new_state(players(3, [True, False, True], [np.nan, np.nan, 61.5]))
    np.testing.assert_array_equal(state.ppi, [50, 50, 61.5])
    state = ppi.PPIScheme(ppi.Params(initial_ppi=45, guest_ppi=40)).new_state(players(2, [True, False]))
    np.testing.assert_array_equal(state.ppi, [45, 40])


def test_only_mp_sessions_are_rated():
    _, scored = handmade([one_table(80.0, d=day("2024-03-05"), scoring="butler"),
                          one_table(80.0, d=day("2024-03-06"))], 4)
    scheme = ppi.PPIScheme()
    state = scheme.new_state(players(4))
    out = run(scheme, state, scored)
    assert np.isnan(out[:2]).all() and np.isfinite(out[2:]).all()
    assert state.k.tolist() == [1, 1, 1, 1] and state.rated.tolist() == [1, 1, 1, 1]


def test_boards_in_the_order_played():
    # players 0,1 meet 2,3 in round 1 then 4,5 in round 2; boards given out of order
    sess = {"day": day("2024-03-05"), "tables": [(2, 3, 1, (0, 1), (4, 5), 10.0), (1, 1, 1, (0, 1), (2, 3), 90.0),
                                                 (2, 4, 1, (0, 1), (4, 5), 30.0), (1, 2, 1, (0, 1), (2, 3), 60.0)]}
    _, scored = handmade([sess], 6)
    state = ppi.PPIScheme().new_state(players(6))
    run(ppi.PPIScheme(), state, scored)
    a = b = 50.0
    c = d = 50.0
    for p in (90.0, 60.0):
        a, c = (ppi.ppi_update(a, b, c, d, p, 30.0), ppi.ppi_update(c, d, a, b, 100 - p, 30.0))
        b, d = a, c
    c = d = 50.0
    for p in (10.0, 30.0):
        a, c = (ppi.ppi_update(a, b, c, d, p, 30.0), ppi.ppi_update(c, d, a, b, 100 - p, 30.0))
        b, d = a, c
    assert state.ppi[0] == a and state.ppi[1] == b and state.ppi[4] == c


def test_w_is_recounted_at_each_month_start():
    # 24 qualifying boards in January; w is 0 in January, 24 in February..April, 0 again in May
    sessions = [one_table(50.0, boards=24, d=day("2024-01-10"))]
    for iso in ("2024-02-01", "2024-04-30", "2024-05-01"):
        sessions.append(one_table(50.0, boards=1, d=day(iso)))
    _, scored = handmade(sessions, 4)
    scheme = ppi.PPIScheme()
    state = scheme.new_state(players(4))
    seen = []
    for s in range(len(sessions)):
        run(scheme, state, dataclasses.replace(scored, order=scored.order[s:s + 1]))
        seen.append(int(state.w[0]))
    assert seen == [0, 24, 25, 2]  # April also counts February's board; May drops January
    assert state.k[0] == 27


def test_primed_w_holds_for_the_first_month():
    scheme = ppi.PPIScheme()
    state = scheme.new_state(players(4))
    state.k[:] = 5000
    state.w[:] = 400
    _, scored = handmade([one_table(50.0, d=day("2024-01-10")), one_table(50.0, d=day("2024-02-10"))], 4)
    run(scheme, state, dataclasses.replace(scored, order=scored.order[:1]))
    assert state.w[0] == 400
    run(scheme, state, dataclasses.replace(scored, order=scored.order[1:]))
    assert state.w[0] == 1  # the January board only: nothing before the start is known


def test_shown_active_and_bands():
    p = ppi.Params()
    x = np.array([55.01, 55.0, 51.0, 50.99, 46.0, 45.99])
    assert [ppi.BANDS[c] for c in ppi.band(x, p)] == ["spade", "heart", "heart", "diamond", "diamond", "club"]
    assert [naive.ppi_band(v, p) for v in x] == ["spade", "heart", "heart", "diamond", "diamond", "club"]
    # 30 boards in January, 20 in March: 50 rated boards in Jan..Mar
    _, scored = handmade([one_table(50.0, 30, day("2024-01-15")), one_table(50.0, 20, day("2024-03-15"))], 4)
    scheme = ppi.PPIScheme()
    state = scheme.new_state(players(4))
    run(scheme, state, scored)
    march, april = scheme.extras(state, day("2024-03-31")), scheme.extras(state, day("2024-04-01"))
    assert march["active"].all() and not april["active"].any()
    assert march["shown"].all() and march["k"].tolist() == [50] * 4
    assert scheme.extras(state, day("2024-04-01"))["shown"].all()
    prev = ppi.PPIScheme(ppi.Params(active_current_month=False))
    assert prev.extras(state, day("2024-04-01"))["active"].all()
    assert not prev.extras(state, day("2024-03-31"))["active"].any()
    # 49 qualifying boards: not shown yet, NaN display
    state49 = scheme.new_state(players(4))
    run(scheme, state49, handmade([one_table(50.0, 49, day("2024-01-15"))], 4)[1])
    assert not scheme.extras(state49, day("2024-01-31"))["shown"].any()
    assert np.isnan(scheme.extras(state49, day("2024-01-31"))["display"]).all()


def test_grades_nan_before_first_board():
    scheme = ppi.PPIScheme()
    state = scheme.new_state(players(6))
    run(scheme, state, handmade([one_table(60.0)], 6)[1])
    g = scheme.grades(state, day("2024-03-05"))
    assert np.isfinite(g[:4]).all() and np.isnan(g[4:]).all()


# --- the kernel against the reference ------------------------------------------------

@st.composite
def ppi_world(draw):
    P = draw(st.integers(4, 11))
    member = draw(st.lists(st.sampled_from([True, True, True, False]), min_size=P, max_size=P))
    start = draw(st.lists(st.one_of(st.just(np.nan), st.floats(30, 70)), min_size=P, max_size=P))
    k0 = draw(st.lists(st.integers(0, 700), min_size=P, max_size=P))
    w0 = draw(st.lists(st.integers(0, 400), min_size=P, max_size=P))
    sessions, d = [], day("2023-12-20")
    for _ in range(draw(st.integers(1, 6))):
        d += draw(st.integers(0, 100))
        perm = draw(st.permutations(range(P)))
        pairs = [tuple(perm[2 * i:2 * i + 2]) for i in range(P // 2)]
        tables, board = [], 0
        for rnd in range(1, draw(st.integers(1, 3)) + 1):
            order = draw(st.permutations(range(len(pairs))))
            n_tables = draw(st.integers(1, len(pairs) // 2))
            n_boards = draw(st.integers(1, 3))
            for b in range(n_boards):
                for t in range(n_tables):
                    mp = draw(st.one_of(st.floats(0, 100), st.sampled_from([0.0, 25.0, 50.0, 100.0])))
                    tables.append((rnd, board + b + 1, t + 1, pairs[order[2 * t]], pairs[order[2 * t + 1]], mp))
            board += n_boards
        sessions.append({"day": d, "scoring": draw(st.sampled_from(["mp", "mp", "mp", "butler"])),
                         "tables": tables})
    params = ppi.Params(guests_self_update=draw(st.booleans()), active_current_month=draw(st.booleans()),
                        active_counts=draw(st.sampled_from(["rated", "qualifying"])))
    return P, member, start, k0, w0, sessions, params, d + draw(st.integers(0, 120))


@settings(max_examples=150, deadline=None)
@given(ppi_world(), st.integers(0, 6))
def test_kernel_matches_reference(world, split):
    P, member, start, k0, w0, sessions, params, query_day = world
    _, scored = handmade(sessions, P, member)
    scheme = ppi.PPIScheme(params)
    state = scheme.new_state(players(P, member, start))
    state.k[:] = k0
    state.w[:] = w0
    start_ppi = state.ppi.tolist()
    # in two calls, to check that the state carries over
    out = np.full((len(scored.pair_players), 2), np.nan)
    quiet = scheme.new_state(players(P, member, start))  # the same run without out_after (as the engine asks)
    quiet.k[:] = k0
    quiet.w[:] = w0
    for part in (scored.order[:split], scored.order[split:]):
        chunk = run(scheme, state, dataclasses.replace(scored, order=part))
        out = np.where(np.isnan(chunk), out, chunk)
        scheme.apply(quiet, dataclasses.replace(scored, order=part), None)
    for name in ("ppi", "k", "w", "rated", "k_start", "r_start", "month"):
        np.testing.assert_array_equal(getattr(quiet, name), getattr(state, name))
    ref = naive.ppi_rate(scored, member, start_ppi, k0, w0, params)
    ppi_ref, k_ref, w_ref, rated_ref, rated_month, qual_month, out_ref = ref
    np.testing.assert_array_equal(state.ppi, ppi_ref)
    np.testing.assert_array_equal(state.k, k_ref)
    np.testing.assert_array_equal(state.w, w_ref)
    np.testing.assert_array_equal(state.rated, rated_ref)
    np.testing.assert_array_equal(out, [r if r is not None else [np.nan, np.nan] for r in out_ref])
    month = int(days_to_months(np.array([query_day]))[0])
    extras = scheme.extras(state, query_day)
    by_month = rated_month if params.active_counts == "rated" else qual_month
    recent = [naive.ppi_recent_boards(by_month, q, month, params.active_current_month) for q in range(P)]
    np.testing.assert_array_equal(extras["active"], np.array(recent) >= params.active_boards)
    assert [ppi.BANDS[c] for c in extras["band"]] == [naive.ppi_band(x, params) for x in ppi_ref]
    np.testing.assert_array_equal(extras["shown"], np.array(k_ref) >= params.show_after)


@settings(max_examples=100, deadline=None)
@given(ppi_world(), st.data())
def test_travellers_check_kernel_agrees_with_the_numpy_checks(world, data):
    """``_travellers_ok`` lets through exactly the travellers the numpy checks accept: with it, ``_validate``
    raises the same error (or none) as with the numpy checks alone, for a chunk with one value changed."""
    P, member, start, k0, w0, sessions, params, _ = world
    _, scored = handmade(sessions, P, member)
    field = data.draw(st.sampled_from(["trav_ns_entry", "trav_ew_entry", "trav_ns_mp", "none"]))
    if field != "none" and len(scored.trav_ns_mp):
        col = getattr(scored, field).copy()
        value = data.draw(st.sampled_from([-1, 0, len(scored.pair_players) - 1, len(scored.pair_players)])
                          if field != "trav_ns_mp" else st.sampled_from([-0.5, 0.0, 100.0, 100.5, np.nan]))
        col[data.draw(st.integers(0, len(col) - 1))] = value
        setattr(scored, field, col)
    state = ppi.PPIScheme(params).new_state(players(P, member, start))

    def verdict():
        try:
            ppi._validate(state, scored, None)
        except ValueError as e:
            return str(e)
        return None

    fast = verdict()
    kernel = ppi._travellers_ok
    ppi._travellers_ok = lambda *args: False  # the numpy checks alone
    try:
        slow = verdict()
    finally:
        ppi._travellers_ok = kernel
    assert fast == slow


# --- bad input ------------------------------------------------------------------------

@pytest.fixture
def small():
    _, scored = handmade([one_table(60.0, 2, day("2024-03-05")), one_table(40.0, 2, day("2024-04-05"))], 4)
    scheme = ppi.PPIScheme()
    return scheme, scheme.new_state(players(4)), scored


@pytest.mark.parametrize("value", [100.5, -1.0, np.nan])
def test_bad_mp_percent(small, value):
    scheme, state, scored = small
    scored.trav_ns_mp[3] = value
    with pytest.raises(ValueError, match=r"trav_ns_mp row 3 is .*must be in 0\.\.100"):
        run(scheme, state, scored)


def test_bad_player_id(small):
    scheme, state, scored = small
    scored.pair_players[1, 1] = 4
    with pytest.raises(ValueError, match=r"pair_players row 1 is \[2, 4\]; player ids must be in 0\.\.3"):
        run(scheme, state, scored)


def test_bad_pair_entry(small):
    scheme, state, scored = small
    scored.trav_ew_entry[2] = 9
    with pytest.raises(ValueError, match="trav_ew_entry row 2 is 9; pair entries are 0..3"):
        run(scheme, state, scored)


def test_sessions_out_of_month_order(small):
    scheme, state, scored = small
    with pytest.raises(ValueError, match=r"session 0 is in month 24290 but comes after month 24291"):
        run(scheme, state, dataclasses.replace(scored, order=scored.order[::-1].copy()))
    run(scheme, state, scored)
    with pytest.raises(ValueError, match="session 0 is in month 24290 but comes after month 24291"):
        run(scheme, state, scored)  # the state is already in April


def test_bad_out_shape(small):
    scheme, state, scored = small
    with pytest.raises(ValueError, match=r"out_after must be float64 of shape \(4, 2\)"):
        scheme.apply(state, scored, np.empty((4, 3)))


def test_extras_before_last_month(small):
    scheme, state, scored = small
    run(scheme, state, scored)
    with pytest.raises(ValueError, match="month 24290, before the last rated month 24291"):
        scheme.extras(state, day("2024-03-31"))


@pytest.mark.parametrize("overrides,message", [
    ({"m_frequent": "abc"}, r"m_frequent='abc' is not a valid float"),
    ({"k_newcomer": "0"}, "k_newcomer='0' is below its minimum 1"),
    ({"active_counts": "all"}, "active_counts='all' is not one of rated, qualifying"),
    ({"nope": "1"}, "unknown parameter 'nope'"),
    ({"k_newcomer": "400"}, "k_newcomer=400 must not exceed k_established=300"),
    ({"w_low": "400"}, "w_low=400 must not exceed w_high=300"),
    ({"heart_from": "56"}, "band edges"),
])
def test_bad_parameters(overrides, message):
    with pytest.raises(ValueError, match=message):
        make_scheme("ppi", overrides)


def test_make_scheme_sets_parameters():
    scheme = make_scheme("ppi", {"m_frequent": "500", "guests_self_update": "true"})
    assert scheme.params.m_frequent == 500.0 and scheme.params.guests_self_update is True
