import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from simcore import rng, scenario, world

KEY = rng.replicate_keys(2026, 1)[0]


@pytest.fixture(scope="module")
def default_world():
    return world.build_world(scenario.load_scenario("default"), KEY)


def small(name, **over):
    sc = scenario.load_scenario(name)
    changes = {f"clubs[{i}].members": 24 for i in range(len(sc.clubs))}
    changes.update(over)
    return scenario.with_overrides(sc, changes)


def _plan_matches_reference(sc, key, weeks, span=2):
    """Plan ``span`` weeks from each of ``weeks`` in one kernel call; compare with the reference week by week."""
    w = world.build_world(sc, key)
    ev_logit = np.log(np.maximum(w.ev_entry_rate, 1e-12) / np.maximum(1 - w.ev_entry_rate, 1e-12))
    params = dict(travel_rate=sc.mixing.travel_rate, second_weight=sc.mixing.second_club_weight,
                  cap=int(sc.players.activity_cap), guest=sc.partnerships.odd_player == "guest",
                  pickup_corr=sc.partnerships.pickup_correlation)
    for first in weeks:
        plan = world.plan_sessions(w, first, first + span)
        # the plan renumbers slots into sessions sorted by (day, venue, slot): compare as sets of rows
        got = []
        for s in range(plan.n_sessions):
            for e in range(plan.entry_start[s], plan.entry_start[s + 1]):
                got.append((int(plan.day[s]), int(plan.venue[s]), int(plan.a[e]), int(plan.b[e]),
                            int(plan.ptype[e]), round(float(plan.bonus[e]), 12), int(plan.team[e])))
        want = []
        for week in range(first, first + span):
            slots = world.week_slots(w, week)
            day0 = w.start_day + 7 * week
            ref = naive.plan_week(w, week, slots, world.active_on(w, day0), world.strength_on(w, day0), ev_logit,
                                  params)
            want += [(int(slots["day"][s]), int(slots["venue"][s]), a, b, typ, round(float(bon), 12), team)
                     for s, a, b, typ, bon, team in ref]
        assert sorted(got) == sorted(want)
        assert np.all(np.diff(plan.day) >= 0)  # sessions in day order


@pytest.mark.parametrize("name", ["default", "isolated-clubs", "aces-eights", "online"])
def test_kernel_matches_reference(name):
    sc = small(name, **({"online.members": 60} if name == "online" else {}))
    _plan_matches_reference(sc, KEY, (0, 1, 9, 120))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), week=st.integers(0, 200), members=st.integers(6, 40),
       travel=st.floats(0, 0.5), multi=st.floats(0, 0.6), second_weight=st.floats(0.1, 3),
       activity=st.floats(0.2, 4), triangles=st.integers(0, 2), sit_out=st.booleans(),
       pickup_corr=st.sampled_from([0.0, 0.3, 1.0]) | st.floats(0, 1), span=st.integers(1, 3))
def test_kernel_matches_reference_on_random_worlds(seed, week, members, travel, multi, second_weight, activity,
                                                   triangles, sit_out, pickup_corr, span):
    sc = small("default", **{f"clubs[{i}].members": members for i in range(6)},
               **{"mixing.travel_rate": travel, "mixing.multi_club_share": multi,
                  "mixing.second_club_weight": second_weight, "players.activity_mean": activity,
                  "partnerships.triangles": triangles,
                  "partnerships.odd_player": "sit_out" if sit_out else "guest",
                  "partnerships.pickup_correlation": pickup_corr})
    _plan_matches_reference(sc, rng.replicate_keys(seed, 1)[0], (week,), span)


def test_chunking_does_not_change_the_plan(default_world):
    whole = world.plan_sessions(default_world, 0, 8)
    parts = [world.plan_sessions(default_world, 0, 3), world.plan_sessions(default_world, 3, 8)]
    for field in ("day", "venue", "kind", "a", "b", "ptype", "team"):
        np.testing.assert_array_equal(getattr(whole, field), np.concatenate([getattr(p, field) for p in parts]))


