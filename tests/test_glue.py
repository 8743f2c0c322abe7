"""The engine's per-chunk Python written for fewer numpy calls gives what the plainer forms gave: checked
against those forms (kept here as references) on real worlds and random inputs."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import scenario, world
from simcore.movements.registry import kind_flags
from simcore.movements.seating import _entrants
from simcore.results import day_to_month, days_to_months
from simcore.simulate.chunk import _teams
from simcore.world.plan import _chunk_inputs
from simcore.world.clubs import chunk_slots

KEY = np.uint64(0x5EED)
IS_TEAM = np.array(kind_flags(lambda m: m.is_team))
TEAM_KIND = int(np.flatnonzero(IS_TEAM)[0])
PAIR_KIND = int(np.flatnonzero(~IS_TEAM)[0])


@given(st.integers(-719_000, 2_900_000))  # years 1..9909: the range of datetime.date
def test_day_to_month_is_days_to_months_of_one_day(day):
    assert day_to_month(day) == int(days_to_months(np.array([day]))[0])
    assert isinstance(day_to_month(np.int32(min(max(day, -2**31), 2**31 - 1))), int)


def test_days_to_months_of_an_int32_column_and_a_list():
    days = np.array([-1, 0, 31, 59, 19000, 20000], np.int32)
    want = np.array([(np.datetime64(int(d), "D").astype("datetime64[M]").astype(np.int64)) + 1970 * 12
                     for d in days], np.int32)
    assert np.array_equal(days_to_months(days), want) and days_to_months(days).dtype == np.int32
    assert np.array_equal(days_to_months(days.tolist()), want)


def test_a_chunks_active_players_are_active_on_each_week():
    w = world.build_world(scenario.load_scenario("default"), KEY)
    first, stop = 50, 57
    slots = chunk_slots(w, first, stop)
    strength = np.zeros((stop - first, w.n_players))
    pl = _chunk_inputs(w, first, stop, slots, strength)[0]
    want = np.stack([world.active_on(w, w.start_day + 7 * wk) for wk in range(first, stop)])
    assert pl.active.dtype == bool and pl.active.flags.c_contiguous and np.array_equal(pl.active, want)
    assert want.any() and not want.all()


def test_chunk_slots_are_the_weeks_slots_one_after_another():
    w = world.build_world(scenario.load_scenario("default"), KEY)
    first, stop = 40, 46
    got = chunk_slots(w, first, stop)
    for i, wk in enumerate(range(first, stop)):
        one = world.week_slots(w, wk)
        a, b = got["week_first"][i], got["week_first"][i + 1]
        for k in ("day", "venue", "kind", "scoring", "boards", "event", "winners", "club", "max_pairs", "bpr",
                  "is_team", "is_online", "min_pairs"):
            assert got[k][a:b].dtype == one[k].dtype and np.array_equal(got[k][a:b], one[k]), k
    kinds = got["kind"]
    want = np.where(IS_TEAM[kinds], world.MIN_TEAM_PAIRS, np.where(got["is_online"], 8, world.MIN_PAIRS))
    assert np.array_equal(got["min_pairs"], want) and got["min_pairs"].dtype == np.int64


def sessions(draw_sizes, draw_kinds):
    size = np.array(draw_sizes, np.int64)
    kind = np.array([TEAM_KIND if t else PAIR_KIND for t in draw_kinds], np.int64)
    start = np.zeros(len(size) + 1, np.int64)
    np.cumsum(size, out=start[1:])
    return kind, start


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.booleans()), max_size=12), st.integers(0, 2**32 - 1))
def test_entrants_and_teams_as_the_plain_forms(spec, seed):
    rng = np.random.default_rng(seed)
    kind, start = sessions([2 * n for n, _ in spec], [t for _, t in spec])
    E = int(start[-1])
    team = np.full(E, -1, np.int32)
    for s in np.flatnonzero(IS_TEAM[kind]):  # a team session's pairs two by two, team numbers in order
        team[start[s]:start[s + 1]] = np.arange(start[s + 1] - start[s]) // 2
    # entrants: numpy's maximum.at form
    n = np.diff(start)
    top = np.full(len(n), -1, np.int64)
    np.maximum.at(top, np.repeat(np.arange(len(n)), n), team.astype(np.int64))
    assert np.array_equal(_entrants(kind, start, team), np.where(IS_TEAM[kind], top + 1, n))
    # teams: the mask over every entry
    a, b = rng.integers(0, 100, E).astype(np.int32), rng.integers(0, 100, E).astype(np.int32)

    class Seated:
        pass
    x = Seated()
    x.kind, x.entry_start, x.entry_a, x.entry_b, x.entry_team = kind, start, a, b, team
    index = 1000 + np.arange(len(kind), dtype=np.int64)
    session_of = np.repeat(np.arange(len(kind)), n)
    offset = np.arange(E) - np.repeat(start[:-1], n)
    first = np.flatnonzero(IS_TEAM[kind][session_of] & (offset % 2 == 0))
    got_session, got_players, got_names = _teams(x, index)
    assert got_session.dtype == np.int32 and np.array_equal(got_session, session_of[first])
    want_players = (np.stack([a[first], b[first], a[first + 1], b[first + 1]], axis=1) if len(first)
                    else np.zeros((0, 4), np.int32))
    assert got_players.dtype == np.int32 and np.array_equal(got_players, want_players)
    assert got_names.tolist() == [f"S{index[s]}-T{team[e] + 1}" for s, e in zip(session_of[first], first)]
