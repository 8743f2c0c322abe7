"""Reference session play (simcore.simulate.play.play_sessions): one session at a time, plain Python."""

from simcore.rng import normal_quantile

from .bridge_model import board_vulnerability, deal_board, draw_imps_lost, draw_ns_score, field_sigma
from .rng import SplitMix64

PLAY_SALT = 7


def _python(kernel):
    """A kernel's plain-Python function (the function itself under NUMBA_DISABLE_JIT=1, where it has no
    dispatcher): the twin must not run the code it checks."""
    return getattr(kernel, "py_func", kernel)


def play_session(key, index, boards, pairs, bonus, rows, t_row, form_sd, model, scores, thresholds, n_deals,
                 offset=None):
    """One session from its rows: ([(round, board, table, ns players, ew players, NS score)], {player: (boards, IMPs)}).

    pairs: [(a, b)] players of each entry; bonus: grade points per entry;
    rows: [(round, table, ns entry, ew entry, first board, boards)];
    t_row: true strength by player; model: BridgeModelParams; offset: card
    play minus true strength by player (grade points), None = no card play.
    """
    rs = SplitMix64(key, PLAY_SALT, index)
    strength = []
    for (a, b), bon in zip(pairs, bonus):
        # the kernel's normal draw: the inverse normal CDF of one uniform
        strength.append(0.5 * (t_row[a] + t_row[b]) + bon + form_sd * _python(normal_quantile)(rs.uniform()))
    field = sum(t_row[a] + t_row[b] for a, b in pairs) / (2.0 * len(pairs))
    sigma = field_sigma(field, model.sigma_slope, model.sigma_floor)
    codes = {board: deal_board(n_deals, board_vulnerability(board), rs) for board in range(1, boards + 1)}
    travellers = []
    played = [0] * len(pairs)
    for rnd, table, ns, ew, first, n in rows:
        for board in range(first, first + n):
            score = draw_ns_score(scores, thresholds, codes[board], strength[ns], strength[ew], model.alpha, sigma, rs)
            travellers.append((rnd, board, table, pairs[ns], pairs[ew], score))
        played[ns] += n
        played[ew] += n
    return travellers, session_card_play(travellers, t_row, offset, model, rs)


