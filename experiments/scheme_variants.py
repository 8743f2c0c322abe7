"""The four schemes and their documented variants on the default county, ranked by accuracy.

Every variant grades the very same simulated results (common random
numbers), so differences between rows are differences between schemes,
not luck.  Variants: NGS gain 1 / 1.5 / 2, window 1000 / 2000, RPCF on / off,
the new (1/1/2) and old (1/2/3) event weights; PPI's m schedule (the
published one, a faster one, no halving below 46); Elo K 16 / 32 / 48 and
running updates; IMPs-lost.  Measured at the last snapshot over graded
players (active members with >= 300 boards), averaged over replicates.
"""

from __future__ import annotations

import numpy as np

from simcore import metrics
from simcore.engine import run as run_engine

from ._report import Report

VARIANTS = [
    "ngs", "ngs(gain=1.5)", "ngs(gain=2)", "ngs(window=1000)", "ngs(rpcf=0)",
    "ngs(weight_black=2,weight_green=3)",
    "ppi", "ppi(m_frequent=400,m_infrequent=200,w_factor=1.333)", "ppi(low_factor=1)",
    "elo-pairs(k=16)", "elo-pairs", "elo-pairs(k=48)", "elo-pairs(update=running)",
    "imps-lost",
]
COLUMNS = ["rmse", "rank_corr", "bias", "club_bias_rms", "volatility", "aces_eights_gap"]


def run(out, quick: bool = False, seed: int = 2026) -> dict:
    rep = Report(out, "Scheme variants on the default county", quick, seed)
    years, reps = (3.0, 1) if quick else (5.0, 3)
    ds = run_engine("default", VARIANTS, replicates=reps, years=years, seed=seed)
    rep.dataset(ds, "scheme_variants.nc")
    summ = metrics.summary(ds)
    ranked = sorted(summ.items(), key=lambda kv: kv[1]["rmse"])
    rep.text(f"""
The `default` scenario (a county of six clubs, ~1 300 players), {years:g} years,
{reps} replicate(s), every variant grading the same results.  Sorted by RMSE
of grade against true strength (grade points).  Volatility is the sd of a
graded player's month-to-month grade change; club bias the RMS over clubs of
(club mean grade - club true mean); A&E the mean |grade gap - true gap|
inside near-exclusive partnerships.
""")
    rep.table(["variant", "RMSE", "rank r", "bias", "club bias", "volatility", "A&E gap"],
              [[k] + [v[c] for c in COLUMNS] for k, v in ranked])
    by = metrics.accuracy_by(ds, "partnership")
    rows = []
    for j, label in enumerate(ds["scheme"].values):
        rows.append([str(label)] + [float(by["rmse"].isel(scheme=j, group=g).mean())
                                    for g in range(3)])
    rep.text("RMSE by partnership type (grade points):")
    rep.table(["variant", "pick-up", "regular", "near-exclusive"], rows)
    by_act = metrics.accuracy_by(ds, "activity")
    rep.text("RMSE by activity (sessions a week):")
    rep.table(["variant"] + [str(g) for g in by_act["group"].values],
              [[str(label)] + [float(by_act["rmse"].isel(scheme=j, group=g).mean())
                               for g in range(by_act.sizes["group"])]
               for j, label in enumerate(ds["scheme"].values)])
    pyplot = __import__("experiments._report", fromlist=["plt"]).plt()
    fig, ax = pyplot.subplots(figsize=(6.5, 4.5))
    for label, v in summ.items():
        ax.scatter(v["volatility"], v["rmse"], s=18)
        ax.annotate(label, (v["volatility"], v["rmse"]), fontsize=6)
    ax.set_xlabel("volatility (sd of monthly grade change, grade points)")
    ax.set_ylabel("RMSE vs true strength (grade points)")
    rep.figure(fig, "accuracy_vs_volatility.png", "accuracy against volatility, one point per variant")
    best = ranked[0]
    return rep.finish({"ranking": [k for k, _ in ranked], "best": best[0],
                       "table": {k: {c: round(v[c], 3) for c in COLUMNS} for k, v in ranked}})
