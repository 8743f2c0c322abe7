"""Reference bridge score model (simcore.bridge.model) and calibration kernels (simcore.bridge.calibration).

Plain Python, written from the rules in the module docstrings.  The random
streams are the reference SplitMix64, so the same key gives the same draws as
the kernels; normal quantiles come from ``statistics.NormalDist`` (an
independent implementation), so values that depend on them are compared with
a tolerance.
"""

import math
import statistics

from .rng import SplitMix64
from .scoring import board_butler, board_cross_imps, board_matchpoints

_ND = statistics.NormalDist()
C, D, H, S, NT = range(5)
SIDE_A, SIDE_B = 0, 1

# --- duplicate scoring ---------------------------------------------------------

TRICK_VALUE = {C: 20, D: 20, H: 30, S: 30, NT: 30}
DOUBLED_UNDERTRICKS = {  # cumulative penalty for 1, 2, 3 down, then +300 a trick
    False: [100, 300, 500],
    True: [200, 500, 800],
}


def bridge_score(level, strain, doubled, vulnerable, tricks):
    """Declarer side's duplicate score in bridge points (level 0 = passed out)."""
    if level == 0:
        return 0
    factor = {0: 1, 1: 2, 2: 4}[doubled]
    need = 6 + level
    if tricks < need:
        down = need - tricks
        if doubled == 0:
            return -down * (100 if vulnerable else 50)
        table = DOUBLED_UNDERTRICKS[bool(vulnerable)]
        pen = table[down - 1] if down <= 3 else table[2] + 300 * (down - 3)
        return -pen * factor // 2
    trick_points = TRICK_VALUE[strain] * level + (10 if strain == NT else 0)
    trick_points *= factor
    score = trick_points
    score += (500 if vulnerable else 300) if trick_points >= 100 else 50
    if level == 6:
        score += 750 if vulnerable else 500
    if level == 7:
        score += 1500 if vulnerable else 1000
    over = tricks - need
    if doubled == 0:
        score += over * TRICK_VALUE[strain]
    else:
        score += over * (200 if vulnerable else 100) * factor // 2
        score += 50 * factor // 2
    return score


VUL_CYCLE = ["None", "NS", "EW", "All", "NS", "EW", "All", "None",
             "EW", "All", "None", "NS", "All", "None", "NS", "EW"]
VUL_CODE = {"None": 0, "NS": 1, "EW": 2, "All": 3}


def board_vulnerability(board):
    return VUL_CODE[VUL_CYCLE[(board - 1) % 16]]


# --- the deal generator -----------------------------------------------------------

PART_STRAIN = [0.14, 0.14, 0.24, 0.26, 0.22]
PART_LEVEL_SUIT = [0.15, 0.55, 0.30]
PART_MARGIN = [0.20, 0.35, 0.30, 0.15]
GAME_KIND = [0.25, 0.30, 0.30, 0.07, 0.08]
GAME_CONTRACT = [(H, 4), (S, 4), (NT, 3), (C, 5), (D, 5)]
GAME_MARGIN = [0.05, 0.25, 0.40, 0.22, 0.08]
SLAM_STRAIN = [0.10, 0.10, 0.25, 0.30, 0.25]
SLAM_MARGIN = [0.25, 0.55, 0.20]
COMPETE_MARGIN = [0.20, 0.45, 0.30, 0.05]
SACRIFICE_DOWN = [0.30, 0.40, 0.25, 0.05]
ALT_SHIFT = [0.35, 0.40, 0.25]
SACRIFICE_VUL = {(0, 0): 1.0, (0, 1): 0.3, (1, 0): 2.0, (1, 1): 1.0}


def _cum(probs):
    out, c = [], 0.0
    for p in probs:
        c += p
        out.append(c)
    return out


def pick(probs, rs):
    u = rs.uniform()
    cum = _cum(probs)
    k = 0
    while k < len(cum) - 1 and u > cum[k]:
        k += 1
    return k


def weight(base, sd, rs):
    return base * math.exp(sd * _ND.inv_cdf(rs.uniform()))


def other_suit(sa, rs):
    sb = int(rs.uniform() * 4.0)
    if sb == sa:
        sb = (sb + 1 + int(rs.uniform() * 3.0)) % 4
    return sb