def test_same_key_same_world_and_different_key_differs():
    sc = scenario.load_scenario("default")
    a, b = world.build_world(sc, KEY), world.build_world(sc, KEY)
    np.testing.assert_array_equal(a.base_strength, b.base_strength)
    np.testing.assert_array_equal(world.plan_sessions(a, 5, 6).a, world.plan_sessions(b, 5, 6).a)
    c = world.build_world(sc, rng.replicate_keys(2026, 2)[1])
    assert not np.array_equal(a.base_strength, c.base_strength)


def test_clubs_match_the_scenario(default_world):
    w, sc = default_world, default_world.scenario
    for c, entry in enumerate(sc.clubs):
        ids = np.arange(w.club_first[c], w.guest_first[c])
        start = ids[w.at_start[ids]]
        assert len(start) == entry.members
        s = w.base_strength[start]
        se = entry.strength_sd / np.sqrt(len(s))
        assert abs(s.mean() - entry.strength_mean) < 4 * se
        assert abs(s.std() - entry.strength_sd) < 4 * entry.strength_sd / np.sqrt(2 * len(s))
    joiners = ~w.at_start & w.member
    offset = (w.base_strength - w.club_mean[np.maximum(w.home_club, 0)])[joiners]
    assert abs(offset.mean() - sc.players.newcomer_offset) < 4 * sc.players.newcomer_sd / np.sqrt(joiners.sum())
    assert not w.member[w.guest_first[0]:w.guest_stop[0]].any()


def test_activity_is_heavy_tailed_and_rises_with_strength(default_world):
    w = default_world
    act = w.activity[w.member & (w.ptype != world.NEAR_EXCLUSIVE)]
    s = w.base_strength[w.member & (w.ptype != world.NEAR_EXCLUSIVE)]
    assert np.mean(act) > np.median(act)  # right-skewed
    assert np.corrcoef(np.log(act), s)[0, 1] > 0.05


def year_of_entries(w, weeks=52):
    plan = world.plan_sessions(w, 0, weeks)
    sess = np.repeat(np.arange(plan.n_sessions), np.diff(plan.entry_start))
    return plan, sess


def test_near_exclusive_pairs_play_over_85_percent_together():
    w = world.build_world(scenario.load_scenario("aces-eights"), KEY)
    plan, _ = year_of_entries(w)
    together = np.zeros(w.n_players)
    played = np.zeros(w.n_players)
    for a, b in zip(plan.a, plan.b):
        for x, y in ((a, b), (b, a)):
            played[x] += 1
            together[x] += w.partner[x] == y
    ne = (w.ptype == world.NEAR_EXCLUSIVE) & (w.partner2 < 0) & (played >= 20) & w.at_start
    share = together[ne].sum() / played[ne].sum()
    assert share > 0.85, share


def test_isolated_clubs_never_mix_before_the_date_and_do_after():
    w = world.build_world(scenario.load_scenario("isolated-clubs"), KEY)
    end_week = (w.isolation_end - w.start_day) // 7
    for first, last, mixes in ((0, 20, False), (end_week + 4, end_week + 24, True)):
        plan = world.plan_sessions(w, first, last)
        sess = np.repeat(np.arange(plan.n_sessions), np.diff(plan.entry_start))
        venue = plan.venue[sess]
        away = 0
        for who in (plan.a, plan.b):
            home = w.home_club[who]
            away += np.sum((venue != home) & w.member[who])
        assert (away > 0) == mixes, (first, away)


def test_event_fields_are_stronger(default_world):
    w = default_world
    plan, sess = year_of_entries(w)
    s = world.strength_on(w, w.start_day)
    pair = (s[plan.a] + s[plan.b]) / 2
    at_event = plan.venue[sess] >= w.n_clubs
    diff = pair[at_event].mean() - pair[~at_event].mean()
    se = pair.std() * np.sqrt(1 / at_event.sum() + 1 / (~at_event).sum())
    assert diff > 3 * se, (diff, se)


def test_field_sizes_are_realistic(default_world):
    plan, _ = year_of_entries(default_world, 12)
    pairs = np.diff(plan.entry_start)
    club = plan.venue < default_world.n_clubs
    assert pairs[club].min() >= world.MIN_PAIRS and 5 <= pairs[club].mean() / 2 <= 18


