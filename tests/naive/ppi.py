"""Reference PPI (simcore.schemes.ppi): plain Python on dicts, read against SPEC §1.1.

Boards are taken one at a time in the order played; each player's own
history of qualifying and rated boards is kept per calendar month, and w is
summed from it afresh whenever a new month starts.
"""

from collections import defaultdict

_MP = 0  # scoring code of match-pointed sessions


def ppi_weighting_factor(a, k, w, params):
    """m from the SPEC table, halved below 46."""
    if k < params.k_newcomer:
        m = params.k_newcomer
    elif k <= params.k_established:
        m = k
    elif w < params.w_low:
        m = params.m_infrequent
    elif w <= params.w_high:
        m = params.w_factor * w
    else:
        m = params.m_frequent
    if a < params.halve_below:
        m = m * params.low_factor
    return m


def ppi_update(a, b, c, d, p, m):
    return a + (p - ((a + b - c - d) / 2 + 50)) / m


def ppi_rate(scored, member, start_ppi, start_k, start_w, params):
    """Rate every session of ``scored`` in order from the given start.

    Returns (ppi, k, w, rated, rated_by_month, qualifying_by_month,
    out_after) with per-player lists, per-(player, month) dicts and one
    [grade, grade] pair (or None) per pair entry.
    """
    P = len(member)
    ppi = list(start_ppi)
    k = list(start_k)
    w = list(start_w)
    rated = [0] * P
    qualifying_by_month = defaultdict(int)
    rated_by_month = defaultdict(int)
    out_after = [None] * len(scored.pair_players)
    this_month = None
    for s in scored.order:
        if scored.scoring[s] != _MP:
            continue  # PPI rates match-pointed sessions only
        month = int(scored.month[s])
        if this_month is not None and month != this_month:
            for q in range(P):
                w[q] = sum(qualifying_by_month[q, month - back] for back in (1, 2, 3))
        this_month = month
        for t in range(scored.trav_start[s], scored.trav_start[s + 1]):
            ns = [int(x) for x in scored.pair_players[scored.trav_ns_entry[t]]]
            ew = [int(x) for x in scored.pair_players[scored.trav_ew_entry[t]]]
            ns_mp = float(scored.trav_ns_mp[t])
            guest_at_table = not all(member[q] for q in ns + ew)
            before = {q: ppi[q] for q in ns + ew}
            for q in ns + ew:
                rated[q] += 1
                rated_by_month[q, month] += 1
            for own, opps, p in ((ns, ew, ns_mp), (ew, ns, 100.0 - ns_mp)):
                for i, q in enumerate(own):
                    if guest_at_table and not (params.guests_self_update and not member[q]):
                        continue
                    partner = own[1 - i]
                    a = before[q]
                    m = ppi_weighting_factor(a, k[q], w[q], params)
                    ppi[q] = ppi_update(a, before[partner], before[opps[0]], before[opps[1]], p, m)
                    k[q] += 1
                    qualifying_by_month[q, month] += 1
        for e in range(scored.pair_start[s], scored.pair_start[s + 1]):
            out_after[e] = [ppi[int(q)] for q in scored.pair_players[e]]
    return ppi, k, w, rated, rated_by_month, qualifying_by_month, out_after


def ppi_recent_boards(by_month, player, month, include_current):
    """Boards of ``player`` in the 3 calendar months ending with ``month``
    (or just before it)."""
    last = month if include_current else month - 1
    return sum(by_month[player, t] for t in (last - 2, last - 1, last))


def ppi_band(x, params):
    if x > params.spade_above:
        return "spade"
    if x >= params.heart_from:
        return "heart"
    if x >= params.diamond_from:
        return "diamond"
    return "club"
