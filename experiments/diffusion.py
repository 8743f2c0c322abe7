"""Isolated clubs, then mixing: how fast each scheme closes the club gaps.

The ``isolated-clubs`` scenario: four clubs of true strength 44 / 48 / 52 /
56 never mix for two years, so every club's grades settle around the same
national level whatever its true strength (the gap is the club's distance
from 50).  Then mixing starts — second-club members, travelling players and
a monthly county event — at several rates.  For each scheme and rate the
clubs' gaps (club mean grade − club true mean) after the mixing date are
fitted, per replicate, as A_club · exp(−rate · weeks)
(``metrics.club_gap_decay``): one closing rate per replicate, so every
replicate reports a figure and each has a 95 % interval — a run too short
to see a gap halve still yields a (small) rate instead of a missing cell.
Half-life = ln 2 / rate; schemes are compared by the paired difference of
their rates on the same replicates.
"""

from __future__ import annotations

import numpy as np

from simcore import metrics
from simcore.engine import run as run_engine
from simcore.scenario import load_scenario, with_overrides

from ._report import Report, ci, paired, plt, show

SCHEMES = ["ngs", "ngs(gain=1)", "ppi", "elo-pairs", "imps-lost"]
BASELINE = "ngs"
CONTROL = "imps-lost"  # an absolute scale: mixing cannot move its club gaps (they are not relative to a field)
# mixing rate: (share of members of a second club, chance a session is played at another club,
#               county-event entry rate)
RATES = {"low": (0.05, 0.01, 0.04), "medium": (0.15, 0.05, 0.08), "high": (0.30, 0.10, 0.15)}


def _scenario(rate: str, years: float):
    multi, travel, entry = RATES[rate]
    return with_overrides(load_scenario("isolated-clubs"),
                          {"mixing.multi_club_share": multi, "mixing.travel_rate": travel,
                           "events[0].entry_rate": entry, "calendar.years": years})


def _boards_per_week(ds, start: str) -> np.ndarray:
    """Mean boards a week of an active home member after ``start``, per replicate."""
    i0 = int(np.searchsorted(ds["time"].values.astype("datetime64[D]"), np.datetime64(start[:10], "D")))
    weeks = (ds["time"].values[-1] - ds["time"].values[i0]) / np.timedelta64(7, "D")
    b = ds["boards"].isel(time=-1) - ds["boards"].isel(time=i0)
    keep = ds["member"] & ds["active"].isel(time=-1)
    return b.where(keep).mean("player").values / max(float(weeks), 1e-9)


def _half_life(rate_fig: dict) -> str:
    """ln 2 / rate with the interval carried through (a rate interval reaching 0 gives an open end)."""
    m, (lo, hi) = rate_fig["mean"], rate_fig["ci"]
    f = lambda r: np.log(2) / r if r > 0 else np.inf  # noqa: E731
    top = f(lo)
    return f"{f(m):.0f} [{f(hi):.0f}, {'∞' if not np.isfinite(top) else f'{top:.0f}'}]"


