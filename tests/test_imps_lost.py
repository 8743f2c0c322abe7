"""IMPs-lost rating (SPEC §1.4): the seed table, the script's quirks, the kernel
against tests/naive/imps_lost.py, the grade mapping, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from simcore.schemes import PlayerTable, make_scheme
from simcore.schemes import imps_lost as il

# "game over", Sep 2020 .. Aug 2023, one (boards, IMPs lost) record per month:
# the monthly records of the public script's Test(), whose final state is row
# 21 of seed 003's table.
GAME_OVER = [(93, 73), (95, 93), (284, 149), (86, 83), (110, 115), (183, 116), (115, 145), (244, 214),
             (83, 53), (12, 2), (61, 62), (16, 20), (20, 7), (30, 39), (34, 21), (165, 122), (148, 96),
             (50, 42), (85, 80), (208, 181), (32, 10), (24, 5), (13, 1), (36, 42), (52, 18), (13, 14),
             (23, 7), (32, 23), (23, 15)]


def replay(records, params=None, n_players=None):
    """records: (player, boards, imps_lost); returns (state, out_rows)."""
    params = params or il.Params()
    player = np.array([r[0] for r in records], np.int32)
    n = int(player.max()) + 1 if n_players is None else n_players
    state = il.new_state(n, params)
    out = np.empty((len(records), 5))
    il.apply_card_play(state, player, np.arange(len(records), dtype=np.int32) + 18500,
                       np.array([r[1] for r in records], np.int32), np.array([r[2] for r in records], float),
                       out, params)
    return state, out


def test_game_over_reproduces_the_seed_table():
    state, out = replay([(0, h, i) for h, i in GAME_OVER])
    rating, boards_left, imps_left, k, batches = out[-1]
    assert rating == pytest.approx(2659.65157376, abs=1e-8)  # the table prints 12 significant digits
    assert boards_left == 5
    assert imps_left == pytest.approx(3.26086956522, abs=1e-11)
    assert (k, batches) == (16, 198)
    assert state.reached[0] and state.records[0] == len(GAME_OVER)


def test_game_over_depends_on_the_quirks():
    # the fixed carry gives another final state on the same records
    _, out = replay([(0, h, i) for h, i in GAME_OVER], il.Params(carry="fixed"))
    assert abs(out[-1, 0] - 2659.65157376) > 1e-3


def test_stale_carry_after_an_exact_fill_up():
    # 23 boards leave 11 carried; 13 boards fill 1 and make exactly one more batch
    state, out = replay([(0, 23, 23.0), (0, 13, 0.0)])
    assert out[0, 1:3].tolist() == [11, 11.0]
    assert out[1, 4] == 3 and out[1, 1:3].tolist() == [11, 11.0]  # the old carry stays
    _, fixed = replay([(0, 23, 23.0), (0, 13, 0.0)], il.Params(carry="fixed"))
    assert fixed[1, 4] == 3 and fixed[1, 1:3].tolist() == [0, 0.0]


def test_short_period_still_completes_a_batch():
    # 9 carried need 3 more; a period of 2 boards still rates a batch
    _, out = replay([(0, 21, 21.0), (0, 2, 4.0)])
    assert out[0, 4] == 1 and out[0, 1] == 9
    r0 = out[0, 0]
    expected = r0 + 48 * ((3400 - r0) / 1000 - (9.0 + 3 * 2.0) / 12)
    assert out[1, 4] == 2 and out[1, 0] == expected and out[1, 1:3].tolist() == [9, 9.0]
    _, fixed = replay([(0, 21, 21.0), (0, 2, 4.0)], il.Params(carry="fixed"))
    assert fixed[1, 4] == 1 and fixed[1, 0] == r0 and fixed[1, 1:3].tolist() == [11, 13.0]


def test_zero_boards_change_nothing():
    _, out = replay([(0, 17, 8.0), (0, 0, 5.0)])
    np.testing.assert_array_equal(out[0], out[1])


def test_one_batch_formula_and_initial_state():
    _, out = replay([(0, 12, 6.0)])
    assert out[0].tolist() == [2200 + 48 * ((3400 - 2200) / 1000 - 6.0 / 12), 0, 0.0, 48, 1]


@pytest.mark.parametrize("imps_per_board,k_after", [(1.5, 24), (0.1, 16)])
def test_k_is_48_through_batch_31(imps_per_board, k_after):
    # the script's k changes after the 31st batch (SPEC says "the first 30 batches")
    _, out = replay([(0, 12, 12 * imps_per_board)] * 32)
    assert out[29, 3] == 48 and out[30, 4] == 31 and out[30, 3] == k_after
    assert out[31, 0] - out[30, 0] == pytest.approx(k_after * ((3400 - out[30, 0]) / 1000 - imps_per_board))
    assert out[30, 0] - out[29, 0] == pytest.approx(48 * ((3400 - out[29, 0]) / 1000 - imps_per_board))


def test_reaching_2500_once_is_enough():
    # climb above 2500, then lose heavily: k stays 16
    state, out = replay([(0, 12 * 40, 0.0), (0, 12 * 20, 12 * 20 * 3.0)])
    assert out[0, 0] >= 2500 and out[1, 0] < 2500 and out[1, 3] == 16 and state.reached[0]


def test_players_are_independent_and_records_in_input_order():
    records = [(1, 30, 20.0), (0, 7, 1.0), (1, 5, 2.0), (0, 9, 9.0)]
    _, out = replay(records)
    _, alone0 = replay([(0, 7, 1.0), (0, 9, 9.0)])
    _, alone1 = replay([(0, 30, 20.0), (0, 5, 2.0)])
    np.testing.assert_array_equal(out[[1, 3]], alone0)
    np.testing.assert_array_equal(out[[0, 2]], alone1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 60), st.floats(0, 4)), min_size=1, max_size=40),
       st.sampled_from(["script", "fixed"]), st.integers(1, 20), st.integers(0, 6), st.booleans())
def test_kernel_matches_reference(raw, carry, batch, initial_batches, integer_imps):
    records = [(q, b, float(round(x * b)) if integer_imps else x * b) for q, b, x in raw]
    params = il.Params(carry=carry, batch=batch, initial_batches=initial_batches, reached_rating=2300.0)
    state, out = replay(records, params, n_players=4)
    rows, players = naive.imps_lost_replay(records, params)
    np.testing.assert_array_equal(out, np.array(rows, float))
    for q, who in players.items():
        assert (state.rating[q], state.boards_left[q], state.imps_left[q], state.k[q], state.batches[q],
                state.reached[q]) == (who.rating, who.carry_boards, who.carry_imps, who.k, who.batches,
                                      who.ever_reached)


def test_grades_map_ratings_by_the_stored_line():
    params = il.Params()
    r = np.array([1500.0, 2200.0, 2600.0])
    np.testing.assert_allclose(il.rating_to_grade(r, params), params.grade_at + (r - 2200) / params.rating_per_grade,
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(il.grade_to_rating(il.rating_to_grade(r, params), params), r, rtol=0, atol=1e-9)
    scheme = il.ImpsLostScheme()
    state = scheme.new_state(PlayerTable(np.ones(3, bool), np.ones(3, bool), np.full(3, np.nan)))
    out = np.empty((1, 5))
    scheme.apply(state, il.CardPlay(np.array([1]), np.array([18500]), np.array([24]), np.array([12.0])), out)
    g = scheme.grades(state, 18500)
    assert np.isnan(g[[0, 2]]).all()
    assert g[1] == pytest.approx(params.grade_at + (out[0, 0] - 2200) / params.rating_per_grade)


def test_fit_grade_map_recovers_a_line_and_refuses_bad_data():
    rng = np.random.default_rng(3)
    rating = rng.normal(2200, 300, 400)
    truth = 48.0 + (rating - 2200) / 80.0 + rng.normal(0, 0.01, 400)
    at, per = il.fit_grade_map(rating, truth)
    assert at == pytest.approx(48.0, abs=0.01) and per == pytest.approx(80.0, rel=0.01)
    with pytest.raises(ValueError, match="at least 3 finite pairs"):
        il.fit_grade_map([2200.0, 2200.0, 2200.0], [50.0, 51.0, 52.0])
    with pytest.raises(ValueError, match="falls as the rating rises"):
        il.fit_grade_map(rating, -truth)


def test_refitting_reproduces_the_stored_map():
    """The stored defaults are what ``python3 -m simcore.engine.imps_lost_fit`` prints (3 decimals)."""
    from simcore.engine.imps_lost_fit import fit
    res = fit()
    p = il.Params()
    assert round(res["grade_at"], 3) == p.grade_at
    assert round(res["rating_per_grade"], 3) == p.rating_per_grade


# --- bad input --------------------------------------------------------------------------

def bad(**change):
    cols = dict(player=np.array([0, 1, 0]), day=np.array([1, 2, 3]), boards=np.array([12, 5, 7]),
                imps_lost=np.array([3.0, 1.0, 2.0]))
    cols.update(change)
    state = il.new_state(2)
    il.apply_card_play(state, cols["player"], cols["day"], cols["boards"], cols["imps_lost"],
                       np.empty((len(cols["player"]), 5)))


@pytest.mark.parametrize("change,message", [
    (dict(boards=np.array([12, -2, 7])), "record 1 field boards is -2; boards must be >= 0"),
    (dict(boards=np.array([12, 5.5, 7])), "record 1 field boards is 5.5; it must be an integer"),
    (dict(imps_lost=np.array([3.0, 1.0, -0.5])), r"record 2 field imps_lost is -0.5; IMPs lost must be"),
    (dict(imps_lost=np.array([np.nan, 1.0, 2.0])), "record 0 field imps_lost is nan"),
    (dict(player=np.array([0, 2, 0])), r"record 1 field player is 2; player ids are 0\.\.1"),
    (dict(day=np.array([1, 2])), "day has 2 records, player has 3"),
])
def test_bad_records(change, message):
    with pytest.raises(ValueError, match=message):
        bad(**change)


def test_bad_out_rows():
    with pytest.raises(ValueError, match=r"out_rows must be float64 of shape \(1, 5\)"):
        il.apply_card_play(il.new_state(1), [0], [1], [12], [1.0], np.empty((1, 4)))


def test_scored_sessions_are_refused():
    scheme = il.ImpsLostScheme()
    with pytest.raises(ValueError, match="imps-lost grades card-play records"):
        scheme.apply(il.new_state(1), object(), np.empty((0, 5)))


@pytest.mark.parametrize("overrides,message", [
    ({"carry": "none"}, "carry='none' is not one of script, fixed"),
    ({"batch": "0"}, "batch='0' is below its minimum 1"),
    ({"k_initial": "4.5"}, "k_initial='4.5' is not a valid int"),
])
def test_bad_parameters(overrides, message):
    with pytest.raises(ValueError, match=message):
        make_scheme("imps-lost", overrides)
