"""Small hand-made or random ScoredResults for the Elo pairs tests.

The scoring stage (``simcore.scoring.score_results``) makes the real ones;
these builders fill only what it promises the schemes: pair entries with
their group and score, and match rows (opponent, team-mate, opposing
team-mate, result) for Swiss and team kinds.
"""

import numpy as np

from simcore.results import (KIND_HOWELL, KIND_MITCHELL, KIND_MULTIPLE_TEAMS, KIND_ONLINE,
                             KIND_SWISS_PAIRS, KIND_SWISS_TEAMS, ScoredResults, days_to_months)

PAIR_KINDS = (KIND_MITCHELL, KIND_HOWELL, KIND_ONLINE)


def session(day, kind, pairs, scores=None, groups=None, matches=(), team_matches=()):
    """One session for ``build``.

    pairs: list of (player, player).  Pairs kinds: ``scores`` per pair and
    ``groups`` (default: all 0, one winner).  Swiss pairs: ``matches`` =
    (entry i, entry j, result of i).  Team kinds: teams are entries (0, 1),
    (2, 3), ...; ``team_matches`` = (team i, team j, result of team i).
    """
    n = len(pairs)
    return dict(day=int(day), kind=int(kind), pairs=[tuple(sorted(p)) for p in pairs],
                scores=list(scores) if scores is not None else [0.0] * n,
                groups=list(groups) if groups is not None else [0] * n,
                matches=list(matches), team_matches=list(team_matches))


def build(sessions, ids=None, storage=None):
    """ScoredResults of ``sessions`` (dicts from ``session``).

    ids: dict (player, player) → partnership id, shared between chunks so
    ids stay dense and growing; new pairs get the next id.  storage: the
    order in which sessions are stored (default as given); ``order`` is
    always by (day, stored id).
    """
    ids = {} if ids is None else ids
    n_s = len(sessions)
    storage = list(range(n_s)) if storage is None else list(storage)
    stored = [sessions[i] for i in storage]
    # partnership ids in date order, so they grow in order of first play
    for s in sorted(stored, key=lambda x: x["day"]):
        for p in s["pairs"]:
            ids.setdefault(p, len(ids))
    pp, part, group, score, beaten, ranked, team = [], [], [], [], [], [], []
    pair_start = [0]
    rows_of = []  # per entry: list of (opp, mate, opp_mate, result)
    for s in stored:
        base = len(pp)
        n = len(s["pairs"])
        entry_rows = [[] for _ in range(n)]
        for i, p in enumerate(s["pairs"]):
            pp.append(p)
            part.append(ids[p])
            group.append(s["groups"][i])
            score.append(s["scores"][i])
            same = [j for j in range(n) if j != i and s["groups"][j] == s["groups"][i]]
            beaten.append(sum(1.0 if s["scores"][i] > s["scores"][j] else 0.5 if s["scores"][i] == s["scores"][j]
                              else 0.0 for j in same))
            ranked.append(len(same))
            team.append(-1)
        for i, j, res in s["matches"]:
            entry_rows[i].append((base + j, -1, -1, res))
            entry_rows[j].append((base + i, -1, -1, 1.0 - res))
        for ti, tj, res in s["team_matches"]:
            x1, x2, y1, y2 = 2 * ti, 2 * ti + 1, 2 * tj, 2 * tj + 1
            entry_rows[x1].append((base + y1, base + x2, base + y2, res))
            entry_rows[x2].append((base + y2, base + x1, base + y1, res))
            entry_rows[y1].append((base + x1, base + y2, base + x2, 1.0 - res))
            entry_rows[y2].append((base + x2, base + y1, base + x1, 1.0 - res))
        rows_of.extend(entry_rows)
        pair_start.append(len(pp))
    match_start = np.zeros(len(pp) + 1, np.int64)
    match_start[1:] = np.cumsum([len(r) for r in rows_of])
    flat = [row for rows in rows_of for row in rows]
    col = lambda k, dt: np.array([row[k] for row in flat], dt)  # noqa: E731
    day = np.array([s["day"] for s in stored], np.int32)
    n_e = len(pp)
    i32 = lambda n: np.zeros(n, np.int32)  # noqa: E731
    return ScoredResults(
        day=day, month=days_to_months(day), club=i32(n_s), event=np.zeros(n_s, np.int8),
        scoring=np.zeros(n_s, np.int8), winners=np.ones(n_s, np.int8),
        kind=np.array([s["kind"] for s in stored], np.int8),
        pair_start=np.array(pair_start, np.int64), trav_start=np.zeros(n_s + 1, np.int64),
        order=np.lexsort((np.arange(n_s), day)).astype(np.int32),
        pair_players=np.array(pp, np.int32).reshape(-1, 2), pair_partnership=np.array(part, np.int32),
        pair_direction=np.zeros(n_e, np.int8), pair_group=np.array(group, np.int32),
        pair_team=np.array(team, np.int32), pair_boards=np.full(n_e, 24, np.int32),
        pair_score=np.array(score, np.float64), pair_beaten=np.array(beaten, np.float64),
        pair_n_ranked=np.array(ranked, np.int32), match_start=match_start,
        match_opp=col(0, np.int32), match_mate=col(1, np.int32), match_opp_mate=col(2, np.int32),
        match_boards=np.full(len(flat), 7, np.int32), match_result=col(3, np.float64),
        match_score=np.zeros(len(flat)), trav_ns_mp=np.zeros(0), trav_ns_entry=i32(0), trav_ew_entry=i32(0),
        partnership_players=np.array(sorted(ids, key=ids.get), np.int32).reshape(-1, 2),
    )


