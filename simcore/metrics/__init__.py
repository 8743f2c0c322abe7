"""Measurements over an engine Dataset, each returning a labelled Dataset.

Every function takes the Dataset ``simcore.run`` returns (dimensions
replicate, scheme, time, player) and measures grades against the known true
strengths.  Units are grade points unless stated.  "Graded players" at a
time are active members who have played at least ``min_boards`` boards
(300 by default: NGS publishes a grade only then) and have a grade.

* ``accuracy``    — RMSE, bias and rank correlation of grade vs true strength;
* ``club_bias``   — per club, mean grade minus mean true strength of its members;
* ``aces_eights`` — inside near-exclusive partnerships, (grade gap − true gap);
* ``volatility``  — sd of a player's grade change between snapshots;
* ``accuracy_by`` — RMSE and bias by club, activity, NGS status or
  partnership type;
* ``diffusion_times`` — from a start date, weeks until each club's gap
  halves and until it stays below 0.5 point;
* ``summary_per_replicate`` — every headline figure per replicate and
  scheme (what intervals are built from); ``summary`` — their means, the
  headline table of ``simcore run``;
* ``club_gap_decay`` — the fitted exponential decay rate (and half-life) of
  the club gaps after a start date, per replicate;
* ``fr18``        — FR18's variance decomposition of session scores and the
  calibration of par (engine runs with ``session_stats=True``).
"""

from __future__ import annotations

import warnings

import numpy as np

from simcore._xarray import xr

NEAR_EXCLUSIVE = 2  # world.PARTNERSHIP_TYPES code