def make_deal(params, rs):
    """(options, noise): options are dicts with level, strain, side, doubled, tricks, weight, sacrifice."""
    disp, cons, dw = params.bidding_dispersion, params.consensus, params.double_weight
    opts = []

    def add(level, strain, side, doubled, tricks, w, sacrifice=False):
        if len(opts) < 8:
            opts.append(dict(level=level, strain=strain, side=side, doubled=doubled,
                             tricks=min(max(tricks, 0), 13), weight=w, sacrifice=sacrifice))

    play = math.exp(params.play_dispersion * _ND.inv_cdf(rs.uniform()))
    u = rs.uniform()
    if u < params.p_flat:
        sa, la = GAME_CONTRACT[pick(GAME_KIND, rs)]
        if rs.uniform() < 0.4:
            la -= 2
        ta = la + 6 + (1 if rs.uniform() < 0.3 else 0)
        add(la, sa, SIDE_A, 0, ta, 20.0 * weight(1.0, disp, rs))
        add(la - 1 if la > 1 else la + 1, sa, SIDE_A, 0, ta, weight(1.0, disp, rs))
        play *= 0.2
    elif u < params.p_flat + params.p_partscore:
        sa = pick(PART_STRAIN, rs)
        if sa == NT:
            la = 1 if rs.uniform() < 0.7 else 2
        else:
            la = 1 + pick(PART_LEVEL_SUIT, rs)
        ta = la + 6 + pick(PART_MARGIN, rs) - 1
        add(la, sa, SIDE_A, 0, ta, weight(cons, disp, rs))
        if sa == NT:
            s2 = H if rs.uniform() < 0.5 else S
            l2, t2 = 2, ta + pick(ALT_SHIFT, rs)
        else:
            s2, l2, t2 = NT, max(1, la - 1), ta - 2 + pick(ALT_SHIFT, rs)
        add(l2, s2, SIDE_A, 0, t2, weight(1.0, disp, rs))
        add(la + 1, sa, SIDE_A, 0, ta, weight(1.0, disp, rs))
        if ta < la + 7:
            add(la + 1, sa, SIDE_A, 1, ta, weight(dw, disp, rs))
        if la == 1 and sa != NT and rs.uniform() < 0.3:
            add(0, NT, SIDE_A, 0, 0, weight(0.3, disp, rs))
        if rs.uniform() < params.p_compete:
            sb = other_suit(sa, rs)
            lb = 2 if rs.uniform() < 0.6 else 3
            tb = lb + 6 + pick(COMPETE_MARGIN, rs) - 2
            add(lb, sb, SIDE_B, 0, tb, weight(1.0, disp, rs))
            if tb < lb + 6:
                add(lb, sb, SIDE_B, 1, tb, weight(dw, disp, rs))
    elif u < params.p_flat + params.p_partscore + params.p_game:
        sa, la = GAME_CONTRACT[pick(GAME_KIND, rs)]
        ta = la + 6 + pick(GAME_MARGIN, rs) - 2
        add(la, sa, SIDE_A, 0, ta, weight(cons, disp, rs))
        stop = 2 if sa == NT else (3 if sa in (C, D) else la - 1)
        add(stop, sa, SIDE_A, 0, ta, weight(1.0, disp, rs))
        if sa == NT:
            s2 = H if rs.uniform() < 0.5 else S
            l2, t2 = 4, ta + pick(ALT_SHIFT, rs)
        elif sa in (H, S):
            s2, l2, t2 = NT, 3, ta - 2 + pick(ALT_SHIFT, rs)
        else:
            s2, l2, t2 = NT, 3, ta - 3 + pick(ALT_SHIFT, rs)
        add(l2, s2, SIDE_A, 0, t2, weight(1.0, disp, rs))
        add(la + 1, sa, SIDE_A, 0, ta, weight(0.25, disp, rs))
        if ta < la + 6:
            add(la, sa, SIDE_A, 1, ta, weight(dw, disp, rs))
        if rs.uniform() < params.p_sacrifice:
            sb = other_suit(sa, rs)
            if sa == NT:
                lb = 4
            else:
                lb = la if sb > sa else la + 1
            tb = lb + 6 - 1 - pick(SACRIFICE_DOWN, rs)
            add(lb, sb, SIDE_B, 1, tb, weight(1.0, disp, rs), sacrifice=True)
    else:
        sa = pick(SLAM_STRAIN, rs)
        la = 7 if rs.uniform() < 0.15 else 6
        ta = la + 6 + pick(SLAM_MARGIN, rs) - 1
        add(la, sa, SIDE_A, 0, ta, weight(0.6 * cons, disp, rs))
        game = 3 if sa == NT else (4 if sa in (H, S) else 5)
        add(game, sa, SIDE_A, 0, ta, weight(1.0, disp, rs))
        if la == 7:
            add(6, sa, SIDE_A, 0, ta, weight(1.0, disp, rs))
        else:
            add(7, sa, SIDE_A, 0, ta, weight(0.2, disp, rs))
        if sa == NT:
            s2 = H if rs.uniform() < 0.5 else S
            t2 = ta + pick(ALT_SHIFT, rs)
        else:
            s2, t2 = NT, ta - 1 + pick(ALT_SHIFT, rs)
        add(la, s2, SIDE_A, 0, min(t2, 13), weight(0.5, disp, rs))
    e2, e1, ep = params.play_minus2 * play, params.play_minus * play, params.play_plus * play
    tot = e1 + e2 + ep
    if tot > 0.9:
        e2, e1, ep = e2 * 0.9 / tot, e1 * 0.9 / tot, ep * 0.9 / tot
    return opts, [e2, e1, 1.0 - e2 - e1 - ep, ep]


