"""Sensitivity: which headline conclusions survive a change of the world's assumptions.

Every other study runs one world.  Its assumptions — how alike partners are
in strength, how much a pair's form varies from session to session, how much
a settled partnership adds, how spread out true strength is, how much the
clubs mix — are guesses where the seeds publish nothing.  Here each is
swept on the default county, one at a time with the others at their
defaults, and four headline figures are re-measured at every point, each
with its 95 % interval over replicates (Student t, ``simcore.metrics.intervals``):

* **RMSE per scheme** (grade vs true strength, graded players at the last
  snapshot, grade points), and the ranking of the result-based schemes by
  paired difference from NGS;
* **RPCF's effect on Aces-and-Eights**: mean |grade gap − true gap| inside
  near-exclusive partnerships, ``ngs`` minus ``ngs(rpcf=0)``, paired
  (positive: RPCF makes the gaps worse);
* **diffusion half-life** of the club gap under NGS: the RMS over clubs of
  (club mean grade − club true mean) from the first snapshot where it can be
  measured, fitted per replicate as floor + (start − floor)·2^(−weeks / h)
  (weeks; graded players with at least 100 boards);
* **exponential vs straight line**: RMSE of NGS with the volatility-matched
  exponential decay (half-life 849 boards, matched on the engine's own
  volatility at gain 2 by the decay study) minus NGS's line, paired
  (negative: the exponential is more accurate).

IMPs-lost reads card-play records (declarer play against double dummy, from
each player's card-play trait), not results: its RMSE is shown for
reference, marked, and kept out of every ranking.
"""

from __future__ import annotations

import numpy as np

from simcore import metrics
from simcore.engine import run as run_engine
from simcore.metrics.intervals import format_ci, mean_ci, paired_ci, verdict
from simcore.scenario import load_scenario, with_overrides
from simcore.schemes import reads_card_play

from ._report import Report, plt

BASE = "default"
# the exponential matched to the line on the engine's own volatility at the EBU's gain 2 (the decay study,
# experiments/reports/decay: 849 boards); 506 boards was the old match on a synthetic probe at gain 1
LINE, NO_RPCF, EXPONENTIAL = "ngs", "ngs(rpcf=0)", "ngs(decay=exponential,half_life=849)"
VARIANTS = [LINE, NO_RPCF, EXPONENTIAL, "ppi", "elo-pairs", "imps-lost"]
RESULT_SCHEMES = [LINE, "ppi", "elo-pairs"]  # ranked against each other (never a card-play scheme)
SIZES = {"quick": (1.5, 2), "full": (4.0, 6)}  # (years, replicates a point)


def _all_clubs(sc, key: str, value) -> dict:
    return {f"clubs[{i}].{key}": value for i in range(len(sc.clubs))}


def axes(sc) -> dict:
    """Each assumption: (label of x, unit, [(x, overrides)]), the scenario's default among the points."""
    pt, mx = sc.partnerships, sc.mixing
    corr = lambda r: {"partnerships.regular_correlation": r, "partnerships.near_exclusive_correlation": r,  # noqa: E731
                      "partnerships.pickup_correlation": r}
    bonus = lambda k: {"partnerships.regular_bonus": pt.regular_bonus * k,  # noqa: E731
                       "partnerships.near_exclusive_bonus": pt.near_exclusive_bonus * k}
    mixing = lambda k: {"mixing.travel_rate": mx.travel_rate * k, "mixing.multi_club_share": min(1.0, mx.multi_club_share * k)}  # noqa: E731
    spread = lambda s: _all_clubs(sc, "strength_sd", s)  # noqa: E731
    return {
        "partner correlation": ("partners' strength correlation (all partnership kinds)", "",
                                [(0.0, corr(0.0)), (0.25, corr(0.25)),
                                 (pt.near_exclusive_correlation, {}), (0.9, corr(0.9))]),
        "form sd": ("sd of a pair's session form", "grade points",
                    [(0.0, {"partnerships.form_sd": 0.0}), (pt.form_sd, {}), (2.0, {"partnerships.form_sd": 2.0}),
                     (3.0, {"partnerships.form_sd": 3.0})]),
        "partnership bonus": ("partnership bonus, x the default (regular 1, near-exclusive 2 points)", "x",
                              [(0.0, bonus(0.0)), (1.0, {}), (2.0, bonus(2.0)), (3.0, bonus(3.0))]),
        "strength spread": ("sd of true strength within a club", "grade points",
                            [(3.5, spread(3.5)), (4.5, spread(4.5)), (sc.clubs[0].strength_sd, {}),
                             (7.5, spread(7.5))]),
        "mixing rate": ("travel rate and second-club share, x the default", "x",
                        [(0.0, mixing(0.0)), (0.5, mixing(0.5)), (1.0, {}), (3.0, mixing(3.0))]),
    }


