"""``apply_trusted`` (the engine's path, without the checks of ``scored``) grades exactly as ``apply``,
and the public ``apply`` still refuses what the trusted path would not look at."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from results_factory import build, random_session
from simcore.schemes import PlayerTable, make_scheme
from simcore.scoring import PartnershipTable, score_results

N_PLAYERS = 40
KINDS = [("mitchell", "mp"), ("mitchell", "butler"), ("howell", "mp"), ("howell", "cross_imps"),
         ("swiss_pairs", "mp"), ("multiple_teams", "teams_imps"), ("swiss_teams", "teams_imps")]


def chunks(seed, n_sessions=24, n_chunks=3):
    rng = np.random.default_rng(seed)
    sessions, day = [], 19000
    for _ in range(n_sessions):
        kind, scoring = KINDS[rng.integers(len(KINDS))]
        sess = random_session(rng, kind, scoring, n_players=N_PLAYERS)
        day += int(rng.choice([1, 3, 7, 30]))
        sess["day"] = day
        sessions.append(sess)
    pt = PartnershipTable()
    cuts = np.array_split(np.arange(n_sessions), n_chunks)
    return [score_results(build([sessions[i] for i in c], N_PLAYERS), partnerships=pt) for c in cuts]


def table():
    return PlayerTable(np.ones(N_PLAYERS, bool), np.zeros(N_PLAYERS, bool), np.full(N_PLAYERS, np.nan))


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["ppi", "elo-pairs", "ngs"]))
def test_trusted_path_grades_as_apply(seed, name):
    scheme = make_scheme(name)
    scs = chunks(seed)
    n_part = max(int(sc.pair_partnership.max()) + 1 for sc in scs)
    checked, trusted = scheme.new_state(table(), n_part), scheme.new_state(table(), n_part)
    for sc in scs:
        sc = scheme.for_grading(sc)
        a, b = np.full((sc.n_entries, 2), np.nan), np.full((sc.n_entries, 2), np.nan)
        scheme.apply(checked, sc, a)
        scheme.apply_trusted(trusted, sc, b)
        assert np.array_equal(a, b, equal_nan=True)
        day = int(sc.day.max())
        assert np.array_equal(scheme.grades(checked, day), scheme.grades(trusted, day), equal_nan=True)


@pytest.mark.parametrize("name", ["ppi", "elo-pairs"])
def test_public_apply_still_checks(name):
    scheme = make_scheme(name)
    sc = chunks(5, n_sessions=4, n_chunks=1)[0]
    sc.pair_players[0] = [N_PLAYERS + 3, N_PLAYERS + 4]  # players outside the table
    state = scheme.new_state(table(), int(sc.pair_partnership.max()) + 1)
    with pytest.raises(ValueError, match="pair_players"):
        scheme.apply(state, sc, np.full((sc.n_entries, 2), np.nan))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, N_PLAYERS - 1), st.integers(0, 60), st.floats(0, 4)), min_size=0,
                max_size=60), st.integers(0, 3))
def test_imps_lost_trusted_path_grades_as_apply(raw, splits):
    """The engine hands imps-lost its own CardPlay (int32 players and boards, float64 IMPs): the trusted
    path gives the same rows, state and grades as the checked one, batch by batch."""
    from simcore.results import CardPlay
    scheme = make_scheme("imps-lost")
    checked, trusted = scheme.new_state(table()), scheme.new_state(table())
    for part in np.array_split(np.arange(len(raw)), splits + 1):
        rec = [raw[i] for i in part]
        card = CardPlay(np.array([r[0] for r in rec], np.int32), np.full(len(rec), 19000, np.int32),
                        np.array([r[1] for r in rec], np.int32), np.array([r[1] * r[2] for r in rec], np.float64))
        a, b = np.empty((len(rec), len(scheme.out_columns))), np.empty((len(rec), len(scheme.out_columns)))
        scheme.apply(checked, card, a)
        scheme.apply_trusted(trusted, card, b)
        assert np.array_equal(a, b)
    for name in ("rating", "boards_left", "imps_left", "k", "batches", "reached", "records"):
        assert np.array_equal(getattr(checked, name), getattr(trusted, name)), name
    assert np.array_equal(scheme.grades(checked, 19000), scheme.grades(trusted, 19000), equal_nan=True)


def test_imps_lost_public_apply_still_checks():
    from simcore.results import CardPlay
    scheme = make_scheme("imps-lost")
    card = CardPlay(np.array([N_PLAYERS + 1], np.int32), np.array([19000], np.int32), np.array([4], np.int32),
                    np.array([2.0]))
    with pytest.raises(ValueError, match="field player"):
        scheme.apply(scheme.new_state(table()), card, np.empty((1, len(scheme.out_columns))))
