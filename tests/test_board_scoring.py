import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from simcore.scoring import imp_scale as imps_mod
from simcore import scoring

# realistic bridge scores: multiples of 10 with plenty of ties
score = st.integers(min_value=-250, max_value=250).map(lambda k: 10 * k)
boards = st.lists(score, min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-9000, max_value=9000, allow_nan=False))
def test_imps_matches_table(diff):
    assert imps_mod.imps(diff) == naive.imps(diff)


def test_imps_matches_table_at_every_whole_difference_and_edge():
    # whole differences as ints and floats; just below and at every edge; beyond the table; NaN
    whole = np.arange(-9000, 9001)
    edges = np.concatenate([imps_mod.IMP_BAND_LOWER_EDGES, -imps_mod.IMP_BAND_LOWER_EDGES])
    floats = np.concatenate([whole.astype(np.float64), edges, np.nextafter(edges, 0.0), [4000.5, 1e12, -np.inf, np.inf]])
    for diffs in (whole, floats):
        got = [imps_mod.imps(d) for d in diffs]
        assert got == [naive.imps(float(d)) for d in diffs]
    assert imps_mod.imps(np.nan) == 0


@pytest.mark.parametrize("diff,expected", [(0, 0), (10, 0), (15, 0), (20, 1), (40, 1), (50, 2),
                                           (420, 9), (430, 10), (-620, -12), (1430, 16),
                                           (3990, 23), (4000, 24), (7600, 24)])
def test_imps_known_values(diff, expected):
    assert imps_mod.imps(diff) == expected


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-200, max_value=200, allow_nan=False), st.integers(1, 40))
def test_victory_points_matches_reference(margin, boards_):
    v = imps_mod.victory_points(margin, boards_)
    assert v == pytest.approx(naive.victory_points(margin, boards_), abs=1e-12)
    assert v + imps_mod.victory_points(-margin, boards_) == pytest.approx(20.0)


def test_victory_points_shape():
    # draw, blitz at 15*sqrt(N), concave in the margin
    assert imps_mod.victory_points(0, 8) == 10.0
    assert imps_mod.victory_points(15 * np.sqrt(8), 8) == 20.0
    gains = np.diff([imps_mod.victory_points(m, 8) for m in range(0, 43)])  # blitz is 42.4 IMPs
    assert np.all(gains > 0) and np.all(np.diff(gains) <= 1e-12)


@settings(max_examples=300, deadline=None)
@given(boards, st.integers(1, 35), st.booleans())
def test_board_matchpoints_matches_reference(scores, expected, neuberg):
    out = np.empty(len(scores))
    scoring.board_matchpoints(np.array(scores, np.int32), expected, neuberg, out)
    np.testing.assert_allclose(out, naive.board_matchpoints(scores, expected, neuberg), rtol=0, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.lists(score, min_size=2, max_size=30))
def test_matchpoints_sum_to_half_the_tops(scores):
    out = np.empty(len(scores))
    scoring.board_matchpoints(np.array(scores, np.int32), 0, False, out)
    assert out.mean() == pytest.approx(50.0)


def test_neuberg_known_value():
    # board played 3 times in a 4-play session: a top (4 MPs of 4) becomes
    # (4+1)*4/3-1 = 5.667 MPs of 6, i.e. 94.44 %
    out = np.empty(3)
    scoring.board_matchpoints(np.array([420, 400, -50], np.int32), 4, True, out)
    np.testing.assert_allclose(out, [100 * (5 * 4 / 3 - 1) / 6, 50.0, 100 * (1 * 4 / 3 - 1) / 6])


@settings(max_examples=200, deadline=None)
@given(boards)
def test_board_cross_imps_matches_reference(scores):
    out = np.empty(len(scores))
    scoring.board_cross_imps(np.array(scores, np.int32), out)
    np.testing.assert_allclose(out, naive.board_cross_imps(scores), atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(boards, st.integers(0, 3))
def test_board_butler_matches_reference(scores, trim):
    out = np.empty(len(scores))
    scoring.board_butler(np.array(scores, np.int32), trim, out)
    np.testing.assert_allclose(out, naive.board_butler(scores, trim), atol=0)


def test_butler_datum_drops_extremes():
    assert scoring.butler_datum(np.array([620, 170, 140, 140, -100], np.int32), 1) == pytest.approx(150.0)
    assert scoring.butler_datum(np.array([620, 170, 140, 140, -100], np.int32), 0) == pytest.approx(194.0)


@settings(max_examples=100, deadline=None)
@given(boards)
def test_board_aggregate_matches_reference(scores):
    out = np.empty(len(scores))
    scoring.board_aggregate(np.array(scores, np.int32), out)
    np.testing.assert_allclose(out, naive.board_aggregate(scores), atol=1e-9)
