"""A results set described: how big, how busy, how partnered, how spread.

``describe(results, scored)`` measures a ``Results`` — real (``simcore
import``) or simulated (a scenario's bundle) — with the same definitions, so
``simcore describe`` can put a club's figures beside a simulated world's:

* players, sessions, boards;
* tables per session (travellers / boards of the session);
* boards per session;
* partner share: per player, the share of their sessions played with their
  most frequent partner (1.0 = always the same partner; the NGS's regular
  partnership threshold is 0.85);
* sessions per player-week: per player, sessions over the weeks from their
  first to their last session (at least one week);
* session MP %: every pair's percentage in match-pointed sessions (its
  spread is what grades must see through).

Each distributional figure is given as mean, 10th, 50th and 90th
percentile over its units (sessions, players or pair entries).  These are
descriptions of one results set, not estimates: a simulated world's figures
come from one replicate, so differences of a few per cent between the two
columns are within a replicate's noise.
"""

from __future__ import annotations

import numpy as np

from simcore.results import SCORING_MP

FIGURES = (
    ("tables_per_session", "tables per session", "tables"),
    ("boards_per_session", "boards per session", "boards"),
    ("partner_share", "share of sessions with most frequent partner", "fraction"),
    ("sessions_per_week", "sessions per player-week (first to last session)", "sessions"),
    ("session_percentage", "session MP % (match-pointed pairs)", "MP %"),
)


def _summary(x) -> dict:
    x = np.asarray(x, np.float64)
    if not len(x):
        return {"n": 0, "mean": float("nan"), "p10": float("nan"), "p50": float("nan"), "p90": float("nan"),
                "values": x}
    p10, p50, p90 = np.percentile(x, [10, 50, 90])
    return {"n": int(len(x)), "mean": float(x.mean()), "p10": float(p10), "p50": float(p50), "p90": float(p90),
            "sd": float(x.std(ddof=1)) if len(x) > 1 else float("nan"), "values": x}


def describe(results, scored) -> dict:
    """The figures of ``FIGURES`` plus counts, for one results set."""
    r, s = results, scored
    S = r.n_sessions
    # a session published twice (a scoring error, then its correction) is one session played:
    # describe the correction and leave out the publication it replaces
    rep = np.asarray(r.session_replaces)
    played_once = np.ones(S, bool)
    played_once[rep[rep >= 0]] = False
    trav = np.bincount(r.trav_session, minlength=S).astype(np.float64)[played_once]
    boards = np.asarray(r.session_boards, np.float64)[played_once]
    tables = np.divide(trav, boards, out=np.zeros(len(boards)), where=boards > 0)
    # pair entries -> (player, partner, session)
    pp = np.asarray(s.pair_players)
    sess_of_entry = np.repeat(np.arange(S), np.diff(np.asarray(s.pair_start)))
    kept = played_once[sess_of_entry]
    pp, sess_of_entry = pp[kept], sess_of_entry[kept]
    player = np.concatenate([pp[:, 0], pp[:, 1]]).astype(np.int64)
    partner = np.concatenate([pp[:, 1], pp[:, 0]]).astype(np.int64)
    sess = np.concatenate([sess_of_entry, sess_of_entry])
    P = r.n_players
    share = np.full(P, np.nan)
    if len(player):
        key = player * (P + 1) + partner
        uniq, counts = np.unique(key, return_counts=True)
        owner = uniq // (P + 1)
        best = np.zeros(P)
        np.maximum.at(best, owner, counts)
        n_sessions = np.bincount(player, minlength=P).astype(np.float64)
        played = n_sessions > 0
        share[played] = best[played] / n_sessions[played]
    day = np.asarray(r.session_day, np.int64)[sess]
    first = np.full(P, np.iinfo(np.int64).max)
    last = np.full(P, np.iinfo(np.int64).min)
    np.minimum.at(first, player, day)
    np.maximum.at(last, player, day)
    count = np.bincount(player, minlength=P)
    active = count > 0
    weeks = np.maximum(1.0, (last[active] - first[active] + 1) / 7.0)
    per_week = count[active] / weeks
    mp = np.asarray(s.scoring)[sess_of_entry] == SCORING_MP
    pct = np.asarray(s.pair_score)[kept][mp]
    return {
        "players": int(active.sum()), "sessions": int(played_once.sum()), "boards": int(boards.sum()),
        "travellers": int(trav.sum()), "pair_entries": int(len(pp)),
        "tables_per_session": _summary(tables), "boards_per_session": _summary(boards),
        "partner_share": _summary(share[np.isfinite(share)]), "sessions_per_week": _summary(per_week),
        "session_percentage": _summary(pct),
    }


def table_text(columns: dict) -> str:
    """A text table of several ``describe`` results side by side: {column title: figures}."""
    titles = list(columns)
    width = max(24, *(len(t) + 2 for t in titles))
    lines = ["figure".ljust(52) + "".join(t.rjust(width) for t in titles)]
    for key in ("players", "sessions", "boards", "travellers"):
        lines.append(key.ljust(52) + "".join(str(columns[t][key]).rjust(width) for t in titles))
    for key, label, unit in FIGURES:
        cells = []
        for t in titles:
            f = columns[t][key]
            cells.append(f"{f['mean']:.3g} ({f['p10']:.3g}-{f['p50']:.3g}-{f['p90']:.3g})".rjust(width)
                         if f["n"] else "-".rjust(width))
        lines.append(f"{label} [{unit}]".ljust(52) + "".join(cells))
    lines.append("(mean, then 10th-50th-90th percentiles over sessions, players or pair entries)")
    return "\n".join(lines)


def figure(columns: dict, path) -> None:
    """Histograms of the distributional figures, every column overlaid (densities)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(FIGURES), figsize=(4 * len(FIGURES), 3.4))
    for ax, (key, label, unit) in zip(axes, FIGURES):
        vals = [columns[t][key]["values"] for t in columns]
        allv = np.concatenate([v for v in vals if len(v)]) if any(len(v) for v in vals) else np.zeros(1)
        bins = np.histogram_bin_edges(allv, bins=25)
        for t, v in zip(columns, vals):
            if len(v):
                ax.hist(v, bins=bins, density=True, histtype="step", linewidth=1.6, label=t)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel(unit)
    axes[0].set_ylabel("density")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