def play_swiss_session(key, index, teams, imps_scoring, rounds, bpr, pairs, bonus, team_of, t_row, form_sd, model,
                       scores, thresholds, n_deals, trim, offset=None):
    """One Swiss pairs or Swiss teams session (simcore.simulate.play.play_swiss_sessions), plain Python.

    pairs, bonus: as ``play_session``; team_of: each entry's team (Swiss
    teams: two entries a team).  Returns (travellers in written order,
    {player: (boards declared, IMPs lost)}).  The board-scoring primitives
    (victory points, Butler, match points) are the kernels' own, checked
    against their twins elsewhere: a last-bit difference in a VP would
    reorder tied standings and test nothing about play.
    """
    import numpy as np

    from simcore.scoring.board import board_butler, board_matchpoints
    from simcore.scoring.imp_scale import victory_points

    from .movements import standings_order, swiss_pair_round
    from .scoring import imps

    rs = SplitMix64(key, PLAY_SALT, index)
    strength = [0.5 * (t_row[a] + t_row[b]) + bon + form_sd * _python(normal_quantile)(rs.uniform())
                for (a, b), bon in zip(pairs, bonus)]
    field = sum(t_row[a] + t_row[b] for a, b in pairs) / (2.0 * len(pairs))
    sigma = field_sigma(field, model.sigma_slope, model.sigma_floor)
    if teams:
        members = [[e for e in range(len(pairs)) if team_of[e] == k] for k in range(max(team_of) + 1)]
    else:
        members = [[e, e] for e in range(len(pairs))]
    n = len(members)
    played = [[False] * n for _ in range(n)]
    had_bye = [False] * n
    points = [0.0] * n
    travellers = []
    for r in range(rounds):
        if r == 0:  # a random draw: Fisher-Yates from the top
            order = list(range(n))
            for i in range(n - 1, 0, -1):
                j = int(rs.uniform() * (i + 1))
                order[i], order[j] = order[j], order[i]
            matches = [(order[2 * m], order[2 * m + 1]) for m in range(n // 2)]
            bye = order[n - 1] if n % 2 else -1
        else:
            order = standings_order(points)
            matches, bye = swiss_pair_round(order, played, had_bye)
            if matches is None:  # no repeat-free pairing: straight down the standings
                bye = order[n - 1] if n % 2 else -1
                rest = [x for x in order if x != bye]
                matches = [(rest[2 * m], rest[2 * m + 1]) for m in range(n // 2)]
        if bye >= 0:
            had_bye[bye] = True
        margin = [0.0] * len(matches)
        for q in range(bpr):
            board = r * bpr + q + 1
            code = deal_board(n_deals, board_vulnerability(board), rs)
            sc = []
            for m, (x, y) in enumerate(matches):
                tables = [(members[x][0], members[y][1]), (members[y][0], members[x][1])] if teams \
                    else [(members[x][0], members[y][0])]
                for h, (ns, ew) in enumerate(tables):
                    score = draw_ns_score(scores, thresholds, code, strength[ns], strength[ew], model.alpha, sigma, rs)
                    table = m * len(tables) + h + 1
                    travellers.append((r + 1, board, table, pairs[ns], pairs[ew], score))
                    sc.append(score)
            value = np.empty(len(sc))
            if teams:
                for m in range(len(matches)):
                    margin[m] += imps(sc[2 * m] - sc[2 * m + 1])
            elif imps_scoring:
                _python(board_butler)(np.array(sc, np.int32), trim, value)
                for m in range(len(matches)):
                    margin[m] += value[m]
            else:
                _python(board_matchpoints)(np.array(sc, np.int32), len(sc), False, value)
                for m in range(len(matches)):
                    margin[m] += value[m] / bpr
        for m, (x, y) in enumerate(matches):
            played[x][y] = played[y][x] = True
            if teams or imps_scoring:
                vp = _python(victory_points)(margin[m], bpr)
                points[x] += vp
                points[y] += 20.0 - vp
            else:
                points[x] += margin[m]
                points[y] += 100.0 - margin[m]
    return travellers, session_card_play(travellers, t_row, offset, model, rs)


def session_card_play(travellers, t_row, offset, model, rs):
    """Card play on a session's travellers, in written order: {player: (boards declared, IMPs lost)};
    empty when ``offset`` is None (card play off).

    One declarer per table-board: side and hand from one uniform, 1/4 each of the four players; they
    lose IMPs at the rate of true strength + card-play offset (``draw_imps_lost`` over one board).
    """
    card = {}
    if offset is None:
        return card
    for _, _, _, ns_pl, ew_pl, _ in travellers:
        seat = min(int(rs.uniform() * 4.0), 3)
        p = (ns_pl + ew_pl)[seat]
        lost, n = draw_imps_lost(t_row[p] + offset[p], 1, model.imps_lost_base, model.imps_lost_slope,
                                 model.imps_lost_floor, 0.0, rs)
        old = card.get(p, (0, 0.0))
        card[p] = (old[0] + n, old[1] + lost)
    return card


def chunk_tallies(pair_start, trav_start, replaces, pair_players, pair_boards, strength, n_players):
    """Reference ``simulate.chunk._chunk_tallies``: (boards per player, mean true strength per pair entry,
    travellers of first publications), one session at a time."""
    boards, true_pair, first_travellers = [0] * n_players, [], 0
    for s in range(len(pair_start) - 1):
        first = replaces[s] < 0
        if first:
            first_travellers += int(trav_start[s + 1] - trav_start[s])
        for e in range(pair_start[s], pair_start[s + 1]):
            a, b = int(pair_players[e][0]), int(pair_players[e][1])
            true_pair.append(0.5 * (float(strength[a]) + float(strength[b])))
            if first:
                boards[a] += int(pair_boards[e])
                boards[b] += int(pair_boards[e])
    return boards, true_pair, first_travellers
