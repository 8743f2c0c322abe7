"""Isolated clubs, then mixing: how fast each scheme closes the club gaps.

The ``isolated-clubs`` scenario: four clubs of true strength 44 / 48 / 52 /
56 never mix for two years, so every club's grades settle around the same
national level whatever its true strength (the gap is the club's distance
from 50).  Then mixing starts — second-club members, travelling players and
a monthly county event — at several rates.  For each scheme and rate:
every club's (mean grade - true mean) gap over time, the weeks from the
mixing date until the RMS gap over clubs halves and until it stays below
0.5 point (``metrics.diffusion_times``).
"""

from __future__ import annotations

import numpy as np

from simcore import metrics
from simcore.engine import run as run_engine
from simcore.scenario import load_scenario, with_overrides

from ._report import Report, plt

SCHEMES = ["ngs", "ngs(gain=2)", "ppi", "elo-pairs", "imps-lost"]
# mixing rate: (share of members of a second club, chance a session is played at another club,
#               county-event entry rate)
RATES = {"low": (0.05, 0.01, 0.04), "medium": (0.15, 0.05, 0.08), "high": (0.30, 0.10, 0.15)}


def _scenario(rate: str, years: float):
    multi, travel, entry = RATES[rate]
    return with_overrides(load_scenario("isolated-clubs"),
                          {"mixing.multi_club_share": multi, "mixing.travel_rate": travel,
                           "events[0].entry_rate": entry, "calendar.years": years})


def _mean(x) -> float:
    x = np.asarray(x, float)
    return float(np.mean(x)) if np.isfinite(x).all() else float("nan")  # n/a if any replicate never got there


def _boards_per_week(ds, start: str) -> float:
    i0 = int(np.searchsorted(ds["time"].values.astype("datetime64[D]"), np.datetime64(start[:10], "D")))
    weeks = (ds["time"].values[-1] - ds["time"].values[i0]) / np.timedelta64(7, "D")
    b = ds["boards"].isel(time=-1) - ds["boards"].isel(time=i0)
    keep = ds["member"] & ds["active"].isel(time=-1)
    return float(b.where(keep).mean()) / max(float(weeks), 1e-9)


def run(out, quick: bool = False, seed: int = 2026) -> dict:
    rep = Report(out, "Diffusion of grades between isolated clubs", quick, seed)
    years, reps, rates = (6.0, 1, list(RATES)) if quick else (8.0, 3, list(RATES))
    rep.text(__doc__.split("\n\n", 1)[1])
    rows, curves, headline = [], {}, {}
    for rate in rates:
        sc = _scenario(rate, years)
        ds = run_engine(sc, SCHEMES, replicates=reps, seed=seed)
        rep.dataset(ds, f"diffusion_{rate}.nc")
        d = metrics.diffusion_times(ds)
        rms = metrics.club_bias(ds)["rms"].mean("replicate")
        curves[rate] = rms
        bpw = _boards_per_week(ds, d.attrs["start"])
        for j, label in enumerate(ds["scheme"].values):
            row = [rate, str(label)] + [_mean(d[v].isel(scheme=j).values)
                                        for v in ("rms_initial_gap", "rms_weeks_to_halve", "rms_weeks_below")]
            row.insert(4, row[3] * bpw)
            rows.append(row)
            headline[f"{rate}/{label}"] = {"initial_rms_gap": round(row[2], 2), "weeks_to_halve": row[3],
                                           "boards_to_halve": round(row[4], 0), "weeks_below_0.5": row[5]}
    rep.text(f"{years:g} years, {reps} replicate(s), mixing from {d.attrs['start'][:10]}; gaps in grade "
             "points, times in weeks from the mixing date (n/a: not within the run).")
    rep.table(["mixing", "scheme", "RMS gap at mixing", "weeks to halve", "boards to halve", "weeks below 0.5"],
              rows, ".1f")
    rep.text("IMPs-lost rates card play against an absolute scale (IMPs lost per board), so an isolated "
             "club's ratings are not pulled to 50 and there is no gap to close: its row is a control.  "
             "Boards to halve = weeks x the mean boards a week of a home member after mixing starts.")
    pyplot = plt()
    fig, axes = pyplot.subplots(1, len(rates), figsize=(5 * len(rates), 3.8), squeeze=False, sharey=True)
    for ax, rate in zip(axes[0], rates):
        rms = curves[rate]
        for j, label in enumerate(rms["scheme"].values):
            ax.plot(rms["time"].values, rms.isel(scheme=j).values, label=str(label), lw=1.2)
        ax.axvline(np.datetime64(d.attrs["start"][:10]), color="k", lw=0.6, ls="--")
        ax.set_title(f"mixing: {rate}")
        ax.tick_params(axis="x", labelrotation=45, labelsize=7)
    axes[0][0].set_ylabel("RMS over clubs of (mean grade - true mean)")
    axes[0][-1].legend(fontsize=7)
    rep.figure(fig, "club_gap_rms.png", "RMS club gap over time per scheme (dashed: mixing starts)")
    return rep.finish({"halving": headline})
