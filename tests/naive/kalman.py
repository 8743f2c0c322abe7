"""Reference kalman filter: plain Python, one session at a time, dicts of beliefs (simcore.schemes.kalman)."""

import math

__all__ = ["NaiveKalman"]

ONLINE, SWISS_KINDS = 5, (2, 4)
MP, BUTLER, AGGREGATE = 0, 1, 3


def standard_score(scoring, score, boards, p):
    x = max(boards, 1)
    if scoring == MP:
        return score - 50.0
    if scoring == BUTLER:
        return p.butler_factor * score / x
    if scoring == AGGREGATE:
        return score / (p.aggregate_factor * x)
    return p.cross_imp_factor * score / x


def field_mean(sc, s, e, value):
    """Mean of ``value`` over e's field: match opponents (Swiss) or the other pairs of its group."""
    e0, e1 = int(sc.pair_start[s]), int(sc.pair_start[s + 1])
    if sc.kind[s] in SWISS_KINDS:
        vals = [(value[int(sc.pair_players[o, 0])] + value[int(sc.pair_players[o, 1])]) / 2
                for o in sc.match_opp[sc.match_start[e]:sc.match_start[e + 1]]]
    else:
        vals = [value[int(pl)] for f in range(e0, e1) if f != e and sc.pair_group[f] == sc.pair_group[e]
                for pl in sc.pair_players[f]]
    return sum(vals) / len(vals) if vals else math.nan


class NaiveKalman:
    def __init__(self, p, member, explicit, at_start):
        self.p = p
        self.member = list(member)
        self.start = [(p.prior_mean if old else p.newcomer_mean) if math.isnan(x) else float(x)
                      for x, old in zip(explicit, at_start)]
        self.mu, self.var, self.last = {}, {}, {}

    def apply(self, sc):
        p = self.p
        weights = [p.weight_club, p.weight_black, p.weight_green]
        out = [[math.nan, math.nan] for _ in range(len(sc.pair_players))]
        for s in sc.order:
            s = int(s)
            if sc.kind[s] == ONLINE:
                continue
            day = int(sc.day[s])
            entries = range(int(sc.pair_start[s]), int(sc.pair_start[s + 1]))
            for e in entries:
                for pl in sc.pair_players[e]:
                    pl = int(pl)
                    if pl not in self.last:
                        self.mu[pl], self.var[pl] = self.start[pl], p.prior_sd ** 2
                    else:
                        self.var[pl] += p.drift / 365.25 * max(day - self.last[pl], 0)
                    self.last[pl] = day
            new = {}
            for e in entries:
                a, b = (int(x) for x in sc.pair_players[e])
                sopp = field_mean(sc, s, e, self.mu)
                if math.isnan(sopp):
                    continue
                fvar = field_mean(sc, s, e, self.var)
                n = max(int(sc.pair_n_ranked[e]), 1)
                y = standard_score(sc.scoring[s], float(sc.pair_score[e]), int(sc.pair_boards[e]), p) + sopp
                noise = p.board_sd ** 2 / max(int(sc.pair_boards[e]), 1) * (1 + 1 / n) / weights[sc.event[s]]
                total = (self.var[a] + self.var[b]) / 4 + noise + fvar / (2 * n)
                r = y - (self.mu[a] + self.mu[b]) / 2
                new[e] = [(pl, self.mu[pl] + self.var[pl] / 2 / total * r,
                           self.var[pl] - (self.var[pl] / 2) ** 2 / total) for pl in (a, b)]
            for e in entries:
                for pl, m, v in new.get(e, []):
                    self.mu[pl], self.var[pl] = m, v
                out[e] = [self.mu[int(x)] for x in sc.pair_players[e]]
        return out

    def grades(self):
        return [self.mu[i] if i in self.mu and self.member[i] else math.nan for i in range(len(self.member))]