def _rank(x: np.ndarray) -> np.ndarray:
    """Average ranks (ties share their mean rank), for a 1-D array."""
    order = np.argsort(x, kind="mergesort")
    sx = x[order]
    first = np.r_[True, sx[1:] != sx[:-1]]  # where each run of equal values starts, in sorted order
    starts = np.flatnonzero(first)
    ends = np.r_[starts[1:], len(x)]
    ranks = np.empty(len(x))
    # a run [a, b) shares the mean of its ranks, (a + b - 1) / 2: a value alone keeps its own, a
    ranks[order] = ((starts + ends - 1) / 2)[np.cumsum(first) - 1]
    return ranks


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman rank correlation of two 1-D arrays (NaN if fewer than 3 values)."""
    if len(a) < 3:
        return float("nan")
    ra, rb = _rank(np.asarray(a, float)), _rank(np.asarray(b, float))
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def _eligible(ds: xr.Dataset, min_boards: int) -> xr.DataArray:
    """(replicate, time, player): active members with enough boards (graded where they have a grade too)."""
    return ds["active"] & ds["member"] & (ds["boards"] >= min_boards)


def graded_mask(ds: xr.Dataset, min_boards: int = 300) -> xr.DataArray:
    """(replicate, scheme, time, player): active members with enough boards and a grade."""
    mask = _eligible(ds, min_boards) & ds["grade"].notnull()
    return mask.transpose(*ds["grade"].dims)


def accuracy(ds: xr.Dataset, time=-1, min_boards: int = 300) -> xr.Dataset:
    """RMSE, bias (mean grade − truth), rank correlation and count per replicate and scheme.

    ``time``: a snapshot index (default the last).  Bias is measured after
    nothing: grades and true strengths are both in grade points on the same
    national scale, so a scheme whose average drifts shows it here.
    """
    snap = ds.isel(time=time)
    mask = graded_mask(snap, min_boards)
    err = (snap["grade"] - snap["true_strength"]).where(mask)
    out = xr.Dataset({
        "rmse": np.sqrt((err ** 2).mean("player")),
        "bias": err.mean("player"),
        "n": mask.sum("player"),
    })
    rho = np.full((ds.sizes["replicate"], ds.sizes["scheme"]), np.nan)
    for r in range(ds.sizes["replicate"]):
        for j in range(ds.sizes["scheme"]):
            m = mask.isel(replicate=r, scheme=j).values
            rho[r, j] = spearman(snap["grade"].isel(replicate=r, scheme=j).values[m],
                                 snap["true_strength"].isel(replicate=r).values[m])
    out["rank_corr"] = (("replicate", "scheme"), rho)
    out["rmse"].attrs["units"] = out["bias"].attrs["units"] = "grade points"
    return out


def club_bias(ds: xr.Dataset, min_boards: int = 300) -> xr.Dataset:
    """Mean grade − mean true strength of each club's graded home members, over time.

    ``gap`` (replicate, scheme, time, club) and ``rms`` over clubs
    (replicate, scheme, time): how far clubs' grades are from their true
    level — the diffusion measure.
    """
    mask = graded_mask(ds, min_boards)
    n_clubs = int(ds["home_club"].max()) + 1
    err = (ds["grade"] - ds["true_strength"]).where(mask).transpose("replicate", "scheme", "time", "player")
    err = err.values
    R, V, T, P = err.shape
    home = ds["home_club"].transpose("replicate", "player").values.astype(np.int64)
    # one grouped sum over (scheme, time, club) per replicate, instead of a pass over the
    # whole array per club (410 clubs x 85 000 players x 120 snapshots took minutes)
    gap_values = np.full((R, V, T, n_clubs), np.nan)
    for r in range(R):
        ok = ~np.isnan(err[r]) & (home[r] >= 0)[None, None, :]
        rows = np.arange(V * T).reshape(V, T, 1) * n_clubs
        idx = (rows + home[r][None, None, :])[ok]
        total = np.bincount(idx, weights=err[r][ok], minlength=V * T * n_clubs)
        count = np.bincount(idx, minlength=V * T * n_clubs)
        with np.errstate(invalid="ignore", divide="ignore"):
            gap_values[r] = (total / count).reshape(V, T, n_clubs)
    gap = xr.DataArray(np.moveaxis(gap_values, -1, 0), dims=("club", "replicate", "scheme", "time"),
                       coords={k: c for k, c in ds["grade"].coords.items() if "player" not in c.dims})
    gap = gap.assign_coords(club_name=("club", ds["club_name"].values[:n_clubs]))
    rms = np.sqrt((gap ** 2).mean("club"))
    return xr.Dataset({"gap": gap, "rms": rms})


def partnerships(ds: xr.Dataset, replicate: int = 0) -> np.ndarray:
    """(a, b) player pairs of near-exclusive partnerships in a replicate (a < b)."""
    p = ds["partner"].isel(replicate=replicate).values
    t = ds["partnership_type"].isel(replicate=replicate).values
    a = np.flatnonzero((t == NEAR_EXCLUSIVE) & (p > np.arange(len(p))))
    return np.stack([a, p[a]], axis=1)


def aces_eights(ds: xr.Dataset, min_boards: int = 300) -> xr.Dataset:
    """Inside near-exclusive partnerships: (grade gap − true gap) over time.

    For each partnership (a, b): gap error = (g_a − g_b) − (t_a − t_b).
    Returns per (replicate, scheme, time): mean |gap error| and the shares
    of partnerships whose |gap error| exceeds 4, 10 and 20 points (NGS FR 13:
    up to 4 is chance; the case studies reached 20).
    """
    R, V, T = ds.sizes["replicate"], ds.sizes["scheme"], ds.sizes["time"]
    mean_abs = np.full((R, V, T), np.nan)
    shares = {k: np.full((R, V, T), np.nan) for k in (4, 10, 20)}
    count = np.zeros((R, V, T), np.int64)
    for r in range(R):
        pairs = partnerships(ds, r)
        if not len(pairs):
            continue
        g = ds["grade"].isel(replicate=r).values
        t = ds["true_strength"].isel(replicate=r).values
        ok = graded_mask(ds.isel(replicate=r), min_boards).values
        a, b = pairs[:, 0], pairs[:, 1]
        err = (g[:, :, a] - g[:, :, b]) - (t[None, :, a] - t[None, :, b])
        valid = ok[:, :, a] & ok[:, :, b]
        e = np.where(valid, np.abs(err), np.nan)
        count[r] = valid.sum(-1)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # no graded partnership yet: NaN is the answer
            mean_abs[r] = np.nanmean(e, -1) if e.shape[-1] else np.nan
            for k in shares:
                shares[k][r] = np.where(count[r] > 0, np.nansum(e > k, -1) / np.maximum(count[r], 1), np.nan)
    dims = ("replicate", "scheme", "time")
    coords = {d: ds[d] for d in dims}
    return xr.Dataset({"mean_abs_gap_error": (dims, mean_abs), "share_over_4": (dims, shares[4]),
                       "share_over_10": (dims, shares[10]), "share_over_20": (dims, shares[20]),
                       "n_partnerships": (dims, count)}, coords=coords)


def volatility(ds: xr.Dataset, min_boards: int = 300) -> xr.Dataset:
    """sd of graded players' grade changes between consecutive snapshots (replicate, scheme).

    A change counts where the player is graded at both snapshots.  Computed as ``numpy.nanstd``
    computes it over (time, player) (its operations on the same float32 values, so the same figures
    bit for bit), on one array of the changes that holds 0 where none counts: the xarray form shifted,
    padded and masked copies of the whole (replicate, scheme, time, player) array and nanstd copied
    it once more to replace its NaNs, 0.5 s of a national decade's summary, after the engine.

    Snapshot by snapshot (``_counted_changes``), the changes are taken everywhere and those that do
    not count cleared by a bitwise and with words of all ones or all zeros (+0.0, as nanstd's replaced
    NaN): numpy's masked ufuncs (``where=``) and boolean assignment branch on every element, and on a
    national decade's 41 M a masked subtraction took 130-150 ms where the plain one and the and take
    ~10 ms each; a snapshot's masks are small, so no array of the whole's size but the changes is made.
    """
    dims = ("replicate", "scheme", "time", "player")
    grade = ds["grade"].transpose(*dims).values
    ok = _eligible(ds, min_boards).transpose("replicate", "time", "player").values
    change = np.empty(grade.shape, grade.dtype)
    n = np.zeros(grade.shape[:2] + (1, 1), np.intp)
    _counted_changes(grade, ok, change, n)
    axes = (2, 3)
    mean = np.sum(change, axis=axes, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):  # no change counted: no figure (NaN, below)
        np.true_divide(mean, n, out=mean, casting="unsafe")
        _counted_changes(grade, ok, change, None, mean)  # nanstd's 0 stays 0 elsewhere
        np.multiply(change, change, out=change)
        var = np.sum(change, axis=axes)
        n = n.reshape(var.shape)
        np.true_divide(var, n, out=var, casting="unsafe")
    var[n <= 0] = np.nan
    coords = {k: c for k, c in ds["grade"].coords.items() if set(c.dims) <= {"replicate", "scheme"}}
    return xr.Dataset({"step_sd": (dims[:2], np.sqrt(var)), "n": (dims[:2], n)}, coords=coords)


def _counted_changes(grade, ok, change, n, mean=None) -> None:
    """``volatility``'s array of changes, snapshot by snapshot: ``change[:, :, t]`` = grade at t minus
    grade at t - 1 where the player is graded at both (``ok`` and not NaN), else 0 (t = 0: 0); with
    ``mean`` (R, V, 1, 1), ``change - mean`` where counted, else 0, instead.  ``n`` (R, V, 1, 1), unless
    None, gets the changes counted added."""
    if grade.shape[2] == 0:  # no snapshot, no change
        return
    bits = f"u{grade.dtype.itemsize}"
    shape = grade.shape[:2] + grade.shape[3:]  # (R, V, P): one snapshot
    mask = np.empty(shape, bits)  # all ones where a change counts, else 0
    before, now, both = np.empty(shape, bool), np.empty(shape, bool), np.empty(shape, bool)
    step = np.empty(shape, grade.dtype)

    def graded(t, out):
        np.isnan(grade[:, :, t], out=out)
        np.logical_not(out, out=out)
        np.logical_and(out, ok[:, None, t], out=out)

    graded(0, before)
    change[:, :, 0] = 0  # no change counted at the first snapshot
    for t in range(1, grade.shape[2]):
        graded(t, now)
        np.logical_and(now, before, out=both)
        if n is not None:
            n[:, :, 0, 0] += np.sum(both, axis=-1, dtype=np.intp)
        np.copyto(mask, both)
        np.negative(mask, out=mask)  # 1 -> all ones (unsigned wrap), 0 -> 0
        if mean is None:
            np.subtract(grade[:, :, t], grade[:, :, t - 1], out=step)
        else:
            np.subtract(change[:, :, t], mean[:, :, 0], out=step, casting="unsafe")
        np.bitwise_and(step.view(bits), mask, out=change[:, :, t].view(bits))
        before, now = now, before


ACTIVITY_BINS = (0.0, 0.5, 1.0, 2.0, np.inf)  # sessions a week


def _groups(ds: xr.Dataset, by: str):
    """(codes (replicate, [scheme,] player) with -1 = no group, labels) for accuracy_by."""
    if by == "club":
        codes = ds["home_club"]
        n = int(codes.max()) + 1
        return codes, [str(x) for x in ds["club_name"].values[:n]]
    if by == "partnership":
        import json
        names = json.loads(ds.attrs["partnership_types"])
        return ds["partnership_type"].astype(np.int64), names
    if by == "activity":
        edges = np.asarray(ACTIVITY_BINS)
        codes = xr.apply_ufunc(lambda a: np.searchsorted(edges, a, side="right") - 1, ds["activity"])
        labels = [f"{a:g}-{b:g}/wk" if np.isfinite(b) else f">={a:g}/wk" for a, b in zip(edges[:-1], edges[1:])]
        return codes, labels
    if by == "status":
        var = _status_variable(ds)
        labels = [w.replace("_", " ") for w in ds[var].attrs["flag_meanings"].split()]
        return ds[var].fillna(-1).astype(np.int64), labels
    raise ValueError(f"accuracy_by: by={by!r}: choose club, activity, status or partnership")


def _status_variable(ds: xr.Dataset) -> str:
    """The first snapshot extra called ``status`` (NGS's: provisional, evolving, mature, out of date)."""
    found = [name for name in ds.data_vars if ds[name].attrs.get("extra") == "status"]
    if not found:
        raise ValueError("accuracy_by(by='status') needs a variant of a scheme that records a 'status' "
                         "extra in the run (e.g. NGS's)")
    return found[0]


def accuracy_by(ds: xr.Dataset, by: str, time=-1, min_boards: int = 300) -> xr.Dataset:
    """RMSE, bias and count of graded players per group at one snapshot (replicate, scheme, group).

    by: ``club`` (home club), ``activity`` (sessions a week, bins
    ``ACTIVITY_BINS``), ``status`` (the NGS status of the player in the run's
    NGS variant, the same grouping applied to every scheme) or
    ``partnership`` (the world's partnership type).  Units: grade points.
    """
    codes, labels = _groups(ds, by)
    snap = ds.isel(time=time)
    if "time" in codes.dims:
        codes = codes.isel(time=time)
    if by == "status":  # the status of the first variant that publishes one groups every scheme's players
        owner = ds[_status_variable(ds)].attrs["scheme_name"]
        first = [j for j, n in enumerate(ds["scheme_name"].values) if str(n) == owner][0]
        codes = codes.isel(scheme=first, drop=True)
    mask = graded_mask(snap, min_boards)
    err = snap["grade"] - snap["true_strength"]
    rmse, bias, n = [], [], []
    for g in range(len(labels)):
        m = mask & (codes == g)
        e = err.where(m)
        rmse.append(np.sqrt((e ** 2).mean("player")))
        bias.append(e.mean("player"))
        n.append(m.sum("player"))
    out = xr.Dataset({"rmse": xr.concat(rmse, "group"), "bias": xr.concat(bias, "group"),
                      "n": xr.concat(n, "group")})
    out = out.assign_coords(group=labels)
    out["rmse"].attrs["units"] = out["bias"].attrs["units"] = "grade points"
    out.attrs["by"] = by
    return out.transpose("replicate", "scheme", "group")


def _first_time_at_or_below(x: np.ndarray, level: np.ndarray, stay: bool) -> np.ndarray:
    """Index along the last axis where |x| first gets to ``level`` (and, with stay, stays); -1 if never."""
    below = np.abs(x) <= level[..., None]
    if stay:  # from the index on, every later value is below too
        below = np.flip(np.logical_and.accumulate(np.flip(below, -1), -1), -1)
    hit = below.any(-1)
    return np.where(hit, below.argmax(-1), -1)


def diffusion_times(ds: xr.Dataset, start: str | None = None, min_boards: int = 300,
                    threshold: float = 0.5) -> xr.Dataset:
    """Weeks from ``start`` until each club's (mean grade − true mean) gap halves, and until it is
    below ``threshold`` for good.

    start: ISO date (default the scenario's ``mixing.isolation_ends``, else
    the first snapshot); the gap at the first snapshot on or after it is the
    initial gap.  Returns (replicate, scheme, club): ``initial_gap`` (grade
    points), ``weeks_to_halve`` and ``weeks_below`` (NaN if it never
    happens within the run), and the same three for the RMS over clubs
    (``rms_*``, dims replicate, scheme).
    """
    if start is None:
        import json
        sc = json.loads(ds.attrs.get("scenario", "{}"))
        start = sc.get("mixing", {}).get("isolation_ends") or str(ds["time"].values[0])[:10]
    times = ds["time"].values.astype("datetime64[D]")
    t0 = np.datetime64(start, "D")
    i0 = int(np.searchsorted(times, t0))
    if i0 >= len(times):
        raise ValueError(f"diffusion_times: start {start} is after the last snapshot {times[-1]}")
    cb = club_bias(ds.isel(time=slice(i0, None)), min_boards)
    weeks = (times[i0:] - times[i0]).astype(np.float64) / 7.0

    def measure(gap: np.ndarray):
        init = gap[..., 0]
        half = _first_time_at_or_below(gap, np.abs(init) / 2, stay=False)
        below = _first_time_at_or_below(gap, np.full(init.shape, threshold), stay=True)
        to_w = lambda i: np.where(i >= 0, weeks[np.maximum(i, 0)], np.nan)  # noqa: E731
        return init, to_w(half), to_w(below)

    gap = cb["gap"].transpose("replicate", "scheme", "club", "time").values
    init, half, below = measure(np.nan_to_num(gap, nan=0.0))
    rinit, rhalf, rbelow = measure(cb["rms"].transpose("replicate", "scheme", "time").values)
    d3, d2 = ("replicate", "scheme", "club"), ("replicate", "scheme")
    out = xr.Dataset({"initial_gap": (d3, init), "weeks_to_halve": (d3, half), "weeks_below": (d3, below),
                      "rms_initial_gap": (d2, rinit), "rms_weeks_to_halve": (d2, rhalf),
                      "rms_weeks_below": (d2, rbelow)},
                     coords={"replicate": ds["replicate"], "scheme": ds["scheme"],
                             "club_name": ("club", cb["club_name"].values)})
    out.attrs.update(start=str(times[i0]), threshold=threshold)
    return out


SUMMARY_KEYS = {
    "rmse": "RMSE of grade vs true strength over graded players at the last snapshot (grade points)",
    "rank_corr": "Spearman rank correlation of grade and true strength",
    "bias": "mean grade minus mean true strength (grade points)",
    "club_bias_rms": "RMS over clubs of (club mean grade - club mean true strength) at the last snapshot",
    "aces_eights_gap": "mean |(grade gap) - (true gap)| inside near-exclusive partnerships at the last snapshot",
    "aces_eights_over_4": "share of near-exclusive partnerships whose gap error exceeds 4 points",
    "volatility": "sd of a graded player's grade change from one snapshot to the next (grade points)",
    "n_graded": "graded players at the last snapshot (active members with >= 300 boards), all replicates",
}


def _fit_decay_rate(gap: np.ndarray, weeks: np.ndarray, k_max: float) -> float:
    """Least-squares k of gap[c, t] ≈ A_c · exp(−k · weeks[t]), A_c free per club (NaN cells skipped).

    For a fixed k the best A_c is linear (Σ g·e / Σ e²), so the fit is a
    one-dimensional search over k in [0, k_max]: a log grid, then a bounded
    refinement around the best grid point.
    """
    from scipy.optimize import minimize_scalar
    ok = np.isfinite(gap)
    g = np.where(ok, gap, 0.0)

    def sse(k: float) -> float:
        e = np.exp(-k * weeks)[None, :] * ok
        den = (e * e).sum(1)
        a = np.where(den > 0, (g * e).sum(1) / np.where(den > 0, den, 1.0), 0.0)
        return float((((g - a[:, None] * e) * ok) ** 2).sum())

    grid = np.r_[0.0, np.geomspace(1e-5, k_max, 120)]
    values = [sse(k) for k in grid]
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    if hi <= lo:
        return float(grid[i])
    res = minimize_scalar(sse, bounds=(lo, hi), method="bounded", options={"xatol": 1e-7})
    return float(res.x) if res.fun <= values[i] else float(grid[i])


def club_gap_decay(ds: xr.Dataset, start: str | None = None, min_boards: int = 300,
                   k_max: float = 0.5) -> xr.Dataset:
    """The rate at which club gaps close after ``start``, fitted per replicate and scheme.

    Each club's gap (mean grade − mean true strength of its graded home
    members, grade points) from the first snapshot on or after ``start``
    (default the scenario's ``mixing.isolation_ends``) is fitted jointly as
    ``A_club · exp(−rate · weeks)``: one rate for all clubs, each club its
    own starting amplitude.  Unlike a first crossing, a rate exists for every
    replicate — a run too short to see the gap halve still gives a small
    rate — so it always has an interval over replicates.  Returns
    (replicate, scheme): ``rate_per_week`` (1/weeks; 0 = no closing),
    ``half_life_weeks`` = ln 2 / rate (inf for rate 0), ``initial_rms_gap``
    and ``final_rms_gap`` (RMS over clubs at the start and at the end).
    """
    if start is None:
        import json
        sc = json.loads(ds.attrs.get("scenario", "{}"))
        start = sc.get("mixing", {}).get("isolation_ends") or str(ds["time"].values[0])[:10]
    times = ds["time"].values.astype("datetime64[D]")
    i0 = int(np.searchsorted(times, np.datetime64(start, "D")))
    if i0 >= len(times) - 2:
        raise ValueError(f"club_gap_decay: start {start} leaves fewer than 3 snapshots (last {times[-1]})")
    cb = club_bias(ds.isel(time=slice(i0, None)), min_boards)
    weeks = (times[i0:] - times[i0]).astype(np.float64) / 7.0
    gap = cb["gap"].transpose("replicate", "scheme", "club", "time").values
    R, V = gap.shape[:2]
    rate = np.array([[_fit_decay_rate(gap[r, v], weeks, k_max) for v in range(V)] for r in range(R)])
    with np.errstate(divide="ignore"):
        half = np.where(rate > 0, np.log(2.0) / np.where(rate > 0, rate, 1.0), np.inf)
    rms = cb["rms"].transpose("replicate", "scheme", "time").values
    d2 = ("replicate", "scheme")
    out = xr.Dataset({"rate_per_week": (d2, rate), "half_life_weeks": (d2, half),
                      "initial_rms_gap": (d2, rms[..., 0]), "final_rms_gap": (d2, rms[..., -1])},
                     coords={"replicate": ds["replicate"], "scheme": ds["scheme"]})
    out.attrs.update(start=str(times[i0]), weeks=float(weeks[-1]))
    return out


# per-replicate figures: the names ``simcore compare`` reports (directions in intervals.LOWER_IS_BETTER)
REPLICATE_KEYS = {
    "rmse": "RMSE of grade vs true strength over graded players at the last snapshot (grade points)",
    "rank_corr": "Spearman rank correlation of grade and true strength at the last snapshot",
    "bias": "mean grade minus mean true strength of graded players (grade points; signed)",
    "abs_bias": "|mean grade minus mean true strength| (grade points)",
    "club_bias": "RMS over clubs of (club mean grade - club mean true strength), last snapshot (grade points)",
    "aces_eights": "mean |(grade gap) - (true gap)| inside near-exclusive partnerships, last snapshot "
                   "(grade points)",
    "aces_eights_over_4": "share of near-exclusive partnerships whose gap error exceeds 4 points",
    "volatility": "sd of a graded player's grade change from one snapshot to the next (grade points)",
    "n_graded": "graded players at the last snapshot (active members with >= 300 boards)",
}


def summary_per_replicate(ds: xr.Dataset, min_boards: int = 300) -> xr.Dataset:
    """Every headline figure per (replicate, scheme): the unit every interval is built from.

    Variables are ``REPLICATE_KEYS``; a figure a replicate cannot measure
    (no graded near-exclusive partnership, say) is NaN for that replicate.
    """
    acc = accuracy(ds, -1, min_boards)
    clubs = club_bias(ds.isel(time=[-1]), min_boards)
    ae = aces_eights(ds.isel(time=[-1]), min_boards)
    vol = volatility(ds, min_boards)
    out = xr.Dataset({
        "rmse": acc["rmse"], "rank_corr": acc["rank_corr"], "bias": acc["bias"], "abs_bias": np.abs(acc["bias"]),
        "club_bias": clubs["rms"].isel(time=0, drop=True),
        "aces_eights": ae["mean_abs_gap_error"].isel(time=0, drop=True),
        "aces_eights_over_4": ae["share_over_4"].isel(time=0, drop=True),
        "volatility": vol["step_sd"], "n_graded": acc["n"],
    })
    out = out.drop_vars([c for c in out.coords if c not in ("replicate", "scheme", "scheme_name")])
    for k, doc in REPLICATE_KEYS.items():
        out[k] = out[k].transpose("replicate", "scheme")
        out[k].attrs["long_name"] = doc
    return out


def summary(ds: xr.Dataset, min_boards: int = 300, per: xr.Dataset | None = None) -> dict:
    """Headline figures per scheme variant, averaged over replicates (keys in SUMMARY_KEYS).

    For intervals over replicates use ``summary_per_replicate`` with
    ``metrics.intervals`` (``simcore compare`` does); a caller that has it
    already passes it as ``per`` (it is most of the work: ~1 s for a
    national decade).
    """
    per = summary_per_replicate(ds, min_boards) if per is None else per
    names = {"rmse": "rmse", "rank_corr": "rank_corr", "bias": "bias", "club_bias_rms": "club_bias",
             "aces_eights_gap": "aces_eights", "aces_eights_over_4": "aces_eights_over_4",
             "volatility": "volatility"}
    out = {}
    for j, label in enumerate(ds["scheme"].values):
        out[str(label)] = {k: float(per[v].isel(scheme=j).mean()) for k, v in names.items()}
        out[str(label)]["n_graded"] = int(per["n_graded"].isel(scheme=j).sum())
    return out


# --- FR18: the variance decomposition of session scores ------------------------------
# (the per-session sums are recorded by the engine during pass B: engine/session_stats.py)

def fr18(ds: xr.Dataset) -> xr.Dataset:
    """FR18's decomposition from an engine run with ``session_stats=True``.

    Means over all qualifying sessions of the run (replicate, scheme):
    S_var, R_var, G_var, E_var = S − R − G (FR18's shortcut), E_direct (the
    pair-grading error's variance measured directly), A_var (compare S − G,
    FR18: 40.24 vs 40.15), and the slope of actual session score on par (1 = par
    is calibrated).  EBU data (FR18): S 57.83, R 39.43, G 17.68, E 0.72.
    """
    if "fr18_sessions" not in ds:
        raise ValueError("this Dataset has no session statistics: run the engine with session_stats=True")
    # the engine's per-chunk sums (engine.session_stats.FR18_KEYS), summed over time
    tot = {name[len("fr18_"):]: ds[name].sum("time") for name in ds.data_vars if name.startswith("fr18_")}
    n = tot["sessions"]
    out = xr.Dataset({k: tot[k] / n for k in ("s_var", "r_var", "g_var", "a_var", "t_var")
                      if k in tot})
    out["e_var"] = out["s_var"] - out["r_var"] - out["g_var"]
    if "e_direct" in tot:
        out["e_direct"] = tot["e_direct"] / n
    out["sessions"] = n
    pn = tot["par_n"]
    cov = tot["par_xy"] / pn - (tot["par_x"] / pn) * (tot["par_y"] / pn)
    var = tot["par_xx"] / pn - (tot["par_x"] / pn) ** 2
    out["par_slope"] = cov / var
    return out
