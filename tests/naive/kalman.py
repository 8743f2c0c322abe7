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


def field_players(sc, s, e):
    """(player, weight) of e's field, weights summing to 1: SOpp's field (match opponents or its group)."""
    e0, e1 = int(sc.pair_start[s]), int(sc.pair_start[s + 1])
    if sc.kind[s] in SWISS_KINDS:
        opps = list(sc.match_opp[sc.match_start[e]:sc.match_start[e + 1]])
    else:
        opps = [f for f in range(e0, e1) if f != e and sc.pair_group[f] == sc.pair_group[e]]
    return [(int(pl), 0.5 / len(opps)) for o in opps for pl in sc.pair_players[o]]


class NaiveKalman:
    def __init__(self, p, member, explicit, at_start):
        self.p = p
        self.member = list(member)
        self.start = [(p.prior_mean if old else p.newcomer_mean) if math.isnan(x) else float(x)
                      for x, old in zip(explicit, at_start)]
        self.mu, self.var, self.last = {}, {}, {}
        self.pool = {}  # player -> club of his first club session
        self.level, self.level_var = {}, {}  # club -> level mean, variance

    def grade(self, pl):
        c = self.pool.get(pl)
        return self.mu[pl] + (self.level.get(c, 0.0) if c is not None else 0.0)

    def apply(self, sc):
        p = self.p
        weights = [p.weight_club, p.weight_black, p.weight_green]
        out = [[math.nan, math.nan] for _ in range(len(sc.pair_players))]
        for s in sc.order:
            s = int(s)
            if sc.kind[s] == ONLINE:
                continue
            day = int(sc.day[s])
            club = int(sc.club[s])
            is_club = int(sc.event[s]) == 0
            for c in set(int(x) for x in sc.club):
                if c not in self.level:
                    self.level[c], self.level_var[c] = 0.0, p.level_sd ** 2
            entries = range(int(sc.pair_start[s]), int(sc.pair_start[s + 1]))
            for e in entries:
                for pl in sc.pair_players[e]:
                    pl = int(pl)
                    if pl not in self.last:
                        self.mu[pl], self.var[pl] = self.start[pl], p.prior_sd ** 2
                        if is_club:
                            self.pool[pl] = club
                    else:
                        self.var[pl] += p.drift / 365.25 * max(day - self.last[pl], 0)
                        if pl not in self.pool and is_club:
                            self.pool[pl] = club
                            self.mu[pl] -= self.level[club]
                    self.last[pl] = day
            grade = {int(pl): self.grade(int(pl)) for e in entries for pl in sc.pair_players[e]}
            new, info, pull = {}, {}, {}
            for e in entries:
                a, b = (int(x) for x in sc.pair_players[e])
                sopp = field_mean(sc, s, e, grade)
                if math.isnan(sopp):
                    continue
                fvar = field_mean(sc, s, e, self.var)
                n = max(int(sc.pair_n_ranked[e]), 1)
                y = standard_score(sc.scoring[s], float(sc.pair_score[e]), int(sc.pair_boards[e]), p) + sopp
                noise = p.board_sd ** 2 / max(int(sc.pair_boards[e]), 1) * (1 + 1 / n) / weights[sc.event[s]]
                h = {}  # club -> pair's share − field's share
                for pl, w in field_players(sc, s, e):
                    if pl in self.pool:
                        h[self.pool[pl]] = h.get(self.pool[pl], 0.0) - w
                for pl in (a, b):
                    if pl in self.pool:
                        h[self.pool[pl]] = h.get(self.pool[pl], 0.0) + 0.5
                level_term = sum(hc * hc * self.level_var[c] for c, hc in h.items())
                total = (self.var[a] + self.var[b]) / 4 + noise + fvar / (2 * n) + level_term
                r = y - (grade[a] + grade[b]) / 2
                for c, hc in h.items():
                    if abs(hc) > 1e-9 and self.level_var[c] > 0:
                        info[c] = info.get(c, 0.0) + hc * hc / total
                        pull[c] = pull.get(c, 0.0) + hc * r / total
                new[e] = [(pl, self.mu[pl] + self.var[pl] / 2 / total * r,
                           self.var[pl] - (self.var[pl] / 2) ** 2 / total) for pl in (a, b)]
            for c in info:
                post = 1 / (1 / self.level_var[c] + info[c])
                self.level[c] += post * pull[c]
                self.level_var[c] = post
            for e in entries:
                for pl, m, v in new.get(e, []):
                    self.mu[pl], self.var[pl] = m, v
            for e in entries:
                out[e] = [self.grade(int(x)) for x in sc.pair_players[e]]
        return out

    def grades(self):
        return [self.grade(i) if i in self.mu and self.member[i] else math.nan for i in range(len(self.member))]
