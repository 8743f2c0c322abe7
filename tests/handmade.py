"""Small Results / ScoredResults written by hand, for scheme tests.

``handmade(sessions, n_players)`` takes sessions as dicts::

    {"day": 19000, "scoring": "mp",
     "tables": [(round, board, table, (ns1, ns2), (ew1, ew2), ns_mp), ...]}

and returns ``(Results, ScoredResults)`` with travellers sorted by (session,
round, board, table), one pair entry per pair per session, and the NS MP %
as given (``trav_ns_mp``).  Scores, pair scores and matches are left at
zero: the PPI scheme does not read them.
"""

import numpy as np

from simcore.results import SCORINGS, Results, ScoredResults, days_to_months


def handmade(sessions, n_players, member=None, names=None):
    i32 = lambda a: np.asarray(a, np.int32).reshape(-1)  # noqa: E731
    S = len(sessions)
    rows, pairs, pair_start, trav_start, entry_ns, entry_ew = [], [], [0], [0], [], []
    for s, sess in enumerate(sessions):
        tables = sorted(sess["tables"], key=lambda r: (r[0], r[1], r[2]))
        index = {}
        for rnd, board, table, ns, ew, mp in tables:
            for pair, direction in ((ns, 0), (ew, 1)):
                key = tuple(sorted(pair))
                if key not in index:
                    index[key] = len(pairs)
                    pairs.append((key, direction))
            rows.append((s, rnd, board, table, ns, ew, mp))
            entry_ns.append(index[tuple(sorted(ns))])
            entry_ew.append(index[tuple(sorted(ew))])
        pair_start.append(len(pairs))
        trav_start.append(len(rows))
    S_day = i32([sess["day"] for sess in sessions])
    scoring = np.array([SCORINGS.index(sess.get("scoring", "mp")) for sess in sessions], np.int8)
    T, E = len(rows), len(pairs)
    member = np.ones(n_players, bool) if member is None else np.asarray(member, bool)
    names = np.array([f"p{q}" for q in range(n_players)] if names is None else names, object)
    results = Results(
        session_names=np.array([f"s{s}" for s in range(S)], object), session_day=S_day,
        session_club=i32(np.zeros(S)), session_event=np.zeros(S, np.int8), session_scoring=scoring,
        session_winners=np.full(S, 2, np.int8), session_kind=np.zeros(S, np.int8),
        session_movement=np.array(["mitchell"] * S, object),
        session_boards=i32([len({r[1] for r in sess["tables"]}) for sess in sessions]),
        trav_session=i32([r[0] for r in rows]), trav_round=i32([r[1] for r in rows]),
        trav_board=i32([r[2] for r in rows]), trav_table=i32([r[3] for r in rows]),
        trav_ns=np.asarray([r[4] for r in rows], np.int32).reshape(T, 2),
        trav_ew=np.asarray([r[5] for r in rows], np.int32).reshape(T, 2), trav_ns_score=i32(np.zeros(T)),
        team_session=i32([]), team_players=np.zeros((0, 4), np.int32), team_names=np.array([], object),
        player_names=names, player_member=member, player_at_start=np.zeros(n_players, bool),
        player_initial_grade=np.full(n_players, np.nan), club_names=np.array(["club"], object))
    results.check()
    z = lambda n, dt=np.int32: np.zeros(n, dt)  # noqa: E731
    boards = np.zeros(E, np.int32)
    for e in entry_ns + entry_ew:
        boards[e] += 1
    scored = ScoredResults(
        day=S_day, month=days_to_months(S_day), club=z(S), event=z(S, np.int8), scoring=scoring,
        winners=np.full(S, 2, np.int8), kind=z(S, np.int8), pair_start=np.asarray(pair_start, np.int64),
        trav_start=np.asarray(trav_start, np.int64), order=results.processing_order(),
        pair_players=np.asarray([p for p, _ in pairs], np.int32).reshape(E, 2),
        pair_partnership=i32(np.arange(E)), pair_direction=np.asarray([d for _, d in pairs], np.int8),
        pair_group=z(E), pair_team=np.full(E, -1, np.int32), pair_boards=boards, pair_score=z(E, np.float64),
        pair_beaten=z(E, np.float64), pair_n_ranked=z(E), match_start=z(E + 1, np.int64), match_opp=z(0),
        match_mate=z(0), match_opp_mate=z(0), match_boards=z(0), match_result=z(0, np.float64),
        match_score=z(0, np.float64), trav_ns_mp=np.asarray([r[6] for r in rows], np.float64).reshape(T),
        trav_ns_entry=i32(entry_ns), trav_ew_entry=i32(entry_ew))
    return results, scored


def day(iso: str) -> int:
    """Day number (days since 1970-01-01) of an ISO date."""
    return int(np.datetime64(iso, "D").astype(np.int64))
