"""Corrected sessions (issue 14 item 4): the world publishes them, every scheme counts a session once."""
import numpy as np
import pytest

from results_factory import build, random_session
from simcore.engine.replay import as_scheme
from simcore.results import SCORINGS
from simcore.schemes import SCHEMES, SCORED, PlayerTable, scheme_module
from simcore.scoring import score_results

N_PLAYERS = 24
MP = SCORINGS.index("mp")


def _scheme_or_skip(name):
    try:
        return as_scheme(name)
    except (ValueError, ModuleNotFoundError) as e:  # a peer whose optional package is missing
        pytest.skip(str(e))


def _sessions():
    rng = np.random.default_rng(14)
    sessions = [random_session(rng, "howell", "mp", n_players=N_PLAYERS, full=True) for _ in range(4)]
    for k, s in enumerate(sessions):
        s["day"] = 19000 + 7 * k
    return sessions


def _results(sessions, scored_on, replaces=None):
    res = build(sessions, N_PLAYERS)
    res.player_at_start[:] = True
    res.session_scored_on = np.asarray(scored_on, np.int32)
    res.session_replaces = np.full(len(sessions), -1, np.int32) if replaces is None else np.asarray(replaces, np.int32)
    return res


def _grade(scheme, res):
    sc = score_results(res)
    state = scheme.new_state(PlayerTable.from_results(res), max(len(sc.partnership_players), 1))
    out = np.full((sc.n_entries, 2), np.nan)
    view = scheme.for_grading(sc)
    scheme.apply(state, view, out)
    return sc, view, out, scheme.grades(state, 19100)


SCORED_SCHEMES = [n for n in SCHEMES if getattr(scheme_module(n).SCHEME, "reads", SCORED) == SCORED]


@pytest.mark.parametrize("name", SCORED_SCHEMES)
def test_a_corrected_session_counts_once(name):
    """Session 2 first published with one NS score of the wrong sign, corrected three days later (before
    session 3 is played, so a scheme that removes the original is checked against never having erred)."""
    scheme = _scheme_or_skip(name)
    sessions = _sessions()
    true2 = sessions[2]
    rows = list(true2["rows"])
    k = int(np.argmax([abs(r[5]) for r in rows]))  # the largest score: its sign decides the board
    rows[k] = rows[k][:5] + (-rows[k][5],)
    erred = dict(true2, rows=rows)
    day = [s["day"] for s in sessions]
    corrected_on = day[2] + 3
    res = _results(sessions[:2] + [erred, sessions[3], true2], day + [corrected_on], [-1, -1, -1, -1, 2])
    sc, view, out, grades = _grade(scheme, res)
    graded = np.isin(np.arange(sc.n_sessions), np.asarray(view.order))
    sess = np.repeat(np.arange(sc.n_sessions), np.diff(sc.pair_start))
    c = scheme.corrections
    if c == "first":
        ref_res = _results(sessions[:2] + [erred, sessions[3]], day)
        assert list(graded) == [True] * 4 + [False]
    elif c == "last":
        ref_res = _results(sessions, day[:2] + [corrected_on, day[3]])
        assert list(graded) == [True, True, False, True, True]
    else:
        assert c == "replace", c
        # the scheme removes the original itself: nothing graded in between, so as if it never erred
        ref_res = _results(sessions, day[:2] + [corrected_on, day[3]])
        assert graded.all()
    # sessions not graded get no post-session grade: nobody is counted twice
    assert np.isnan(out[~graded[sess]]).all()
    _, _, _, ref = _grade(scheme, ref_res)
    np.testing.assert_allclose(grades, ref, atol=1e-9, equal_nan=True)
    # and the mis-entered score matters to this scheme's grades, so the test can fail
    _, _, clean, _ = _grade(scheme, _results(sessions, day))
    _, _, dirty, _ = _grade(scheme, _results(sessions[:2] + [erred, sessions[3]], day))
    assert not np.allclose(clean, dirty, equal_nan=True)


def test_for_grading_rejects_an_unknown_rule():
    from simcore.schemes import graded_view
    res = _results(_sessions(), [19000, 19007, 19014, 19021])
    with pytest.raises(ValueError, match="corrections='twice'"):
        graded_view(score_results(res), "twice")


