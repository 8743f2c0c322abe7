"""The fused floor kernel of simcore bench against its plain-Python twin."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from naive import floor as naive
from simcore.bench import floor


@settings(max_examples=6, deadline=None)
@given(players=st.integers(52, 130), seed=st.integers(0, 2**31), sessions=st.integers(1, 2),
       start=st.floats(35.0, 65.0), boards_before=st.integers(0, 400))
def test_floor_matches_its_naive_twin(players, seed, sessions, start, boards_before):
    pool, vul, strength, alpha, sigma, key = floor.floor_inputs(players, seed)
    args = (pool.scores, pool.thresholds, pool.n_deals, vul, strength, alpha, sigma, key, sessions)
    ppi_a, k_a = np.full(players, start), np.full(players, boards_before, np.int64)
    ppi_b, k_b = ppi_a.copy(), k_a.copy()
    check_a = floor.play_floor_sessions(*args, ppi_a, k_a)
    check_b = naive.play_floor_sessions(*args, ppi_b, k_b)
    assert check_a == check_b
    np.testing.assert_array_equal(k_a, k_b)
    np.testing.assert_allclose(ppi_a, ppi_b, rtol=0, atol=1e-12)
    assert k_a.sum() - k_b.sum() == 0 and k_a.sum() == players * boards_before + sessions * floor.PLAYER_BOARDS_PER_SESSION


def test_every_player_board_is_counted_once():
    pool, vul, strength, alpha, sigma, key = floor.floor_inputs(52, 1)
    # established players (m = 600 for all: no one can fall below 46 in 26 boards from 50)
    ppi, k = np.full(52, 50.0), np.full(52, 1000, np.int64)
    floor.play_floor_sessions(pool.scores, pool.thresholds, pool.n_deals, vul, strength, alpha, sigma, key, 1, ppi, k)
    assert (k == 1000 + floor.BOARDS).all()          # 52 players, each plays all 26 boards
    assert abs(ppi.mean() - 50.0) < 1e-9             # with one m for all four, a table's changes sum to zero
    assert ppi.std() > 0.1
