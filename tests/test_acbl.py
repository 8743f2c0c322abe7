"""The ``acbl`` scenario: its headline sizes, and a small slice of it runs under every scheme.

The full year is a benchmark (``benchmarks/bench_scale.py``), not a test: here
the full-size world is built and one week planned (the figures the TOML's
comments state), and a slice with a tenth of the clubs is simulated for two
weeks.
"""

import numpy as np

from simcore import engine
from simcore.rng import replicate_keys
from simcore.scenario import load_scenario, with_overrides
from simcore.schemes import default_schemes
from simcore.world import build_world, plan_sessions


def test_acbl_world_has_the_acbl_sizes_it_claims():
    sc = load_scenario("acbl")
    w = build_world(sc, replicate_keys(0, 1)[0])
    members = int((w.member & w.at_start).sum())
    assert 150_000 <= members <= 170_000, members  # ACBL: "more than 160,000" members
    assert w.n_clubs == 2850
    plan = plan_sessions(w, 10, 11)  # an ordinary week (no quarterly regional)
    tables = np.diff(plan.entry_start) / 2
    at_club = plan.venue < w.n_clubs
    per_year = tables.sum() * 52
    assert 2.5e6 <= per_year <= 3.5e6, per_year  # "about 3 million tables a year"
    # club game sizes: the typical ACBL game is about seven tables, the big clubs' up to a dozen
    assert 7 <= tables[at_club].mean() <= 11, tables[at_club].mean()


def test_a_slice_of_acbl_runs_under_every_scheme():
    sc = load_scenario("acbl")
    small = with_overrides(sc, {"clubs[0].count": 40, "clubs[1].count": 14, "clubs[2].count": 3,
                                "events[0].count": 2, "events[1].count": 1, "events[2].count": 1})
    ds = engine.run(small, years=2 / 52, seed=5, snapshot="weekly")
    assert ds.sizes["time"] == 2 and list(ds["scheme"].values) == default_schemes()
    last = ds["boards"].isel(replicate=0, time=-1).values
    assert (last > 0).sum() > 1000
    for j, label in enumerate(ds["scheme"].values):
        graded = np.isfinite(ds["grade"].isel(replicate=0, scheme=j, time=-1).values)
        assert not graded[last == 0].any(), label
        if label != "elo-pairs":  # Elo's individual grades need established partnerships (10 sessions)
            assert graded[last > 0].mean() > 0.5, label
