"""Reference NGS: every current grade recomputed from the whole history (SPEC §1.2).

Histories are plain lists of sessions in date-of-play order; a session's
weight is the integral of the decay kernel over its ages, summed directly.
Sessions leave a history (for good) when they fall beyond the window or the
three years at a moment a grade is taken, as in the scheme.
"""

import math

NGS_BANDS_LOWER = [39 + 2 * k for k in range(11)] + [61, 63, 65, 67]


def kernel_integral(u, v, shape, window, flat, half_life):
    if v <= u:
        return 0.0
    if shape == "exponential":
        tau = half_life / math.log(2)
        return tau * (math.exp(-u / tau) - math.exp(-v / tau))

    def K(b):
        if shape == "line":
            return max(window - b, 0.0)
        if shape == "rectangle":
            return 1.0 if b < window else 0.0
        return 1.0 if b < flat else max((window - b) / (window - flat), 0.0)
    # the kernels are piecewise linear: integrate exactly between breakpoints
    points = sorted({u, v} | {k for k in (flat, window) if u < k < v})
    return sum((b - a) * K((a + b) / 2) for a, b in zip(points, points[1:]))  # midpoint: exact when linear


class NaiveNGS:
    def __init__(self, p, member, at_start, explicit, track):
        self.p = p
        self.member, self.at_start, self.explicit = member, at_start, explicit
        self.track = track
        self.hist = {}      # entity -> list of sessions (dicts), date order
        self.total = {}
        self.sessions = {}
        self.init = {}
        self.ever = {}
        self.low = {}

    def _ages(self, h):
        near, out = 0.0, []
        for sess in reversed(h):
            out.append((near, near + sess["span"]))
            near += sess["span"]
        return list(reversed(out))

    def _evict(self, ent, day):
        h = self.hist.setdefault(ent, [])
        limit = 40 * self.p.half_life / math.log(2) if self.p.decay == "exponential" else self.p.window
        while h:
            near = self._ages(h)[0][0]
            if h[0]["day"] < day - self.p.limit_days or near >= limit:
                h.pop(0)
            else:
                break

    def counted(self, ent, pid):
        return sum(1 for sess in self.hist.get(ent, []) if sess["pid"] == pid), len(self.hist.get(ent, []))

    def grade(self, ent, day):
        self._evict(ent, day)
        h = self.hist[ent]
        p = self.p
        sw = sgw = 0.0
        for sess, (near, far) in zip(h, self._ages(h)):
            w = sess["phi"] * kernel_integral(near, far, p.decay, p.window, p.flat, p.half_life)
            sw += w
            sgw += w * sess["g"]
        real = sum(sess["boards"] for sess in h)
        init = self.init.get(ent, math.nan)
        if not self.ever.get(ent, False) and real < p.pad_boards and not math.isnan(init):
            d = self._ages(h)[0][1] if h else 0.0
            w = kernel_integral(d, d + p.pad_boards - real, p.decay, p.window, p.flat, p.half_life)
            sw += w
            sgw += w * init
        if sw > 0:
            return sgw / sw
        return init if not self.ever.get(ent, False) else math.nan

    def snapshot_extras(self, ent, day, grade):
        """(status, band, boards within three years) of a player on ``day`` with current grade ``grade``:
        status 0 provisional (fewer than provisional_boards ever), 3 out of date (fewer within three
        years), 2 mature (mature_boards or more within three years), else 1; band the number of
        NGS_BANDS_LOWER bounds the grade reaches (NaN without a grade)."""
        self._evict(ent, day)
        recent = float(sum(sess["boards"] for sess in self.hist[ent]))
        p = self.p
        if self.total.get(ent, 0) < p.provisional_boards:
            status = 0
        elif recent < p.provisional_boards:
            status = 3
        elif recent >= p.mature_boards:
            status = 2
        else:
            status = 1
        band = math.nan if math.isnan(grade) else float(sum(grade >= b for b in NGS_BANDS_LOWER))
        return status, band, recent

    def add(self, ent, g, boards, span, phi, day, pid, seq):
        h = self.hist.setdefault(ent, [])
        q = len(h)
        while q > 0 and h[q - 1]["day"] > day:
            q -= 1
        h.insert(q, dict(g=g, boards=boards, span=span, phi=phi, day=day, pid=pid, seq=seq))
        self.total[ent] = self.total.get(ent, 0) + boards
        self.sessions[ent] = self.sessions.get(ent, 0) + 1

    def remove_seq(self, ent, seq):
        h = self.hist.get(ent, [])
        for i, sess in enumerate(h):
            if sess["seq"] == seq:
                self.total[ent] -= sess["boards"]
                h.pop(i)
                return

    def start(self, ent, g0):
        self.init[ent] = g0
        self.ever[ent] = False

    def apply(self, sc, n_players, seq_base=0):
        """Grade every session of ``sc`` (a ScoredResults); returns out_after (E, 2)."""
        import numpy as np
        p = self.p
        E = len(sc.pair_players)
        out = np.full((E, 2), np.nan)
        for k, pp in enumerate(sc.partnership_players):
            self.low[k] = int(pp[0])
        weights = [p.weight_club, p.weight_black, p.weight_green]
        for s in sc.order:
            s = int(s)
            if sc.kind[s] == 5:
                continue
            e0, e1 = int(sc.pair_start[s]), int(sc.pair_start[s + 1])
            day = int(sc.day[s])
            r = int(sc.replaces[s])
            if r >= 0:
                for e in range(int(sc.pair_start[r]), int(sc.pair_start[r + 1])):
                    for ent in (int(sc.pair_players[e, 0]), int(sc.pair_players[e, 1])):
                        self.remove_seq(ent, seq_base + r)
                    pid = int(sc.pair_partnership[e])
                    if pid < self.track:
                        self.remove_seq(n_players + pid, seq_base + r)
            known = {}
            cur = {}
            for e in range(e0, e1):
                a, b = (int(x) for x in sc.pair_players[e])
                known[e] = bool(self.member[a] and self.member[b])
                if not known[e]:
                    continue
                for pl in (a, b):
                    if self.sessions.get(pl, 0) == 0 and math.isnan(self.init.get(pl, math.nan)):
                        if not math.isnan(self.explicit[pl]):
                            g0 = self.explicit[pl]
                        elif self.at_start[pl]:
                            g0 = p.start_grade
                        elif sc.event[s] == 2:
                            g0 = p.green_initial_grade
                        else:
                            g0 = p.initial_grade
                        self.start(pl, g0)
                    cur[pl] = self.grade(pl, day)
                    if not self.hist[pl] and self.sessions.get(pl, 0) > 0:
                        self.start(pl, p.returner_grade)
                        cur[pl] = p.returner_grade
            n_known = sum(known.values())
            if n_known <= p.known_share * (e1 - e0):
                continue
            std = {}
            for e in range(e0, e1):
                x = max(int(sc.pair_boards[e]), 1)
                i = float(sc.pair_score[e])
                std[e] = {0: i - 50, 1: p.butler_factor * i / x, 3: i / (p.aggregate_factor * x)}.get(
                    int(sc.scoring[s]), p.cross_imp_factor * i / x)
            for e in range(e0, e1):
                if known[e]:
                    continue
                grp = sc.pair_group[e]
                total, members = 0.0, 0
                for f in range(e0, e1):
                    if sc.pair_group[f] != grp:
                        continue
                    if known[f]:
                        total += cur[int(sc.pair_players[f, 0])] + cur[int(sc.pair_players[f, 1])]
                        members += 2
                    else:
                        total += 2 * std[f]
                sof = total / members if members else 50.0
                for pl in sc.pair_players[e]:
                    cur[int(pl)] = sof + std[e]
            sopp = {}
            swiss = sc.kind[s] in (2, 4)
            for e in range(e0, e1):
                if swiss:
                    vals = [(cur[int(sc.pair_players[o, 0])] + cur[int(sc.pair_players[o, 1])]) / 2
                            for o in sc.match_opp[sc.match_start[e]:sc.match_start[e + 1]]]
                else:
                    vals = [cur[int(pl)] for f in range(e0, e1) if f != e and sc.pair_group[f] == sc.pair_group[e]
                            for pl in sc.pair_players[f]]
                sopp[e] = sum(vals) / len(vals) if vals else math.nan
            new = {}
            for e in range(e0, e1):
                if not known[e] or math.isnan(sopp[e]):
                    continue
                a, b = (int(x) for x in sc.pair_players[e])
                ga, gb = cur[a], cur[b]
                excess = std[e] + sopp[e] - (ga + gb) / 2
                pid = int(sc.pair_partnership[e])
                regular = False
                if p.rpcf > 0:
                    ca, na = self.counted(a, pid)
                    cb, nb = self.counted(b, pid)
                    regular = na > 0 and nb > 0 and ca > p.rpcf_share * na and cb > p.rpcf_share * nb
                conv = p.rpcf * (gb - ga) / 2 if regular else 0.0
                new[e] = (ga + conv + p.gain * excess, gb - conv + p.gain * excess)
                x = max(int(sc.pair_boards[e]), 1)
                factor = weights[int(sc.event[s])]
                span, phi = (x * factor, 1.0) if p.weight_mode == "boards" else (x, factor)
                if pid < self.track:
                    ent = n_players + pid
                    if self.sessions.get(ent, 0) == 0 and math.isnan(self.init.get(ent, math.nan)):
                        self.start(ent, (ga + gb) / 2)
                    pg = self.grade(ent, day)
                    if math.isnan(pg):
                        pg = (ga + gb) / 2
                    self.add(ent, pg + p.gain * (excess + (ga + gb) / 2 - pg), x, span, phi, day, -1, seq_base + s)
            for e, (sa, sb) in new.items():
                a, b = (int(x) for x in sc.pair_players[e])
                x = max(int(sc.pair_boards[e]), 1)
                factor = weights[int(sc.event[s])]
                span, phi = (x * factor, 1.0) if p.weight_mode == "boards" else (x, factor)
                pid = int(sc.pair_partnership[e])
                for pl, g in ((a, sa), (b, sb)):
                    self.add(pl, g, x, span, phi, day, pid, seq_base + s)
                    if sum(sess["boards"] for sess in self.hist[pl]) >= p.pad_boards:
                        self.ever[pl] = True
            for e in new:
                for j, pl in enumerate(sc.pair_players[e]):
                    out[e, j] = self.grade(int(pl), day)
        return out


