"""Aces and Eights: spurious grade gaps inside near-exclusive partnerships.

Two players who almost always play together get the same session results,
so nothing in their results says which of them is the stronger: any grade
gap between them is made by their few outside sessions, their partners'
grades when they joined, and chance (NGS FAQ 28, FR 13: gaps up to 4 points
are likely chance; the case studies reached 20).  On the ``aces-eights``
scenario (half the players in partnerships that are 95 % exclusive, plus
triangles: A plays with B or C, B and C only with A — the seed's
Beth-Paul-Vera case) we measure, per scheme and replicate, the mean
|grade gap − true gap| and the shares beyond 4, 10 and 20 points, with and
without NGS's regular-partnership convergence factor (RPCF), and RPCF's
effect as the paired difference on the same replicates.

**This depends on the world**: RPCF pulls partners' grades together, which
helps when partners are truly close and hurts when they are not.  How far
apart near-exclusive partners truly are is a world assumption (stated below
with the figures, and swept by the ``sensitivity`` study).
"""

from __future__ import annotations

import numpy as np

from simcore import metrics
from simcore.engine import run as run_engine

from ._report import Report, ci, paired, plt, show

SCHEMES = ["ngs", "ngs(rpcf=0)", "ngs(rpcf=0.5)", "ppi", "elo-pairs", "imps-lost"]
KEYS = ("mean_abs_gap_error", "share_over_4", "share_over_10", "share_over_20")


def _triangles(ds, r: int):
    """(A, B, C) ids of triangle structures in replicate r: A's two partners B and C."""
    p2 = ds["partner2"].isel(replicate=r).values
    a = np.flatnonzero(p2 >= 0)
    return a, ds["partner"].isel(replicate=r).values[a], p2[a]


def triangle_errors(ds, min_boards: int = 300) -> dict:
    """Mean |gap error| per (replicate, scheme) of the triangles' pairs A-B, A-C and B-C, last snapshot."""
    R, V = ds.sizes["replicate"], ds.sizes["scheme"]
    out = {k: np.full((R, V), np.nan) for k in ("A-B", "A-C", "B-C")}
    last = ds.isel(time=-1)
    for r in range(R):
        a, b, c = _triangles(ds, r)
        g = last["grade"].isel(replicate=r).values  # (scheme, player)
        t = last["true_strength"].isel(replicate=r).values
        ok = metrics.graded_mask(last.isel(replicate=r), min_boards).values
        for name, x, y in (("A-B", a, b), ("A-C", a, c), ("B-C", b, c)):
            err = np.where(ok[:, x] & ok[:, y], np.abs((g[:, x] - g[:, y]) - (t[x] - t[y])), np.nan)
            with np.errstate(invalid="ignore"):
                cnt = np.isfinite(err).sum(1)
                out[name][r] = np.where(cnt > 0, np.nansum(err, 1) / np.maximum(cnt, 1), np.nan)
    return out


