"""The claims of seed 004 (Curley's Elo pairs) about K and √n, straight from the Elo model.

``simulate_adjustment_sd``: the sd (Elo points) of a pair's per-session
adjustment — the seed's "average rating fluctuation per game" (≈ 14
head-to-head at K = 32, ≈ 50 in a 13-pair field without the √n).
``simulate_rating_sd``: the stationary sd of the rating itself under running
updates.  Used by ``experiments/claims.py`` and tests/test_elo_pairs.py.
"""

from __future__ import annotations

import math

import numpy as np

from simcore.schemes.elo_pairs import expected_score


def simulate_adjustment_sd(k: float = 32.0, gap: float = 200.0, n_opponents: int = 1,
                           divide_by_sqrt_n: bool = True, model: str = "independent",
                           sessions: int = 20000, seed: int = 0) -> dict:
    """sd (Elo points) of a pair's per-session adjustment, straight from the Elo model.

    A pair rated ``gap`` points above ``n_opponents`` equal opponents, all
    ratings equal to the true strengths; each session gives
    Δ = K(a − e)/√n (or K(a − e) with ``divide_by_sqrt_n=False``).
    ``model="independent"``: the seed's appendix view — n independent
    mini-matches, each won with probability E.  ``model="field"``: one
    ranked field — each pair draws a performance r·ln10/400 + Gumbel noise
    and beats those it outperforms (every pairwise probability is still E,
    but the outcomes against the n opponents share the pair's own draw).

    Returns dict(sd=..., se=..., expected=E, adjustments=array), se being the
    standard error of the sd estimate (from the sample fourth moment).
    """
    if model not in ("independent", "field"):
        raise ValueError(f"model={model!r} is not one of independent, field")
    if n_opponents < 1 or sessions < 10:
        raise ValueError(f"n_opponents={n_opponents!r} must be >= 1 and sessions={sessions!r} >= 10")
    rng = np.random.default_rng(seed)
    e1 = float(expected_score(gap, 0.0))
    if model == "independent":
        wins = rng.binomial(n_opponents, e1, size=sessions).astype(float)
    else:
        c = gap * math.log(10.0) / 400.0
        g = rng.gumbel(size=(sessions, n_opponents + 1))
        wins = (g[:, :1] + c > g[:, 1:]).sum(axis=1).astype(float)
    adj = k * (wins - n_opponents * e1)
    if divide_by_sqrt_n:
        adj /= math.sqrt(n_opponents)
    dev = adj - adj.mean()
    var = dev.var(ddof=1)
    m4 = np.mean(dev ** 4)
    se = math.sqrt(max(m4 - var * var, 0.0) / sessions) / (2.0 * math.sqrt(var)) if var > 0 else 0.0
    return dict(sd=math.sqrt(var), se=se, expected=e1, adjustments=adj)


def simulate_rating_sd(k: float = 32.0, gap: float = 200.0, n_opponents: int = 1,
                       divide_by_sqrt_n: bool = True, model: str = "independent", sessions: int = 400,
                       replicates: int = 2000, seed: int = 0) -> dict:
    """Stationary sd (Elo points) of the strong pair's *rating* under running Elo updates.

    The field of ``simulate_adjustment_sd`` (one pair ``gap`` above
    ``n_opponents`` equal pairs), but now every pair's rating moves after
    each session by K(a − e)/√n (or K(a − e)) from the current ratings,
    starting at the true strengths.  ``replicates`` independent histories
    are run side by side; the sd is taken across them over the second half
    of the ``sessions``.  Returns dict(sd=..., mean=..., ratings=(R, N)
    final ratings).  Ratings are zero-sum: the field's total never changes.
    """
    if model not in ("independent", "field"):
        raise ValueError(f"model={model!r} is not one of independent, field")
    if n_opponents < 1 or sessions < 2 or replicates < 2:
        raise ValueError(f"n_opponents={n_opponents!r}, sessions={sessions!r} and replicates={replicates!r} "
                         "must be at least 1, 2 and 2")
    rng = np.random.default_rng(seed)
    n = n_opponents + 1
    true = np.zeros(n)
    true[0] = gap
    r = np.tile(true, (replicates, 1))
    p_true = expected_score(true[:, None], true[None, :])
    upper = np.triu(np.ones((n, n), bool), 1)
    scale = k / math.sqrt(n_opponents) if divide_by_sqrt_n else k
    track = []
    for t in range(sessions):
        if model == "independent":
            won = rng.random((replicates, n, n)) < p_true
        else:
            perf = true * math.log(10.0) / 400.0 + rng.gumbel(size=(replicates, n))
            won = perf[:, :, None] > perf[:, None, :]
        won = np.where(upper, won, ~np.swapaxes(won, 1, 2))  # one outcome per couple
        actual = won.astype(float)
        idx = np.arange(n)
        actual[:, idx, idx] = 0.5
        r = r + scale * (actual - expected_score(r[:, :, None], r[:, None, :])).sum(axis=2)
        if t >= sessions // 2:
            track.append(r[:, 0].copy())
    track = np.array(track)
    return dict(sd=float(track.std(axis=1).mean()), mean=float(track.mean()), ratings=r)
