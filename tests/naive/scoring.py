"""Reference IMP/VP scales and board scoring (simcore.imps, simcore.scoring)."""

import math

# --- imps -------------------------------------------------------------------

IMP_TABLE = [  # (lowest point difference, IMPs), the WBF scale as printed
    (0, 0), (20, 1), (50, 2), (90, 3), (130, 4), (170, 5), (220, 6), (270, 7), (320, 8),
    (370, 9), (430, 10), (500, 11), (600, 12), (750, 13), (900, 14), (1100, 15), (1300, 16),
    (1500, 17), (1750, 18), (2000, 19), (2250, 20), (2500, 21), (3000, 22), (3500, 23),
    (4000, 24),
]


def imps(diff: float) -> int:
    best = 0
    for lo, value in IMP_TABLE:
        if abs(diff) >= lo:
            best = value
    return best if diff >= 0 else -best


def victory_points(margin: float, boards: int) -> float:
    import math
    tau = (math.sqrt(5) - 1) / 2
    blitz = 15 * math.sqrt(boards)
    m = min(abs(margin), blitz)
    v = 10 + 10 * (1 - tau ** (3 * m / blitz)) / (1 - tau ** 3)
    return v if margin >= 0 else 20 - v


# --- board scoring ----------------------------------------------------------

def board_matchpoints(scores, expected_plays=None, neuberg=True):
    n = len(scores)
    if n == 1:
        return [50.0]
    out = []
    for i, s in enumerate(scores):
        mp = sum(2 if s > t else 1 if s == t else 0 for j, t in enumerate(scores) if j != i)
        N = expected_plays if (neuberg and expected_plays and expected_plays > n) else n
        if N != n:
            mp = (mp + 1) * N / n - 1  # Neuberg
        out.append(100.0 * mp / (2 * (N - 1)))
    return out


def board_cross_imps(scores):
    n = len(scores)
    if n == 1:
        return [0.0]
    return [sum(imps(s - t) for j, t in enumerate(scores) if j != i) / (n - 1)
            for i, s in enumerate(scores)]


def butler_datum(scores, trim):
    s = sorted(scores)
    t = trim
    while t > 0 and len(s) - 2 * t < 3:
        t -= 1
    kept = s[t:len(s) - t] if t else s
    return sum(kept) / len(kept)


def board_butler(scores, trim):
    d = butler_datum(scores, trim)
    return [imps(s - d) for s in scores]


def board_aggregate(scores):
    m = sum(scores) / len(scores)
    return [s - m for s in scores]