def compact_pool(rings, slices):
    """Every entity's slice of the pool, packed in the order of the slices' offsets.

    rings: list of pool rows (any values); slices: {entity: (offset, capacity)}.
    Returns (packed rows, {entity: new offset}).
    """
    packed, where = [], {}
    for e, (off, cap) in sorted(slices.items(), key=lambda kv: kv[1][0]):
        where[e] = len(packed)
        packed.extend(rings[off:off + cap])
    return packed, where


def grow_ring(rows, rings, used, e, first):
    """A full ring's growth: to ``first`` sessions if smaller, else a quarter more room (at least two free
    slots), rounded up to 8 sessions, at least 16; its sessions, oldest first, copied to rows used.. at
    the pool's end.

    rows: list of pool rows (its length is the pool's); rings: {entity: (offset, capacity, head, count)};
    used: rows handed out.  Returns (rows, rings, used) after, or None when the pool is too short.
    """
    off, cap, head, cnt = rings[e]
    new_cap = max(first if cap < first else cap + cap // 4, cnt + 2)
    new_cap = max(-(-new_cap // 8) * 8, 16)
    if used + new_cap > len(rows):
        return None
    rows, rings = list(rows), dict(rings)
    rows[used:used + cnt] = [rows[off + (head + i) % cap] for i in range(cnt)]
    rings[e] = (used, new_cap, 0, cnt)
    return rows, rings, used + new_cap


def prefetch(*arrays_and_rows):
    """Twin of decay.prefetch_entity / prefetch_ring_ends / ngs._keep_ahead: a cache hint changes
    no value, so the reference does nothing."""
    return None


def append_newest(ring, ent, g, boards, span, phi, day, pid, seq):
    """Twin of decay.append_newest on a plain-Python view of one entity: ``ring`` is a list of session
    dicts (oldest first, with cumulative sums ca..cd), ``ent`` a dict of the entity row (clock t, bases
    ba..bd, newest sums la..ld and clock le, boards ever, sessions ever, real boards, newest day).
    The session goes after the newest; its clock position is the newest's plus the span, and its
    cumulative sums add phi·span and phi·span·(E − span/2), times g for the grade sums."""
    if ring:
        prev_e, base = ent["le"], [ent["la"], ent["lb"], ent["lc"], ent["ld"]]
    else:
        prev_e, base = ent["t"], [ent["ba"], ent["bb"], ent["bc"], ent["bd"]]
    e = prev_e + span
    a = phi * span
    b = a * (e - span / 2.0)
    sums = [base[0] + a, base[1] + b, base[2] + a * g, base[3] + b * g]
    ring.append({"e": e, "x": span, "phi": phi, "g": g, "ca": sums[0], "cb": sums[1], "cc": sums[2],
                 "cd": sums[3], "day": day, "pid": pid, "seq": seq, "boards": boards})
    ent.update(t=ent["t"] + span, la=sums[0], lb=sums[1], lc=sums[2], ld=sums[3], le=e, lday=day,
               total=ent["total"] + int(boards), sessions=ent["sessions"] + 1,
               real=ent["real"] + boards)


def grade_from_ring(ring, t, init, ever, real, pad_boards, shape, window, flat=0.0, half_life=1.0):
    """Twin of decay.current_grade / current_grade_one_segment on a plain-Python view of one entity
    (``ring``: session dicts oldest first with clock position e, span x, weight phi, grade g; ``t``
    the clock): each session weighted by phi times the kernel's integral over its ages, the
    padding's boards sitting oldest at the initial grade until 300 boards were reached."""
    sw = sgw = 0.0
    for sess in ring:
        near = t - sess["e"]
        w = sess["phi"] * kernel_integral(near, near + sess["x"], shape, window, flat, half_life)
        sw += w
        sgw += w * sess["g"]
    if not ever and real < pad_boards and not math.isnan(init):
        far = t - ring[0]["e"] + ring[0]["x"] if ring else 0.0
        w = kernel_integral(far, far + pad_boards - real, shape, window, flat, half_life)
        sw += w
        sgw += w * init
    if sw <= 0:
        return init if not ever else math.nan
    return sgw / sw