def _quick_axes(full: dict) -> dict:
    """Quick size: the lowest point, the default and the highest of each axis."""
    out = {}
    for name, (label, unit, points) in full.items():
        keep = [p for i, p in enumerate(points) if i in (0, len(points) - 1) or not p[1]]
        out[name] = (label, unit, keep)
    return out


def half_life_weeks(weeks: np.ndarray, rms: np.ndarray) -> float:
    """Half-life (weeks) of floor + (start − floor)·2^(−t/h) fitted to a club-gap RMS series; NaN if none."""
    from scipy.optimize import least_squares
    ok = np.isfinite(rms)
    if ok.sum() < 4:
        return float("nan")
    t, y = weeks[ok] - weeks[ok][0], rms[ok]
    y0 = y[0]

    def resid(p):
        floor, log_h = p
        return floor + (y0 - floor) * 2.0 ** (-t / np.exp(log_h)) - y

    fit = least_squares(resid, [min(y) * 0.9, np.log(max(t[-1], 1.0) / 3)],
                        bounds=([0.0, np.log(0.5)], [max(y0, 1e-9), np.log(1e4)]))
    h = float(np.exp(fit.x[1]))
    return h if fit.success and h < 1e4 * 0.99 else float("nan")


def measure(ds) -> dict:
    """Per-replicate figures of one run: {figure: {variant or '': array (replicate,)}}."""
    labels = [str(v) for v in ds["scheme"].values]
    j = {v: labels.index(v) for v in labels}
    acc = metrics.accuracy(ds)
    ae = metrics.aces_eights(ds.isel(time=[-1]))["mean_abs_gap_error"].isel(time=0)
    cb = metrics.club_bias(ds, min_boards=100)["rms"]
    times = ds["time"].values.astype("datetime64[D]")
    weeks = (times - times[0]).astype(np.float64) / 7.0
    R = ds.sizes["replicate"]
    hl = np.array([half_life_weeks(weeks, cb.isel(replicate=r, scheme=j[LINE]).values) for r in range(R)])
    return {
        "rmse": {v: acc["rmse"].isel(scheme=j[v]).values for v in labels},
        "ae_ngs": ae.isel(scheme=j[LINE]).values, "ae_no_rpcf": ae.isel(scheme=j[NO_RPCF]).values,
        "half_life": hl,
    }


def _ci(values, digits=2):
    x = np.asarray(values, float)
    if np.isfinite(x).sum() < 2:
        return None, "n/a"
    note = "" if np.isfinite(x).all() else f" ({np.isfinite(x).sum()} of {len(x)} fitted)"
    m, lo, hi = mean_ci(x[np.isfinite(x)])
    return (m, lo, hi), format_ci(m, lo, hi, digits) + note


def summarise(fig: dict) -> dict:
    """The headline figures of one point, each (mean, low, high)."""
    out = {"rmse": {v: mean_ci(x) for v, x in fig["rmse"].items()},
           "rpcf_effect": paired_ci(fig["ae_ngs"], fig["ae_no_rpcf"]),
           "exp_minus_line": paired_ci(fig["rmse"][EXPONENTIAL], fig["rmse"][LINE]),
           "half_life": _ci(fig["half_life"])[0],
           "vs_ngs": {v: paired_ci(fig["rmse"][v], fig["rmse"][LINE]) for v in RESULT_SCHEMES[1:]}}
    out["half_life_text"] = _ci(fig["half_life"], 0)[1]
    out["ranking"] = sorted(RESULT_SCHEMES, key=lambda v: out["rmse"][v][0])
    return out