def test_strength_paths():
    sc = scenario.with_overrides(scenario.load_scenario("default"),
                                 {"players.learner_share": 1.0, "players.decline_share": 0.0,
                                  "players.step_rate": 0.0})
    w = world.build_world(sc, KEY)
    j = np.flatnonzero(~w.at_start & w.member)[0]
    d = int(w.join_day[j])
    assert world.strength_on(w, d)[j] == pytest.approx(w.base_strength[j])
    later = d + int(sc.players.learner_years * 365.25) + 10
    assert world.strength_on(w, later)[j] == pytest.approx(w.base_strength[j] + sc.players.learner_gain)


_DAY = st.integers(19_000, 19_012)  # a narrow range: days often coincide (boundaries tested)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_strength_kernel_and_activity_match_reference(data):
    """strength_on (a kernel) and active_on against their plain-Python twins, bit for bit, on random careers."""
    from types import SimpleNamespace
    P = data.draw(st.integers(0, 12))
    days = st.lists(st.one_of(_DAY, st.just(int(world.model.NEVER))), min_size=P, max_size=P)
    floats = lambda lo, hi: st.lists(st.floats(lo, hi), min_size=P, max_size=P)  # noqa: E731
    flags = st.lists(st.booleans(), min_size=P, max_size=P)
    w = SimpleNamespace(
        start_day=data.draw(_DAY), base_strength=np.array(data.draw(floats(20, 80))),
        learner_gain=np.array(data.draw(floats(0, 10))),
        learner_days=np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 365.25, 730.5]), min_size=P,
                                                 max_size=P))),
        join_day=np.array(data.draw(st.lists(_DAY, min_size=P, max_size=P)), np.int32),
        step_day=np.array(data.draw(days), np.int32), step_size=np.array(data.draw(floats(-5, 5))),
        decline_per_day=np.array(data.draw(floats(0, 0.01))), leave_day=np.array(data.draw(days), np.int32),
        return_day=np.array(data.draw(days), np.int32), member=np.array(data.draw(flags), bool),
        online=np.array(data.draw(flags), bool))
    day = data.draw(_DAY)
    np.testing.assert_array_equal(world.strength_on(w, day), np.array(naive.strength_on(w, day), np.float64))
    np.testing.assert_array_equal(world.active_on(w, day), np.array(naive.active_on(w, day), bool))


def _partner_correlation(w, typ):
    a = np.flatnonzero((w.ptype == typ) & (w.partner > np.arange(w.n_players)) & (w.partner2 < 0))
    return np.corrcoef(w.base_strength[a], w.base_strength[w.partner[a]])[0, 1], len(a)


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_partners_strengths_correlate_as_the_scenario_says(rho):
    sc = scenario.with_overrides(scenario.load_scenario("default"), {
        "partnerships.regular_correlation": rho, "partnerships.near_exclusive_correlation": rho,
        "partnerships.near_exclusive_share": 0.3, "partnerships.regular_share": 0.5})
    w = world.build_world(sc, KEY)
    for typ in (world.REGULAR, world.NEAR_EXCLUSIVE):
        # pairs are formed within clubs whose means differ: the correlation over all pairs sits a
        # little above rho; the se of a correlation over n pairs is about (1 - rho^2) / sqrt(n)
        r, n = _partner_correlation(w, typ)
        assert rho - 4 * (1 - rho ** 2) / np.sqrt(n) - 0.02 < r < rho + 4 * (1 - rho ** 2) / np.sqrt(n) + 0.12, (typ, r, n)


def test_pickup_partners_correlate_more_with_a_higher_setting():
    got = {}
    for rho in (0.0, 0.8):
        sc = scenario.with_overrides(scenario.load_scenario("default"), {"partnerships.pickup_correlation": rho})
        w = world.build_world(sc, KEY)
        plan = world.plan_sessions(w, 0, 26)
        s = world.strength_on(w, w.start_day)
        pick = plan.ptype == world.PICKUP
        pick &= plan.b >= 0
        got[rho] = np.corrcoef(s[plan.a[pick]], s[plan.b[pick]])[0, 1]
    assert got[0.8] > got[0.0] + 0.4, got


