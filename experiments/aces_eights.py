"""Aces and Eights: spurious grade gaps inside near-exclusive partnerships.

Two players who almost always play together get the same session results,
so nothing in their results says which of them is the stronger: any grade
gap between them is made by their few outside sessions, their partners'
grades when they joined, and chance (NGS FAQ 28, FR 13: gaps up to 4 points
are likely chance; the case studies reached 20).  On the ``aces-eights``
scenario (half the players in partnerships that are 95 % exclusive, plus
triangles: A plays with B or C, B and C only with A — the seed's
Beth-Paul-Vera case) we measure, per scheme, the distribution over time of
(grade gap - true gap) and the shares beyond 4, 10 and 20 points, with and
without NGS's regular-partnership convergence factor (RPCF).
"""

from __future__ import annotations

import numpy as np

from simcore import metrics
from simcore.engine import run as run_engine

from ._report import Report, plt

SCHEMES = ["ngs", "ngs(rpcf=0)", "ngs(rpcf=0.5)", "ppi", "elo-pairs", "imps-lost"]


def _triangles(ds, r: int):
    """(A, B, C) ids of triangle structures in replicate r: A's two partners B and C."""
    p2 = ds["partner2"].isel(replicate=r).values
    a = np.flatnonzero(p2 >= 0)
    return a, ds["partner"].isel(replicate=r).values[a], p2[a]


def triangle_errors(ds, min_boards: int = 300) -> dict:
    """|gap error| of the triangle's pairs A-B, A-C and of B-C (who never play together), last snapshot."""
    out = {"A-B": [], "A-C": [], "B-C": []}
    last = ds.isel(time=-1)
    for r in range(ds.sizes["replicate"]):
        a, b, c = _triangles(ds, r)
        g = last["grade"].isel(replicate=r).values  # (scheme, player)
        t = last["true_strength"].isel(replicate=r).values
        ok = metrics.graded_mask(last.isel(replicate=r), min_boards).values
        for name, x, y in (("A-B", a, b), ("A-C", a, c), ("B-C", b, c)):
            err = np.abs((g[:, x] - g[:, y]) - (t[x] - t[y]))
            out[name].append(np.where(ok[:, x] & ok[:, y], err, np.nan))
    return {k: np.concatenate(v, axis=1) for k, v in out.items()}  # (scheme, triangles)


def run(out, quick: bool = False, seed: int = 2026) -> dict:
    rep = Report(out, "Aces and Eights: grade gaps inside near-exclusive partnerships", quick, seed)
    years, reps = (6.0, 2) if quick else (6.0, 6)
    ds = run_engine("aces-eights", SCHEMES, replicates=reps, years=years, seed=seed)
    rep.dataset(ds, "aces_eights.nc")
    ae = metrics.aces_eights(ds)
    rep.text(__doc__.split("\n\n", 1)[1])
    last = ae.isel(time=-1).mean("replicate")
    true_gap = []
    for r in range(reps):
        pairs = metrics.partnerships(ds, r)
        t = ds["true_strength"].isel(replicate=r, time=-1).values
        true_gap.append(np.abs(t[pairs[:, 0]] - t[pairs[:, 1]]))
    true_gap = np.concatenate(true_gap)
    rep.text(f"{years:g} years, {reps} replicate(s); {int(ae['n_partnerships'].isel(time=-1).max())} graded "
             f"near-exclusive partnerships per replicate at the end; their true gaps have mean "
             f"{true_gap.mean():.2f} and 90th percentile {np.percentile(true_gap, 90):.2f} grade points.  "
             "Last snapshot, mean over replicates:")
    rows, headline = [], {}
    for j, label in enumerate(ds["scheme"].values):
        v = [float(last[k].isel(scheme=j)) for k in ("mean_abs_gap_error", "share_over_4", "share_over_10",
                                                     "share_over_20")]
        rows.append([str(label), v[0], f"{v[1]:.1%}", f"{v[2]:.1%}", f"{v[3]:.1%}"])
        headline[str(label)] = {"mean_abs_gap_error": round(v[0], 2), "share_over_4": round(v[1], 3),
                                "share_over_10": round(v[2], 3), "share_over_20": round(v[3], 3)}
    rep.table(["scheme", "mean abs gap error", "> 4", "> 10", "> 20"], rows)
    tri = triangle_errors(ds)
    rep.text("Triangles (A partners B and C; B and C play only with A): mean |gap error| at the end, "
             f"over {tri['B-C'].shape[1]} triangles:")
    rows = []
    for j, label in enumerate(ds["scheme"].values):
        rows.append([str(label)] + [float(np.nanmean(tri[k][j])) if np.isfinite(tri[k][j]).any() else None
                                    for k in ("A-B", "A-C", "B-C")])
        headline[str(label)]["triangle_B_C"] = rows[-1][-1]
    rep.table(["scheme", "A-B", "A-C", "B-C"], rows)
    pyplot = plt()
    fig, axes = pyplot.subplots(1, 2, figsize=(11, 4))
    for j, label in enumerate(ds["scheme"].values):
        axes[0].plot(ds["time"].values, ae["share_over_4"].isel(scheme=j).mean("replicate").values,
                     label=str(label))
    axes[0].set_ylabel("share of partnerships with |gap error| > 4")
    axes[0].tick_params(axis="x", labelrotation=45, labelsize=7)
    axes[0].legend(fontsize=7)
    snap = ds.isel(time=-1)
    for j, label in enumerate(ds["scheme"].values):
        errs = []
        for r in range(reps):
            pairs = metrics.partnerships(ds, r)
            g = snap["grade"].isel(replicate=r, scheme=j).values
            t = snap["true_strength"].isel(replicate=r).values
            ok = metrics.graded_mask(snap.isel(replicate=r, scheme=j)).values
            keep = ok[pairs[:, 0]] & ok[pairs[:, 1]]
            a, b = pairs[keep, 0], pairs[keep, 1]
            errs.append((g[a] - g[b]) - (t[a] - t[b]))
        axes[1].hist(np.concatenate(errs), bins=np.arange(-20, 20.5, 1), histtype="step", label=str(label))
    axes[1].set_xlabel("grade gap - true gap (grade points), last snapshot")
    axes[1].legend(fontsize=7)
    rep.figure(fig, "gap_errors.png", "share of gap errors beyond 4 points over time; their distribution at the end")
    return rep.finish({"schemes": headline, "true_gap_mean": round(float(true_gap.mean()), 2)})
