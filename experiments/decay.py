"""Exponential versus straight-line decay (and rectangle, trapezium), matched fairly.

Decay decides how much an old session still counts.  NGS weights its last
2 000 boards along a straight line (a triangle); PPI's update is an
exponential decay; the rectangle (a plain moving window) and the trapezium
(flat, then linear) are the alternatives FR16 discusses.  A fair comparison
fixes one figure and compares the others:

* **matched on volatility**: each shape's parameter is set so that a
  stationary average player's grade has the same sd as under NGS's line
  (``probes.stationary_volatility``, sessions with real bridge's noise);
* **matched on half-life**: the exponential's half-life is set so that one
  exceptional session's effect halves after as many boards as under the line
  (``probes.impulse_response``).

For each matched variant: impulse half-life and time to vanish, step
response (weeks to cover 90 % of a true change), and accuracy and volatility
on the default county (the engine, every variant on the same results).
The seeds' claims are tested with the same probes: NGS "the effect of a
session halves in 20 weeks and vanishes in 40 at two 25-board sessions a
week" and PPI "for a player playing 416 qualifying boards a quarter, the
effect of a session halves every three months".
"""

from __future__ import annotations

import numpy as np

from simcore import metrics
from simcore.probes import decay as probes
from simcore.engine import run as run_engine

from ._report import Report, plt


def _bisect(f, target: float, lo: float, hi: float, iters: int) -> float:
    """x in [lo, hi] (log scale) with f(x) = target, f increasing or decreasing."""
    flo = f(lo) - target
    for _ in range(iters):
        mid = float(np.sqrt(lo * hi))
        fm = f(mid) - target
        if np.sign(fm) == np.sign(flo):
            lo, flo = mid, fm
        else:
            hi = mid
    return float(np.sqrt(lo * hi))


def _variant(shape: str, x: float) -> str:
    if shape == "exponential":
        return f"ngs(decay=exponential,half_life={x:.0f})"
    if shape == "trapezium":
        return f"ngs(decay=trapezium,window={x:.0f},flat={x / 2:.0f})"
    return f"ngs(decay={shape},window={x:.0f})"


def seed_claims(rep: Report) -> dict:
    ngs1 = probes.impulse_response("ngs", boards=25, sessions_per_week=2.0)
    ngs2 = probes.impulse_response("ngs(gain=2)", boards=25, sessions_per_week=2.0)
    # 416 qualifying boards a quarter = 32 a week: two 16-board sessions
    ppi = probes.impulse_response("ppi", boards=16, sessions_per_week=2.0)
    rep.text("## The seeds' claims\n\nOne exceptional session (+20 %) among average ones, after a long "
             "warm-up (windows full, m at its regular value):")
    rep.table(["scheme", "claim", "half-life (weeks)", "gone (weeks)", "half-life (boards)"],
              [["ngs (gain 1)", "halves 20 wk, gone 40 wk (2 x 25 boards/wk)", ngs1["half_life_weeks"],
                ngs1["gone_weeks"], ngs1["half_life_boards"]],
               ["ngs(gain=2)", "same", ngs2["half_life_weeks"], ngs2["gone_weeks"], ngs2["half_life_boards"]],
               ["ppi", "halves every 13 wk at 416 boards a quarter", ppi["half_life_weeks"], ppi["gone_weeks"],
                ppi["half_life_boards"]]], ".1f")
    rep.text("NGS's claim holds with the gain of 2 the EBU ran: the line's window empties after 2 000 "
             "boards (40 weeks) and the doubled excess over par gives the session a weight that halves with "
             "the window.  With the natural gain of 1, later sessions' par carries the grade the session "
             "raised, so its effect lingers well beyond the window.  PPI at 416 qualifying boards a quarter "
             "has w > 300, so m = 600 and each board moves a player by (p - e)/(2m): an exponential with "
             f"half-life near ln 2 x 2m = 832 boards (26 weeks); measured {ppi['half_life_boards']:.0f} boards "
             f"({ppi['half_life_weeks']:.1f} weeks).  Halving in three months would need m near 300.")
    return {"ngs_gain1_half_life_weeks": ngs1["half_life_weeks"], "ngs_gain1_gone_weeks": ngs1["gone_weeks"],
            "ngs_gain2_half_life_weeks": ngs2["half_life_weeks"], "ngs_gain2_gone_weeks": ngs2["gone_weeks"],
            "ppi_half_life_weeks_at_416_a_quarter": ppi["half_life_weeks"]}