def _short(v: str) -> str:
    """Column label; a scheme that reads card play, not results, is marked."""
    if reads_card_play(v):
        return f"{v} (reads card play: not ranked)"
    return "ngs exp" if v == EXPONENTIAL else v


def _verdict_rpcf(ci) -> str:
    return verdict(ci[1], ci[2], lower_is_better=True).replace("better", "RPCF helps").replace(
        "worse", "RPCF hurts")


def _verdict_exp(ci) -> str:
    return verdict(ci[1], ci[2], lower_is_better=True).replace("better", "exponential better").replace(
        "worse", "line better")


def run(out, quick: bool = False, seed: int = 2026) -> dict:
    rep = Report(out, "Sensitivity of the headline conclusions to the world's assumptions", quick, seed)
    years, reps = SIZES["quick" if quick else "full"]
    base = load_scenario(BASE)
    grid = axes(base)
    if quick:
        grid = _quick_axes(grid)
    cache: dict = {}

    def point(overrides: dict) -> dict:
        key = tuple(sorted(overrides.items()))
        if key not in cache:
            sc = with_overrides(base, overrides) if overrides else base
            ds = run_engine(sc, VARIANTS, replicates=reps, years=years, seed=seed)
            cache[key] = summarise(measure(ds))
        return cache[key]

    results = {name: [(x, point(ov)) for x, ov in pts] for name, (_, _, pts) in grid.items()}
    rep.text(__doc__.split("\n\n", 1)[1])
    rep.text(f"Base: the `{BASE}` scenario, {years:g} years, {reps} replicates a point, the same seed at every "
             "point (so the populations differ only through the swept assumption).  Intervals: 95 %, Student t "
             "over replicates; differences paired replicate by replicate.  Where a cell says 'no detectable "
             "difference' the interval covers 0.")
    headline: dict = {"years": years, "replicates": reps, "axes": {}}
    for name, (label, unit, _) in grid.items():
        rows, curve = [], []
        for x, s in results[name]:
            rows.append([f"{x:g}"] + [format_ci(*s["rmse"][v]) for v in VARIANTS if v != NO_RPCF]
                        + [format_ci(*s["rpcf_effect"]), _verdict_rpcf(s["rpcf_effect"]),
                           s["half_life_text"], format_ci(*s["exp_minus_line"], digits=3),
                           _verdict_exp(s["exp_minus_line"]), " < ".join(s["ranking"])])
            curve.append({"x": x, "rmse": {v: list(s["rmse"][v]) for v in VARIANTS},
                          "rpcf_effect": list(s["rpcf_effect"]), "half_life_weeks": s["half_life"] and list(s["half_life"]),
                          "exp_minus_line": list(s["exp_minus_line"]),
                          "vs_ngs": {v: list(c) for v, c in s["vs_ngs"].items()}, "ranking": s["ranking"]})
        rep.text(f"## {name}\n\nx = {label}" + (f" ({unit})" if unit else "") + ".  RMSE in grade points "
                 "(imps-lost reads card play: not ranked); RPCF effect = A&E gap error of ngs − ngs(rpcf=0); "
                 "exp − line = RMSE difference; ranking of the result-based schemes by mean RMSE.")
        rep.table(["x"] + [f"RMSE {_short(v)}" for v in VARIANTS if v != NO_RPCF] + [
                   "RPCF effect", "verdict", "NGS club-gap half-life (wk)", "exp − line", "verdict", "ranking"], rows)
        headline["axes"][name] = {"label": label, "points": curve}
    _figures(rep, grid, results)
    conclusions = _conclusions(grid, results)
    rep.text("## What holds and what flips\n\n" + "\n".join(f"* {c}" for c in conclusions["text"]))
    headline["conclusions"] = conclusions["summary"]
    return rep.finish(headline)