def random_sessions(rng, n_sessions, n_players, start_day=19000):
    """Random sessions of every kind over a small pool of players.

    Most pairs come from a fixed regular pairing (so partnerships repeat and
    become established); the rest are random pick-ups.  Gaps between
    sessions mix same-day, same-month, next-month and multi-year jumps.
    """
    regular = [tuple(sorted((2 * i, 2 * i + 1))) for i in range(n_players // 2)]
    day = start_day
    out = []
    kinds = PAIR_KINDS + (KIND_SWISS_PAIRS, KIND_MULTIPLE_TEAMS, KIND_SWISS_TEAMS)
    for _ in range(n_sessions):
        day += int(rng.choice([0, 1, 7, 7, 20, 45, 400, 1200]))
        kind = int(rng.choice(kinds))
        max_pairs = n_players // 2
        if kind in (KIND_MULTIPLE_TEAMS, KIND_SWISS_TEAMS) and max_pairs < 4:
            kind = KIND_SWISS_PAIRS  # two teams need eight players
        teams = kind in (KIND_MULTIPLE_TEAMS, KIND_SWISS_TEAMS)
        n = 2 * int(rng.integers(2, max_pairs // 2 + 1)) if teams else int(rng.integers(2, max_pairs + 1))
        if rng.random() < 0.7:
            pairs = [regular[i] for i in rng.choice(len(regular), n, replace=False)]
        else:
            perm = rng.permutation(n_players)
            pairs = [tuple(sorted((int(perm[2 * i]), int(perm[2 * i + 1])))) for i in range(n)]
        scores = [float(rng.integers(0, 4)) for _ in range(n)]
        two_winner = kind == KIND_MITCHELL and rng.random() < 0.7
        groups = [i % 2 for i in range(n)] if two_winner else [0] * n
        matches, team_matches = [], []
        if kind == KIND_SWISS_PAIRS:
            for _ in range(int(rng.integers(1, 4))):
                perm = rng.permutation(n)
                matches += [(int(perm[2 * i]), int(perm[2 * i + 1]), float(rng.choice([0, 0.5, 1])))
                            for i in range(n // 2)]
        elif kind == KIND_MULTIPLE_TEAMS:
            t = n // 2
            team_matches = [(i, j, float(rng.choice([0, 0.5, 1]))) for i in range(t) for j in range(i + 1, t)]
        elif kind == KIND_SWISS_TEAMS:
            t = n // 2
            for _ in range(int(rng.integers(1, 4))):
                perm = rng.permutation(t)
                team_matches += [(int(perm[2 * i]), int(perm[2 * i + 1]), float(rng.choice([0, 0.5, 1])))
                                 for i in range(t // 2)]
        out.append(session(day, kind, pairs, scores, groups, matches, team_matches))
    return out