@pytest.fixture(scope="module")
def corrected_runs(tmp_path_factory):
    from simcore import engine
    from simcore.scenario import load_scenario, with_overrides
    out = tmp_path_factory.mktemp("corrected")
    base = load_scenario("default")
    fixed = with_overrides(base, {"reporting.corrected_share": 0.3, "reporting.corrected_days": 1})
    runs = {}
    for name, scen in (("never", base), ("corrected", fixed)):
        eng = engine.Engine(scen, "ngs,ppi,elo-pairs", replicates=1, years=0.3, seed=5, threads=1,
                            bundle_dir=out / name, trace=True)
        runs[name] = (eng, eng.run())
    return runs, out


def test_the_engine_publishes_corrections(corrected_runs):
    from simcore.io.bundle import read_bundle
    runs, out = corrected_runs
    never, res = read_bundle(out / "never"), read_bundle(out / "corrected")
    fix = np.flatnonzero(res.session_replaces >= 0)
    orig = res.session_replaces[fix]
    assert 0.2 < len(fix) / (res.n_sessions - len(fix)) < 0.4
    assert (never.session_replaces < 0).all()
    assert (res.session_day[fix] == res.session_day[orig]).all()
    assert (res.session_scored_on[fix] == res.session_scored_on[orig] + 1).all()
    b = res.session_trav_bounds()
    for f, o in zip(fix, orig):
        a, c = res.trav_ns_score[b[o]:b[o + 1]], res.trav_ns_score[b[f]:b[f + 1]]
        d = a != c
        assert d.sum() == 1 and (a[d] == -c[d]).all()  # one NS score entered with the wrong sign
    # the true results are those of the run without errors: same plays, same scores
    first = np.flatnonzero(res.session_replaces < 0)
    true_of = first.copy()
    true_of[np.searchsorted(first, orig)] = fix
    assert len(first) == never.n_sessions
    got = np.concatenate([res.trav_ns_score[b[s]:b[s + 1]] for s in true_of])
    np.testing.assert_array_equal(got, never.trav_ns_score)
    # boards counted per player equal boards played: a correction adds none
    np.testing.assert_array_equal(runs["corrected"][1]["boards"].values, runs["never"][1]["boards"].values)


@pytest.mark.parametrize("label", ["ngs", "ppi", "elo-pairs"])
def test_engine_grades_corrections_as_a_replay_does(corrected_runs, label):
    """The engine grades the published results (first publications and corrections) as a replay of its
    bundle does, through each scheme's ``corrections`` rule; for NGS the mechanism in its docstring
    (remove the original from every history, then grade the correction; checked against the
    plain-Python NGS in tests/test_ngs.py).  A one-day correction never crosses a snapshot period ahead
    of a session played later, so the chunked engine and the whole-bundle replay see one order."""
    from simcore.engine.replay import grade_bundle
    runs, out = corrected_runs
    eng, ds = runs["corrected"]
    replay = grade_bundle(out / "corrected", label)
    mine = eng.trace_table(label)
    assert len(replay["grade"]) == len(mine["grade"]) > 1000
    assert list(replay["session"]) == list(mine["session"])
    np.testing.assert_array_equal(replay["grade"], mine["grade"])
    graded = set(mine["session"])
    corrections = {n for n in graded if n.endswith("c")}
    rule = as_scheme(label).corrections
    if rule == "first":  # a session graded once: its first publication
        assert not corrections
    else:  # NGS grades both, the correction after removing the original from every history
        assert corrections and {n[:-1] for n in corrections} <= graded
    # the errors and their corrections change the grades against the error-free run
    never = runs["never"][1]["grade"].sel(scheme=label).isel(replicate=0, time=-1).values
    fixed = ds["grade"].sel(scheme=label).isel(replicate=0, time=-1).values
    assert np.isfinite(never).sum() == np.isfinite(fixed).sum() > 100
    assert not np.array_equal(never[np.isfinite(never)], fixed[np.isfinite(fixed)])


@pytest.mark.parametrize("key,value", [("corrected_share", 1.5), ("corrected_share", -0.1), ("corrected_days", 0)])
def test_bad_corrected_keys_are_named(key, value):
    from simcore.scenario import load_scenario, with_overrides
    with pytest.raises(ValueError, match=rf"reporting\.{key}.*{value}|{key}.*{value}"):
        with_overrides(load_scenario("default"), {f"reporting.{key}": value})
