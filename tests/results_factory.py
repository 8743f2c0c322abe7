"""Build small Results in memory for tests: random layouts of every movement kind."""
import numpy as np

from simcore.results import (EVENT_TYPES, MOVEMENT_KINDS, SCORINGS, Results)

SCORES = np.array([-800, -200, -100, -50, 90, 110, 140, 170, 420, 450, 480, 620, 650, 980, 1430])


def build(sessions, n_players):
    """sessions: list of dicts with kind, scoring, winners, day, rows [(round, board, table, ns, ew, score)],
    teams [((a, b), (c, d)), ...]."""
    cols = {k: [] for k in ("s", "r", "b", "t", "ns", "ew", "sc")}
    team_session, team_players, team_names = [], [], []
    for s, sess in enumerate(sessions):
        for (rnd, board, table, ns, ew, score) in sess["rows"]:
            for k, v in zip(cols, (s, rnd, board, table, ns, ew, score)):
                cols[k].append(v)
        for j, (p1, p2) in enumerate(sess.get("teams", [])):
            team_session.append(s)
            team_players.append([*p1, *p2])
            team_names.append(f"T{s}-{j}")
    order = np.lexsort((cols["t"], cols["b"], cols["r"], cols["s"]))
    arr = lambda k, dt: np.asarray(cols[k], dt)[order]  # noqa: E731
    S = len(sessions)
    kinds = [MOVEMENT_KINDS.index(x["kind"]) for x in sessions]
    boards = [len({row[1] for row in x["rows"]}) for x in sessions]
    return Results(
        session_names=np.array([f"S{s}" for s in range(S)], object),
        session_day=np.array([x.get("day", 19000 + s) for s, x in enumerate(sessions)], np.int32),
        session_club=np.array([x.get("club", 0) for x in sessions], np.int32),
        session_event=np.array([EVENT_TYPES.index(x.get("event", "club")) for x in sessions], np.int8),
        session_scoring=np.array([SCORINGS.index(x["scoring"]) for x in sessions], np.int8),
        session_winners=np.array([x["winners"] for x in sessions], np.int8),
        session_kind=np.array(kinds, np.int8),
        session_movement=np.array([x["kind"] for x in sessions], object),
        session_boards=np.array(boards, np.int32),
        trav_session=arr("s", np.int32), trav_round=arr("r", np.int32), trav_board=arr("b", np.int32),
        trav_table=arr("t", np.int32), trav_ns=arr("ns", np.int32).reshape(-1, 2),
        trav_ew=arr("ew", np.int32).reshape(-1, 2), trav_ns_score=arr("sc", np.int32),
        team_session=np.array(team_session, np.int32),
        team_players=np.array(team_players, np.int32).reshape(-1, 4),
        team_names=np.array(team_names, object),
        player_names=np.array([f"P{p}" for p in range(n_players)], object),
        player_member=np.ones(n_players, bool), player_at_start=np.zeros(n_players, bool),
        player_initial_grade=np.full(n_players, np.nan), club_names=np.array(["club"] + [f"club{c}" for c in range(1, 1 + max([x.get("club", 0) for x in sessions] + [0]))],
                                                              object),
    )


def random_session(rng, kind, scoring, n_players=60, full=False):
    """A random but well-formed session of the given kind.

    full: complete rotations and no sit-outs, so every board is played at
    least twice (as a bundle requires).
    """
    players = rng.permutation(n_players)
    rows, teams = [], []
    bpr = int(rng.integers(1, 4))
    if kind in ("multiple_teams", "swiss_teams"):
        n_teams = 2 * int(rng.integers(1, 4))
        pairs = players[: 4 * n_teams].reshape(n_teams, 2, 2)
        teams = [(tuple(map(int, p[0])), tuple(map(int, p[1]))) for p in pairs]
        for rnd in range(1, int(rng.integers(1, 4)) + 1):
            perm = rng.permutation(n_teams)
            for m in range(n_teams // 2):
                a, b = perm[2 * m], perm[2 * m + 1]
                for q in range(bpr):
                    board = (rnd * 10 + m) * bpr + q + 1
                    rows.append((rnd, board, 2 * m + 1, pairs[a][0], pairs[b][1], int(rng.choice(SCORES))))
                    rows.append((rnd, board, 2 * m + 2, pairs[b][0], pairs[a][1], int(rng.choice(SCORES))))
        return dict(kind=kind, scoring="teams_imps", winners=2, rows=rows, teams=teams)
    tables = int(rng.integers(2, 6))
    pairs = players[: 4 * tables].reshape(2 * tables, 2)
    n_rounds = tables if full else int(rng.integers(1, 5))
    winners = 2 if kind == "mitchell" else 1
    for rnd in range(1, n_rounds + 1):
        if kind == "mitchell":
            seats = [(t, tables + (t + rnd) % tables) for t in range(tables)]
            sets = [(t - rnd) % tables for t in range(tables)]
        else:
            perm = rng.permutation(2 * tables)
            seats = [(perm[2 * t], perm[2 * t + 1]) for t in range(tables)]
            sets = [(t + rnd) % tables for t in range(tables)] if kind != "swiss_pairs" else [rnd] * tables
        for t, ((ns, ew), bset) in enumerate(zip(seats, sets)):
            if kind == "mitchell" and not full and rng.random() < 0.1:
                continue  # a sit-out: this table's boards are played once fewer
            for q in range(bpr):
                board = bset * bpr + q + 1
                rows.append((rnd, board, t + 1, pairs[ns], pairs[ew], int(rng.choice(SCORES))))
    if not rows:
        rows.append((1, 1, 1, pairs[0], pairs[1], 420))
    return dict(kind=kind, scoring=scoring, winners=winners, rows=rows)