def run(out, quick: bool = False, seed: int = 2026) -> dict:
    rep = Report(out, "Diffusion of grades between isolated clubs", quick, seed)
    years, reps = (6.0, 3) if quick else (8.0, 6)
    rep.text(__doc__.split("\n\n", 1)[1])
    rows, prow, curves, headline = [], [], {}, {}
    start = None
    for rate in RATES:
        sc = _scenario(rate, years)
        ds = run_engine(sc, SCHEMES, replicates=reps, seed=seed)
        rep.dataset(ds, f"diffusion_{rate}.nc")
        fit = metrics.club_gap_decay(ds)
        start = fit.attrs["start"]
        curves[rate] = metrics.club_bias(ds)["rms"]
        bpw = _boards_per_week(ds, start)
        labels = [str(x) for x in ds["scheme"].values]
        j0 = labels.index(BASELINE)
        for j, label in enumerate(labels):
            f = fit.isel(scheme=j)
            init, final = ci(f["initial_rms_gap"].values), ci(f["final_rms_gap"].values)
            entry = {"initial_rms_gap": init, "final_rms_gap": final}
            if label == CONTROL:
                rows.append([rate, label, show(init), show(final), "control: absolute scale", "", ""])
            else:
                r = ci(f["rate_per_week"].values)
                boards = ci(np.log(2) / np.maximum(f["rate_per_week"].values, 1e-12) * bpw) \
                    if (f["rate_per_week"].values > 0).all() else None
                rows.append([rate, label, show(init), show(final), show(r, 4), _half_life(r),
                             show(boards, 0) if boards else "some replicate: no closing"])
                entry.update(rate_per_week=r, half_life_weeks=float(np.log(2) / r["mean"]) if r["mean"] > 0
                             else None, boards_to_halve=boards)
                if j != j0:
                    p = paired(f["rate_per_week"].values, fit["rate_per_week"].isel(scheme=j0).values,
                               lower_is_better=False)
                    prow.append([rate, label, show(p, 4), p["verdict"]])
                    entry["rate_vs_ngs"] = p
            headline[f"{rate}/{label}"] = entry
    rep.text(f"{years:g} years, {reps} replicates, mixing from {start[:10]}.  Gaps in grade points (RMS over the "
             "four clubs), rates per week, half-lives in weeks (interval from the rate's interval; ∞: the rate's "
             "interval reaches 0), boards to halve = half-life × the replicate's mean boards a week of an "
             "active home member.")
    rep.table(["mixing", "scheme", "RMS gap at mixing", "RMS gap at the end", "closing rate /week",
               "half-life (weeks)", "boards to halve"], rows)
    weeks_after = float(fit.attrs["weeks"])
    rep.text(f"The run follows the gaps for {weeks_after:.0f} weeks after mixing starts; a half-life longer "
             "than that is the fitted rate extrapolated, not an observed halving.")
    rep.text(f"Closing rate against `{BASELINE}` (gain 2), paired on the same replicates (higher = faster):")
    rep.table(["mixing", "scheme", "Δ rate /week", "verdict"], prow)
    rep.text("IMPs-lost rates card play against an absolute scale (IMPs lost per board), so an isolated "
             "club's ratings are not pulled to 50 and mixing has nothing to close.  Its gap is another one: "
             "the difference between a club's mean card play, mapped to grade points by the fitted IMPs-lost "
             "map, and its mean true strength — card play correlates with true strength "
             "(`players.card_play_correlation`, an assumption) but is not it, so clubs far from the middle "
             "keep a gap whatever the mixing.  Its row is a control for the mixing, not a scheme closing a gap.")
    pyplot = plt()
    fig, axes = pyplot.subplots(1, len(RATES), figsize=(5 * len(RATES), 3.8), squeeze=False, sharey=True)
    for ax, rate in zip(axes[0], RATES):
        rms = curves[rate]
        for j, label in enumerate(rms["scheme"].values):
            y = rms.isel(scheme=j).values  # (replicate, time)
            m = y.mean(0)
            lo, hi = np.percentile(y, [2.5, 97.5], axis=0) if y.shape[0] > 1 else (m, m)
            ax.plot(rms["time"].values, m, label=str(label), lw=1.2)
            ax.fill_between(rms["time"].values, lo, hi, alpha=0.15)
        ax.axvline(np.datetime64(start[:10]), color="k", lw=0.6, ls="--")
        ax.set_title(f"mixing: {rate}")
        ax.tick_params(axis="x", labelrotation=45, labelsize=7)
    axes[0][0].set_ylabel("RMS over clubs of (mean grade - true mean)")
    axes[0][-1].legend(fontsize=7)
    rep.figure(fig, "club_gap_rms.png", "RMS club gap over time per scheme: mean over replicates, band: the "
               "replicates' spread (2.5-97.5 %); dashed: mixing starts")
    rep.world(_scenario("medium", years))
    return rep.finish({"replicates": reps, "mixing_start": start[:10], "halving": headline})