def ladder(opts, noise, vul_a, vul_b):
    """[(side A score, probability)] ascending, equal scores merged, at most 16 rungs."""
    ws = [o["weight"] * (SACRIFICE_VUL[(vul_a, vul_b)] if o["sacrifice"] else 1.0) for o in opts]
    total = sum(ws)
    merged = {}
    for o, w in zip(opts, ws):
        vul = vul_a if o["side"] == SIDE_A else vul_b
        for j, pj in enumerate(noise):
            p = w / total * pj
            if p <= 0:
                continue
            t = min(max(o["tricks"] + j - 2, 0), 13)
            s = bridge_score(o["level"], o["strain"], o["doubled"], vul, t)
            s = s if o["side"] == SIDE_A else -s
            merged[s] = merged.get(s, 0.0) + p
    rungs = sorted(merged.items())
    while len(rungs) > 16:
        k = min(range(len(rungs)), key=lambda i: rungs[i][1])   # first of the least likely
        if k == 0:
            nb = 1
        elif k == len(rungs) - 1:
            nb = k - 1
        else:
            nb = k - 1 if rungs[k][0] - rungs[k - 1][0] <= rungs[k + 1][0] - rungs[k][0] else k + 1
        rungs[nb] = (rungs[nb][0], rungs[nb][1] + rungs[k][1])
        del rungs[k]
    return rungs


def build_deal(params, key, deal):
    """The four ladders of deal ``deal`` of stream ``key``: {(vul_a, vul_b): [(score, prob)]}."""
    rs = SplitMix64(key, deal, 0)
    opts, noise = make_deal(params, rs)
    return {(va, vb): ladder(opts, noise, va, vb) for va in (0, 1) for vb in (0, 1)}


def cut_points(rungs):
    """Latent cut points: Phi^-1 of the cumulative probabilities, +inf padded to 16."""
    out, c = [], 0.0
    for _, p in rungs[:-1]:
        c += p
        out.append(_ND.inv_cdf(max(c, 1e-15)) if c < 1.0 - 1e-12 else math.inf)
    return out + [math.inf] * (16 - len(out))


# --- tables ---------------------------------------------------------------------------

NQ_CELLS = 2048
NQ_EDGE = 10
NQ_TABLE = [0.0] + [_ND.inv_cdf(i / NQ_CELLS) for i in range(1, NQ_CELLS)] + [0.0]


def fast_normal(rs):
    u = rs.uniform()
    x = u * NQ_CELLS
    i = int(x)
    if i < NQ_EDGE or i >= NQ_CELLS - NQ_EDGE:
        p = u if u < 0.5 else 1.0 - u
        t = math.sqrt(-2.0 * math.log(p))
        z = t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)))
        return -z if u < 0.5 else z
    f = x - i
    return NQ_TABLE[i] + f * (NQ_TABLE[i + 1] - NQ_TABLE[i])