def run(out, quick: bool = False, seed: int = 2026) -> dict:
    rep = Report(out, "Exponential versus straight-line decay, matched fairly", quick, seed)
    rep.text(__doc__.split("\n\n", 1)[1])
    claims = seed_claims(rep)
    iters, n_sess = (9, 1500) if quick else (14, 4000)
    vol = lambda v: probes.stationary_volatility(v, n_sessions=n_sess, seed=seed)["sd"]  # noqa: E731
    line_sd = vol("ngs")
    line_hl = probes.impulse_response("ngs")["half_life_boards"]
    matched = {"line": ("ngs", "reference (window 2000)")}
    # bounds bracket the matches (~500 / ~1 400 / ~1 750 boards)
    for shape, lo, hi in (("exponential", 100, 2000), ("rectangle", 300, 6000), ("trapezium", 300, 6000)):
        x = _bisect(lambda x: vol(_variant(shape, x)), line_sd, lo, hi, iters)
        matched[f"{shape}, equal volatility"] = (_variant(shape, x), f"{x:.0f} boards")
    x = _bisect(lambda x: probes.impulse_response(_variant("exponential", x))["half_life_boards"], line_hl,
                50, 2000, iters)
    matched["exponential, equal half-life"] = (_variant("exponential", x), f"half-life {x:.0f} boards")
    variants = [v for v, _ in matched.values()]
    years, reps = (3.0, 1) if quick else (5.0, 3)
    ds = run_engine("default", variants, replicates=reps, years=years, seed=seed)
    rep.dataset(ds, "decay.nc")
    summ = metrics.summary(ds)
    rows, table = [], {}
    for (name, (v, param)), label in zip(matched.items(), ds["scheme"].values):
        imp = probes.impulse_response(v)
        step = probes.step_response(v)
        s = summ[str(label)]
        row = [name, param, vol(v), imp["half_life_weeks"], imp["gone_weeks"], step["ninety_weeks"],
               s["rmse"], s["volatility"]]
        rows.append(row)
        table[name] = dict(zip(["variant", "parameter", "stationary_sd", "half_life_weeks", "gone_weeks",
                                "step_90_weeks", "rmse", "volatility"], [v] + row[1:]))
    rep.text(f"## Matched shapes\n\nProbe: 2 sessions of 25 boards a week (24 for volatility).  Engine: "
             f"default county, {years:g} years, {reps} replicate(s).  Stationary sd and RMSE in grade points.")
    rep.table(["shape", "parameter", "stationary sd", "half-life (wk)", "gone (wk)", "step 90 % (wk)",
               "RMSE", "volatility"], rows)
    pyplot = plt()
    fig, axes = pyplot.subplots(1, 2, figsize=(11, 4))
    for name, (v, _) in matched.items():
        imp = probes.impulse_response(v)
        weeks = np.arange(len(imp["response"])) / 2.0
        axes[0].plot(weeks, imp["response"], label=name)
        st = probes.step_response(v)
        axes[1].plot(np.arange(len(st["response"])) / 2.0, st["response"], label=name)
    axes[0].set_xlabel("weeks after the exceptional session")
    axes[0].set_ylabel("share of the jump left")
    axes[0].set_xlim(0, 150)
    axes[1].set_xlabel("weeks after the true change")
    axes[1].set_ylabel("share of the new level reached")
    axes[1].set_xlim(0, 150)
    axes[0].legend(fontsize=7)
    rep.figure(fig, "responses.png", "impulse and step responses of the matched shapes")
    best = min(table, key=lambda k: table[k]["rmse"])
    rep.text(f"Lowest RMSE: **{best}**.")
    return rep.finish({"claims": claims, "matched": table, "lowest_rmse": best})