def _conclusions(grid: dict, results: dict) -> dict:
    """For each conclusion, the points where it holds, is not detectable, or reverses.

    The defaults are one point (shared by every axis), named "the defaults".
    """
    points = [("the defaults", None, results[next(iter(grid))][0][1])]
    for name, (_, _, pts) in grid.items():
        for (x, ov), (_, s) in zip(pts, results[name]):
            if ov:
                points.append((f"{name} = {x:g}", x, s))
            else:
                points[0] = ("the defaults", None, s)

    def over(test):
        where = {}
        for label, _, s in points:
            where.setdefault(test(s), []).append(label)
        return where

    checks = {
        "RPCF's effect on Aces-and-Eights gap errors": lambda s: _verdict_rpcf(s["rpcf_effect"]),
        "exponential decay vs NGS's line (RMSE)": lambda s: _verdict_exp(s["exp_minus_line"]),
        "ranking of the result-based schemes by mean RMSE": lambda s: " < ".join(s["ranking"]),
    }
    for v in RESULT_SCHEMES[1:]:
        checks[f"{v} vs ngs (RMSE, paired)"] = (
            lambda s, v=v: verdict(s["vs_ngs"][v][1], s["vs_ngs"][v][2], lower_is_better=True)
            .replace("better", f"{v} more accurate").replace("worse", "ngs more accurate"))
    text, summary = [], {}
    for claim, test in checks.items():
        where = over(test)
        summary[claim] = where
        if len(where) == 1:
            text.append(f"**{claim}**: the same at all {len(points)} points: {next(iter(where))}.")
        else:
            parts = "; ".join(f"*{k}* at {', '.join(v)}" for k, v in sorted(where.items(), key=lambda kv: -len(kv[1])))
            text.append(f"**{claim}**: depends on the world: {parts}.")
    hl = [(label, s["half_life"]) for label, _, s in points if s["half_life"]]
    if hl:
        lo, hi = min(hl, key=lambda t: t[1][0]), max(hl, key=lambda t: t[1][0])
        text.append(f"**NGS club-gap half-life**: from {format_ci(*lo[1], digits=0)} weeks ({lo[0]}) to "
                    f"{format_ci(*hi[1], digits=0)} weeks ({hi[0]}).")
    return {"text": text, "summary": summary, "n_points": len(points)}


def _figures(rep: Report, grid: dict, results: dict) -> None:
    pyplot = plt()
    panels = [("RMSE (grade points)", lambda s, v: s["rmse"][v], [LINE, EXPONENTIAL, "ppi", "elo-pairs"]),
              ("RPCF effect on A&E gap error\n(ngs − ngs(rpcf=0), grade points)", lambda s, v: s["rpcf_effect"], [None]),
              ("NGS club-gap half-life (weeks)", lambda s, v: s["half_life"], [None]),
              ("RMSE exponential − line\n(grade points)", lambda s, v: s["exp_minus_line"], [None])]
    fig, axes_ = pyplot.subplots(len(panels), len(grid), figsize=(3.2 * len(grid), 2.6 * len(panels)),
                                 squeeze=False)
    for c, name in enumerate(grid):
        pts = results[name]
        xs = np.array([x for x, _ in pts])
        for r, (ylabel, get, series) in enumerate(panels):
            ax = axes_[r, c]
            for v in series:
                vals = [get(s, v) for _, s in pts]
                ok = [i for i, t in enumerate(vals) if t is not None]
                m = np.array([vals[i][0] for i in ok])
                err = np.array([[vals[i][0] - vals[i][1] for i in ok], [vals[i][2] - vals[i][0] for i in ok]])
                ax.errorbar(xs[ok], m, yerr=err, marker="o", ms=3, capsize=2, label=v or None)
            if r in (1, 3):
                ax.axhline(0, color="grey", lw=0.8)
            if c == 0:
                ax.set_ylabel(ylabel, fontsize=8)
            if r == len(panels) - 1:
                ax.set_xlabel(name, fontsize=8)
            ax.tick_params(labelsize=7)
            if r == 0 and c == 0:
                ax.legend(fontsize=6)
    rep.figure(fig, "sensitivity.png", "headline figures along each swept assumption (95 % intervals over replicates)")
