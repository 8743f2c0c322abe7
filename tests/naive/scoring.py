"""Reference IMP/VP scales and board scoring (simcore.scoring.imp_scale, simcore.scoring)."""

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


# --- session scoring ---------------------------------------------------------

def score_session(rows, scoring, winners, kind, neuberg=True, trim=1, teams=()):
    """Score one session the slow way.

    rows: list of dicts with round, board, table, ns (a, b), ew (a, b), score,
        in traveller order (round, board, table).
    teams: list of ((a, b), (c, d)) pairs of each team, in team-row order.
    Returns (entries, trav_mp, matches): entries is a list of dicts in order
    of first appearance; matches maps entry index -> list of match dicts.
    """
    def key(p):
        return tuple(sorted(p))

    order, index = [], {}
    for row in rows:
        for side in ("ns", "ew"):
            k = key(row[side])
            if k not in index:
                index[k] = len(order)
                order.append(k)
    entries = [dict(players=k, seen=set(), boards=0, total=0.0) for k in order]
    plays = {}
    for i, row in enumerate(rows):
        plays.setdefault(row["board"], []).append(i)
    top_plays = max(len(v) for v in plays.values())
    mp, value = [0.0] * len(rows), [0.0] * len(rows)
    for board, idx in plays.items():
        scores = [rows[i]["score"] for i in idx]
        m = board_matchpoints(scores, top_plays, neuberg)
        if scoring == "mp":
            v = m
        elif scoring == "butler":
            v = board_butler(scores, trim)
        elif scoring == "aggregate":
            v = board_aggregate(scores)
        else:
            v = board_cross_imps(scores)
        for q, i in enumerate(idx):
            mp[i], value[i] = m[q], v[q]
    for i, row in enumerate(rows):
        ns, ew = entries[index[key(row["ns"])]], entries[index[key(row["ew"])]]
        ns["seen"].add("NS")
        ew["seen"].add("EW")
        ns["boards"] += 1
        ew["boards"] += 1
        ns["total"] += value[i]
        ew["total"] += (100 - value[i]) if scoring == "mp" else -value[i]
    team_kind = kind in ("multiple_teams", "swiss_teams")
    for e in entries:
        e["score"] = e["total"] / e["boards"] if scoring == "mp" else e["total"]
        e["direction"] = "NS" if e["seen"] == {"NS"} else "EW" if e["seen"] == {"EW"} else "MIXED"
        e["group"] = (0 if e["direction"] == "NS" else 1) if (winners == 2 or team_kind) else 0
        e["team"] = next((j for j, t in enumerate(teams) if e["players"] in (key(t[0]), key(t[1]))), -1)
    for e in entries:
        rivals = [f for f in entries if f is not e and f["group"] == e["group"]]
        e["n_ranked"] = len(rivals)
        e["beaten"] = sum(1.0 if e["score"] > f["score"] else 0.5 if e["score"] == f["score"] else 0.0
                          for f in rivals)
    matches = {}
    if kind in ("swiss_pairs", "swiss_teams", "multiple_teams"):
        for ei, e in enumerate(entries):
            for rnd in sorted({row["round"] for row in rows}):
                mine = [(i, row) for i, row in enumerate(rows) if row["round"] == rnd
                        and e["players"] in (key(row["ns"]), key(row["ew"]))]
                if not mine:
                    continue
                total, opp, mate, opp_mate = 0.0, -1, -1, -1
                for i, row in mine:
                    is_ns = key(row["ns"]) == e["players"]
                    opp = index[key(row["ew"] if is_ns else row["ns"])]
                    if not team_kind:
                        v = value[i]
                        total += (v if is_ns else 100 - v) if scoring == "mp" else (v if is_ns else -v)
                        continue
                    my_team, their_team = e["team"], entries[opp]["team"]
                    for j, other in enumerate(rows):
                        if j == i or other["round"] != rnd or other["board"] != row["board"]:
                            continue
                        tn, tw = entries[index[key(other["ns"])]]["team"], entries[index[key(other["ew"])]]["team"]
                        if is_ns and (tn, tw) == (their_team, my_team):
                            mate, opp_mate = index[key(other["ew"])], index[key(other["ns"])]
                        elif not is_ns and (tn, tw) == (my_team, their_team):
                            mate, opp_mate = index[key(other["ns"])], index[key(other["ew"])]
                        else:
                            continue
                        x = imps(row["score"] - other["score"])
                        total += x if is_ns else -x
                        break
                if not team_kind and scoring == "mp":
                    total /= len(mine)
                    result = 1.0 if total > 50 else 0.5 if total == 50 else 0.0
                else:
                    result = 1.0 if total > 0 else 0.5 if total == 0 else 0.0
                matches.setdefault(ei, []).append(dict(opp=opp, mate=mate, opp_mate=opp_mate,
                                                       boards=len(mine), score=total, result=result))
    return entries, mp, matches


# --- session helpers (simcore.scoring.session) --------------------------------

def group_by_board(boards):
    """Row positions grouped by board number, in board order: {board: [positions]}."""
    groups = {}
    for j, b in enumerate(boards):
        groups.setdefault(b, []).append(j)
    return dict(sorted(groups.items()))


def rank_in_groups(scores, groups):
    """Per entry: pairs of its group it beat + ½ per tie, and how many others its group has."""
    beaten, ranked = [], []
    for e, (s, g) in enumerate(zip(scores, groups)):
        rivals = [scores[f] for f in range(len(scores)) if f != e and groups[f] == g]
        ranked.append(len(rivals))
        beaten.append(sum(1.0 if s > x else 0.5 if s == x else 0.0 for x in rivals))
    return beaten, ranked


def partnership_ids(batches):
    """Twin of ``PartnershipTable.ids`` over successive calls: each pair's id (dense, in order of first
    sight, the same for either order of its players) and the players of every id, lower first."""
    known, players, out = {}, [], []
    for batch in batches:
        ids = []
        for a, b in batch:
            key = (min(a, b), max(a, b))
            if key not in known:
                known[key] = len(players)
                players.append(key)
            ids.append(known[key])
        out.append(ids)
    return out, players


def session_entries(sessions):
    """Twin of the entries ``scoring.session._score_session_pairs`` numbers: each session a list of travellers' (NS pair, EW
    pair); a session's entries are its distinct pairs (either order of players) in order of first
    appearance, NS before EW within a traveller, numbered on from the previous session's.
    Returns the NS entries, the EW entries (one per traveller, all sessions) and the offsets."""
    ns, ew, start = [], [], [0]
    for rows in sessions:
        seen = {}
        for pair_ns, pair_ew in rows:
            for pair, to in ((pair_ns, ns), (pair_ew, ew)):
                key = (min(pair), max(pair))
                if key not in seen:
                    seen[key] = start[-1] + len(seen)
                to.append(seen[key])
        start.append(start[-1] + len(seen))
    return ns, ew, start
