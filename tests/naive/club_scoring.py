"""A club scorer's match-pointing, written the way the scorer's manual says it.

Plain Python, independent of ``simcore.scoring``: it writes the "published"
percentages of the fixtures in ``tests/data/import/`` that the importer must
reproduce.  Rules (see ``simcore.scoring.adjusted``):

* per board, each real result gets 2 match points per result beaten and 1
  per tie among the board's real results;
* a board with n real results when the session's boards were played N times
  (N = the most results, real or artificial, on any board) is factored up:
  (mp + 1) * N / n - 1, so every board's top is 2 (N - 1);
* an artificial score gives its pair the assigned percentage of the top —
  under the ``ebu`` rule 60 becomes max(60, the pair's % on played boards)
  and 40 becomes min(40, that %);
* a pair's percentage is its total match points over its total tops.
"""


def board_mps(scores, big_n):
    n = len(scores)
    out = []
    for i, s in enumerate(scores):
        mp = sum(2 if s > t else 1 if s == t else 0 for j, t in enumerate(scores) if j != i)
        if n < big_n:
            mp = (mp + 1) * big_n / n - 1
        out.append(mp)
    return out


def percentages(travellers, rule="ebu"):
    """travellers: [(board, ns_pair, ew_pair, ns_score or (ns %, ew %))] -> {pair: MP %}."""
    by_board = {}
    for row in travellers:
        by_board.setdefault(row[0], []).append(row)
    big_n = max(len(rows) for rows in by_board.values())
    top = 2 * (big_n - 1)
    mps, tops, assigned = {}, {}, {}
    for rows in by_board.values():
        real = [r for r in rows if not isinstance(r[3], tuple)]
        if len(real) >= 2 or (len(real) == 1 and big_n > 1):
            got = board_mps([r[3] for r in real], big_n)
            for r, mp in zip(real, got):
                mps[r[1]] = mps.get(r[1], 0.0) + mp
                mps[r[2]] = mps.get(r[2], 0.0) + top - mp
                tops[r[1]] = tops.get(r[1], 0) + top
                tops[r[2]] = tops.get(r[2], 0) + top
        for r in rows:
            if isinstance(r[3], tuple):
                assigned.setdefault(r[1], []).append(r[3][0])
                assigned.setdefault(r[2], []).append(r[3][1])
    out = {}
    for pair in set(tops) | set(assigned):
        mp, tp = mps.get(pair, 0.0), tops.get(pair, 0)
        played = 100.0 * mp / tp if tp else None
        for a in assigned.get(pair, []):
            if rule == "ebu" and played is not None and a == 60:
                a = max(60.0, played)
            elif rule == "ebu" and played is not None and a == 40:
                a = min(40.0, played)
            mp += a / 100.0 * top
            tp += top
        out[pair] = 100.0 * mp / tp
    return out


def imps(diff):
    scale = [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500, 1750,
             2000, 2250, 2500, 3000, 3500, 4000]
    a = abs(diff)
    n = sum(1 for edge in scale if a >= edge)
    return n if diff >= 0 else -n


def butler(travellers):
    """Net Butler IMPs per pair: each result against the board's mean after dropping the top and
    bottom score (when three or more would remain)."""
    by_board = {}
    for row in travellers:
        by_board.setdefault(row[0], []).append(row)
    out = {}
    for rows in by_board.values():
        scores = sorted(r[3] for r in rows)
        kept = scores[1:-1] if len(scores) - 2 >= 3 else scores
        datum = sum(kept) / len(kept)
        for r in rows:
            i = imps(r[3] - datum)
            out[r[1]] = out.get(r[1], 0) + i
            out[r[2]] = out.get(r[2], 0) - i
    return out


def cross_imps(travellers):
    """Net cross-IMPs per pair: on each board, IMPs against every other table, averaged over them."""
    by_board = {}
    for row in travellers:
        by_board.setdefault(row[0], []).append(row)
    out = {}
    for rows in by_board.values():
        for r in rows:
            others = [imps(r[3] - q[3]) for q in rows if q is not r]
            v = sum(others) / len(others)
            out[r[1]] = out.get(r[1], 0) + v
            out[r[2]] = out.get(r[2], 0) - v
    return out


def team_imps(rows, team_of):
    """Total IMPs per team over its matches: on each board of a match, the NS score at the table where
    the team sat NS minus the NS score at the other table, in IMPs.  rows: (board, ns pair, ew pair,
    ns score); team_of: pair -> team."""
    out = {}
    by_board = {}
    for r in rows:
        by_board.setdefault(r[0], []).append(r)
    for rs in by_board.values():
        for r in rs:
            home = team_of[r[1]]
            away = team_of[r[2]]
            other = next(q for q in rs if team_of[q[1]] == away and team_of[q[2]] == home)
            out[home] = out.get(home, 0) + imps(r[3] - other[3])
    return out
