"""Reference session play (simcore.simulate.play.play_sessions): one session at a time, plain Python."""

from simcore.rng import normal_quantile

from .bridge_model import board_vulnerability, deal_board, draw_imps_lost, draw_ns_score, field_sigma
from .rng import SplitMix64

PLAY_SALT = 7


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
        strength.append(0.5 * (t_row[a] + t_row[b]) + bon + form_sd * normal_quantile.py_func(rs.uniform()))
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
    card = {}
    if offset is not None:
        # one declarer per table-board: side and hand from one uniform, 1/4 each of the four players
        for _, _, _, ns_pl, ew_pl, _ in travellers:
            seat = min(int(rs.uniform() * 4.0), 3)
            p = (ns_pl + ew_pl)[seat]
            lost, n = draw_imps_lost(t_row[p] + offset[p], 1, model.imps_lost_base, model.imps_lost_slope,
                                     model.imps_lost_floor, 0.0, rs)
            old = card.get(p, (0, 0.0))
            card[p] = (old[0] + n, old[1] + lost)
    return travellers, card