def run(out, quick: bool = False, seed: int = 2026) -> dict:
    rep = Report(out, "Aces and Eights: grade gaps inside near-exclusive partnerships", quick, seed)
    years, reps = (6.0, 3) if quick else (6.0, 8)
    ds = run_engine("aces-eights", SCHEMES, replicates=reps, years=years, seed=seed)
    rep.dataset(ds, "aces_eights.nc")
    ae = metrics.aces_eights(ds).isel(time=-1)
    rep.text(__doc__.split("\n\n", 1)[1])
    true_gap = []
    for r in range(reps):
        pairs = metrics.partnerships(ds, r)
        t = ds["true_strength"].isel(replicate=r, time=-1).values
        true_gap.append(float(np.abs(t[pairs[:, 0]] - t[pairs[:, 1]]).mean()))
    tg = ci(true_gap)
    rep.text(f"{years:g} years, {reps} replicates; {int(ae['n_partnerships'].min())}–"
             f"{int(ae['n_partnerships'].max())} graded near-exclusive partnerships per replicate at the end; "
             f"their mean true gap is **{show(tg)} grade points** (the world's assumption).  Last snapshot:")
    labels = [str(x) for x in ds["scheme"].values]
    rows, headline = [], {}
    for j, label in enumerate(labels):
        figs = {k: ci(ae[k].isel(scheme=j).values, name=f"{k} of {label}") for k in KEYS}
        rows.append([label, show(figs[KEYS[0]])] + [show(figs[k], 1, pct=True) for k in KEYS[1:]])
        headline[label] = figs
    rep.table(["scheme", "mean |gap error|", "> 4", "> 10", "> 20"], rows)
    j_on, j_off = labels.index("ngs"), labels.index("ngs(rpcf=0)")
    rpcf = {k: paired(ae[k].isel(scheme=j_on).values, ae[k].isel(scheme=j_off).values, lower_is_better=True)
            for k in KEYS[:2]}
    half = paired(ae["mean_abs_gap_error"].isel(scheme=labels.index("ngs(rpcf=0.5)")).values,
                  ae["mean_abs_gap_error"].isel(scheme=j_off).values, lower_is_better=True)
    rep.text(f"**RPCF's effect** (ngs with RPCF 0.75 − ngs(rpcf=0), paired on the same replicates): mean "
             f"|gap error| {show(rpcf['mean_abs_gap_error'])} points ({rpcf['mean_abs_gap_error']['verdict']} "
             f"with RPCF), share > 4 {show(rpcf['share_over_4'], 1, pct=True)} "
             f"({rpcf['share_over_4']['verdict']}); RPCF 0.5: {show(half)} ({half['verdict']}).  Negative = "
             f"RPCF reduces the spurious gaps.  With partners' true gaps averaging {tg['mean']:.1f} points, "
             "this sign is a property of this world, not of RPCF alone.")
    tri = triangle_errors(ds)
    rep.text("Triangles (A partners B and C; B and C play only with A): mean |gap error| at the end:")
    rows = []
    for j, label in enumerate(labels):
        row = [label]
        for k in ("A-B", "A-C", "B-C"):
            x = tri[k][:, j]
            row.append(show(ci(x)) if np.isfinite(x).all() else
                       f"{np.nanmean(x):.2f} ({np.isfinite(x).sum()} of {reps} replicates graded)")
        rows.append(row)
        if np.isfinite(tri["B-C"][:, j]).all():
            headline[label]["triangle_B_C"] = ci(tri["B-C"][:, j])
    rep.table(["scheme", "A-B", "A-C", "B-C"], rows)
    pyplot = plt()
    full = metrics.aces_eights(ds)
    fig, axes = pyplot.subplots(1, 2, figsize=(11, 4))
    for j, label in enumerate(labels):
        y = full["share_over_4"].isel(scheme=j).values
        axes[0].plot(ds["time"].values, np.nanmean(y, 0), label=label)
    axes[0].set_ylabel("share of partnerships with |gap error| > 4 (mean of replicates)")
    axes[0].tick_params(axis="x", labelrotation=45, labelsize=7)
    axes[0].legend(fontsize=7)
    snap = ds.isel(time=-1)
    for j, label in enumerate(labels):
        errs = []
        for r in range(reps):
            pairs = metrics.partnerships(ds, r)
            g = snap["grade"].isel(replicate=r, scheme=j).values
            t = snap["true_strength"].isel(replicate=r).values
            ok = metrics.graded_mask(snap.isel(replicate=r, scheme=j)).values
            keep = ok[pairs[:, 0]] & ok[pairs[:, 1]]
            a, b = pairs[keep, 0], pairs[keep, 1]
            errs.append((g[a] - g[b]) - (t[a] - t[b]))
        axes[1].hist(np.concatenate(errs), bins=np.arange(-20, 20.5, 1), histtype="step", label=label)
    axes[1].set_xlabel("grade gap - true gap (grade points), last snapshot, all replicates")
    axes[1].legend(fontsize=7)
    rep.figure(fig, "gap_errors.png", "share of gap errors beyond 4 points over time; their distribution at the end")
    rep.world("aces-eights")
    return rep.finish({"replicates": reps, "schemes": headline, "true_gap_mean": tg, "rpcf_effect": rpcf,
                       "rpcf_half_effect": half})