def board_code(deal, vul, flip):
    ns_v = vul in (1, 3)
    ew_v = vul in (2, 3)
    va, vb = (ew_v, ns_v) if flip else (ns_v, ew_v)
    return 2 * (4 * deal + 2 * va + vb) + flip


def deal_board(n_deals, vul, rs):
    d = int(rs.uniform() * n_deals)
    flip = 1 if rs.uniform() < 0.5 else 0
    return board_code(d, vul, flip)


def field_sigma(field, slope, floor):
    return max(floor, 1.0 - slope * (field - 50.0))


def latent_score(scores, thresholds, code, q):
    """Linear scan: the first rung whose upper cut point is not below q."""
    row = code >> 1
    k = 0
    while q > thresholds[row][k]:
        k += 1
    s = int(scores[row][k])
    return -s if code & 1 else s


def take_boards(scores, thresholds, codes, first, stop, slot_scores, slot_thresholds):
    """Boards codes[first:stop]'s pool rows copied into rows first..stop-1 (lists of lists); codes replaced by
    their codes there."""
    for slot in range(first, stop):
        slot_scores[slot] = list(scores[codes[slot] // 2])
        slot_thresholds[slot] = list(thresholds[codes[slot] // 2])
        codes[slot] = 2 * slot + codes[slot] % 2


def draw_ns_score(scores, thresholds, code, s_ns, s_ew, alpha, sigma, rs):
    d = s_ns - s_ew
    if code & 1:
        d = -d
    return latent_score(scores, thresholds, code, sigma * (alpha * d + fast_normal(rs)))


def play_board(scores, thresholds, code, ns, ew, alpha, sigma, rs):
    return [draw_ns_score(scores, thresholds, code, a, b, alpha, sigma, rs) for a, b in zip(ns, ew)]


def play_boards(scores, thresholds, n_deals, ns, ew, alpha, sigma, key, n_boards):
    """simcore.bridge.model._play_boards: board b (number b + 1) from stream (key, b, 0)."""
    out = []
    for b in range(n_boards):
        rs = SplitMix64(key, b, 0)
        code = deal_board(n_deals, board_vulnerability(b + 1), rs)
        out.append(play_board(scores, thresholds, code, ns, ew, alpha, sigma, rs))
    return out


def deal_session(n_deals, key, n_boards):
    rs = SplitMix64(key, 0, 0)
    return [deal_board(n_deals, board_vulnerability(b + 1), rs) for b in range(n_boards)]


def mitchell_layout(tables, boards_per_round):
    """[(round, table, ns_pair, ew_pair, board)] of the internal full Mitchell, by the rules."""
    rows = []
    for r in range(tables):
        for t in range(tables):
            board_set = (t + r) % tables if tables % 2 == 1 else r
            ew = (t - r) % tables
            for j in range(boards_per_round):
                rows.append((r, t, t, ew, board_set * boards_per_round + j))
    return rows


def play_mitchell(scores, thresholds, codes, boards_per_round, ns, ew, alpha, sigma, key, session):
    """(ns_scores[b][t], ew_pair[b][t], ns_pct, ew_pct) of simcore.bridge.mitchell._play_mitchell."""
    T = len(ns)
    nb = len(codes)
    seat = {}
    for r, t, _, e, b in mitchell_layout(T, boards_per_round):
        seat[(b, t)] = e
    out_s = [[0] * T for _ in range(nb)]
    out_e = [[0] * T for _ in range(nb)]
    ns_pct, ew_pct = [0.0] * T, [0.0] * T
    for b in range(nb):
        rs = SplitMix64(key, session, b)
        for t in range(T):
            e = seat[(b, t)]
            out_e[b][t] = e
            out_s[b][t] = draw_ns_score(scores, thresholds, codes[b], ns[t], ew[e], alpha, sigma, rs)
        mp = board_matchpoints(out_s[b], T, False)
        for t in range(T):
            ns_pct[t] += mp[t] / nb
            ew_pct[out_e[b][t]] += (100.0 - mp[t]) / nb
    return out_s, out_e, ns_pct, ew_pct


# --- card play ---------------------------------------------------------------------

MISTAKES = [(1, 0.30), (2, 0.08), (3, 0.07), (4, 0.06), (5, 0.07), (6, 0.08), (7, 0.04), (8, 0.03),
            (9, 0.02), (10, 0.09), (11, 0.03), (12, 0.08), (13, 0.03), (14, 0.01), (17, 0.01)]
MEAN_MISTAKE = sum(i * p for i, p in MISTAKES)


def imps_lost_rate(t, base, slope, floor):
    return max(floor, base + slope * (50.0 - t))


def binomial(n, p, rs):
    total, left, q = 0, n, 1.0 - p
    while left > 0:
        m = min(left, 400)
        left -= m
        if p <= 0.0:
            continue
        if q <= 0.0:
            total += m
            continue
        u = rs.uniform()
        pk = q ** m
        cdf, k = pk, 0
        while u > cdf and k < m:
            pk *= (m - k) / (k + 1.0) * p / q
            k += 1
            cdf += pk
        total += k
    return total


def poisson(mu, rs):
    total, left = 0, mu
    while left > 0.0:
        m = min(left, 400.0)
        left -= m
        u = rs.uniform()
        pk = math.exp(-m)
        cdf, k = pk, 0
        while u > cdf and k < 100000:
            k += 1
            pk *= m / k
            cdf += pk
        total += k
    return total


def draw_imps_lost(t, boards, base, slope, floor, dummy_share, rs):
    dummy = binomial(boards, dummy_share, rs)
    played = boards - dummy
    n = poisson(played * imps_lost_rate(t, base, slope, floor) / MEAN_MISTAKE, rs)
    total = 0
    cum = _cum([p for _, p in MISTAKES])
    for _ in range(n):
        u = rs.uniform()
        k = 0
        while k < len(cum) - 1 and u > cum[k]:
            k += 1
        total += MISTAKES[k][0]
    return total, played


# --- calibration kernels (simcore.bridge.calibration) -----------------------------------------


def field_boards(scores, thresholds, n_tables, field_mean, field_sd, alpha, sigma, trim, key):
    """Per board [F, MPPvar, Xvar, Butler var] as simcore.bridge.calibration._field_boards."""
    out = []
    for b, n in enumerate(n_tables):
        rs = SplitMix64(key, b, 0)
        code = board_code(b, board_vulnerability(b % 16 + 1), 1 if rs.uniform() < 0.5 else 0)
        ns, ew = [], []
        for _ in range(n):
            ns.append(field_mean + field_sd * fast_normal(rs))
            ew.append(field_mean + field_sd * fast_normal(rs))
        sc = play_board(scores, thresholds, code, ns, ew, alpha, sigma, rs)
        mp = board_matchpoints(sc, n, False)
        xi = board_cross_imps(sc)
        bu = board_butler(sc, trim)
        mppvar = sum((m - 50.0) ** 2 for m in mp) / n
        out.append([mppvar / ((2500.0 / 3.0) * (n + 1) / (n - 1)), mppvar,
                    sum(x * x for x in xi) / n, sum(x * x for x in bu) / n])
    return out


def gap_boards(scores, thresholds, n, gaps, alpha, sigma, key, n_boards):
    """Per board and gap: the target pair's MP % as simcore.bridge.calibration._gap_boards."""
    out = []
    for b in range(n_boards):
        rs = SplitMix64(key, b, 0)
        code = board_code(b, board_vulnerability(b % 16 + 1), 1 if rs.uniform() < 0.5 else 0)
        others = [draw_ns_score(scores, thresholds, code, 50.0, 50.0, alpha, sigma, rs) for _ in range(n - 1)]
        eps = fast_normal(rs)
        row = []
        for g in gaps:
            d = g if code % 2 == 0 else -g
            s = latent_score(scores, thresholds, code, sigma * (alpha * d + eps))
            row.append(100.0 * sum(2 if s > o else 1 if s == o else 0 for o in others) / (2.0 * (n - 1)))
        out.append(row)
    return out


__all__ = ["bridge_score", "board_vulnerability", "make_deal", "ladder", "build_deal", "cut_points",
           "fast_normal", "board_code", "deal_board", "field_sigma", "latent_score", "take_boards", "draw_ns_score",
           "play_board", "play_boards", "deal_session", "mitchell_layout", "play_mitchell",
           "imps_lost_rate", "draw_imps_lost", "field_boards", "gap_boards"]