@pytest.mark.parametrize("strength", [[52.0, 47.5, 61.0, 40.0, 55.5, 70.0, 44.0, 58.0],   # distinct: by rank
                                      [50.0, 50.0, 60.0, 40.0, 50.0, 70.0, 40.0, 55.0],   # ties
                                      [50.0, np.nan, 60.0, 40.0, 50.0, 70.0, 40.0, 55.0]])  # a NaN: keys all 0
def test_pick_up_players_are_ordered_by_a_stable_sort_of_their_keys(strength):
    """With pickup_correlation 1 a pick-up player's sorting key is the standardised strength itself, so the
    order is the stable sort by strength (ties keep the shuffled order; a NaN makes every key 0): the
    compiled kernel (ranks, or the insertion sort when two keys share a place) and its Python twin agree."""
    import numba
    from simcore.world import plan

    strength = np.array(strength)
    shuffled = np.array([3, 0, 1, 7, 4, 2, 5, 6], np.int32)
    want = shuffled if np.isnan(strength).any() else np.array(sorted(shuffled, key=lambda p: strength[p]))
    pair = numba.njit(lambda st, singles, strength, key, placed: plan._pair_by_strength(
        st, singles, len(singles), strength, 1.0, key, placed))
    for run in (pair, pair.py_func):
        singles = shuffled.copy()
        run(rng.new_stream(KEY, 1, 2), singles, strength, np.empty(8), np.empty(8, np.int32))
        np.testing.assert_array_equal(singles, want)


def test_strength_skew_and_spread_follow_the_scenario():
    from scipy import stats
    sc = scenario.with_overrides(scenario.load_scenario("online"), {
        "online.strength_mean": 49.0, "online.strength_sd": 6.0, "online.strength_skew": -0.6,
        "online.members": 20000})
    w = world.build_world(sc, KEY)
    s = w.base_strength[w.online & w.at_start]
    n = len(s)
    assert abs(s.mean() - 49.0) < 4 * 6 / np.sqrt(n)
    assert abs(s.std() - 6.0) < 4 * 6 / np.sqrt(2 * n)
    assert abs(stats.skew(s) + 0.6) < 4 * np.sqrt(6 / n) * 1.5, stats.skew(s)


def test_late_scored_sessions_come_at_the_set_rate_and_do_not_depend_on_chunking():
    sc = scenario.with_overrides(scenario.load_scenario("default"),
                                 {"reporting.late_share": 0.3, "reporting.late_days": 10})
    w = world.build_world(sc, KEY)
    whole = world.plan_sessions(w, 0, 12)
    late = whole.scored_on > whole.day
    n = whole.n_sessions
    assert abs(late.mean() - 0.3) < 4 * np.sqrt(0.3 * 0.7 / n), late.mean()
    delay = (whole.scored_on - whole.day)[late]
    assert delay.min() >= 1 and delay.max() <= 19
    parts = [world.plan_sessions(w, 0, 5), world.plan_sessions(w, 5, 12)]
    np.testing.assert_array_equal(whole.scored_on, np.concatenate([p.scored_on for p in parts]))
    on_time = world.plan_sessions(world.build_world(scenario.load_scenario("default"), KEY), 0, 12)
    np.testing.assert_array_equal(on_time.scored_on, on_time.day)


@pytest.mark.parametrize("rho", [0.0, 0.7, 1.0])
def test_card_play_is_its_own_trait_correlated_as_set(rho):
    sc = scenario.with_overrides(scenario.load_scenario("default"), {"players.card_play_correlation": rho})
    w = world.build_world(sc, KEY)
    r = np.corrcoef(w.card_play, w.base_strength)[0, 1]
    n = len(w.card_play)
    assert abs(r - rho) < 4 * (1 - rho * rho) / np.sqrt(n) + 1e-9  # ~4 standard errors of a correlation
    assert w.card_play.std() == pytest.approx(sc.players.card_play_sd, rel=0.05)
    if rho < 1:
        assert not np.allclose(w.card_play, w.base_strength)


def test_card_play_is_drawn_last(default_world):
    sc = scenario.with_overrides(default_world.scenario, {"players.card_play_correlation": 0.2})
    w = world.build_world(sc, KEY)
    assert np.array_equal(w.base_strength, default_world.base_strength)
    assert np.array_equal(w.partner, default_world.partner)
