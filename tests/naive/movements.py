"""Reference Swiss pairing and online seating (simcore.movements.swiss / online)."""


def swiss_pair_round(order, played, had_bye):
    """(pairs, bye): top unpaired meets the next highest it has not met; depth-first backtracking."""
    order = [int(x) for x in order]
    if len(order) % 2 == 0:
        return _pair_or_fail(order, played, -1)
    candidates = [x for x in reversed(order) if not had_bye[x]] + [x for x in reversed(order) if had_bye[x]]
    for bye in candidates:
        pairs, got = _pair_or_fail([x for x in order if x != bye], played, bye)
        if pairs is not None:
            return pairs, got
    return None, -2


def _pair_or_fail(field, played, bye):

    def pair(rest):
        if not rest:
            return []
        top = rest[0]
        for j in range(1, len(rest)):
            if not played[top][rest[j]]:
                tail = pair(rest[1:j] + rest[j + 1:])
                if tail is not None:
                    return [(top, rest[j])] + tail
        return None

    pairs = pair(field)
    return (pairs, bye) if pairs is not None else (None, -2)


def online_seat_round(singles, fixed_a, fixed_b, stream):
    """Tables [(ns_a, ns_b, ew_a, ew_b)] of one round, drawing from ``stream`` (SplitMix64)."""
    order = list(singles)
    for i in range(len(order) - 1, 0, -1):
        j = int(stream.uniform() * (i + 1))
        order[i], order[j] = order[j], order[i]
    pairs = [(order[2 * k], order[2 * k + 1]) for k in range(len(order) // 2)] + list(zip(fixed_a, fixed_b))
    for i in range(len(pairs) - 1, 0, -1):
        j = int(stream.uniform() * (i + 1))
        pairs[i], pairs[j] = pairs[j], pairs[i]
    return [(*pairs[2 * t], *pairs[2 * t + 1]) for t in range(len(pairs) // 2)]


ONLINE_SALT = 0x0717E


def seat_online_room(key, index, a, b, bonus, rounds, bpr):
    """Reference ``seating.seat_rooms`` for one session: (rows, pairs, pair bonuses, rank).

    a, b: the room's entries (b = -1 for a player entering alone); bonus: grade points of the pairs
    that entered together.  rows: [(round, table, ns pair, ew pair, first board, boards)]; pairs:
    [(low, high)] numbered as they first sit down; rank: the (round, board, table) position of each
    traveller in the order the rows write them (row by row, boards in order).
    """
    from .rng import SplitMix64
    stream = SplitMix64(key, ONLINE_SALT, index)
    fixed = [(x, y, v) for x, y, v in zip(a, b, bonus) if y >= 0]
    bonus_of = {(min(x, y), max(x, y)): v for x, y, v in fixed}
    singles = [x for x, y in zip(a, b) if y < 0]
    pair_id, rows = {}, []
    for r in range(rounds):
        tables = online_seat_round(singles, [x for x, _, _ in fixed], [y for _, y, _ in fixed], stream)
        for t, (na, nb, ea, eb) in enumerate(tables):
            ids = [pair_id.setdefault((min(x, y), max(x, y)), len(pair_id)) for x, y in ((na, nb), (ea, eb))]
            rows.append((r + 1, t + 1, ids[0], ids[1], r * bpr + 1, bpr))
    pairs = list(pair_id)
    written = [(rnd, first + q, table) for rnd, table, _, _, first, n in rows for q in range(n)]
    position = {x: i for i, x in enumerate(sorted(written))}
    return rows, pairs, [bonus_of.get(p, 0.0) for p in pairs], [position[x] for x in written]


def standings_order(points):
    """Entrants from the top of the standings down: most points first, ties by entrant number."""
    return sorted(range(len(points)), key=lambda i: (-points[i], i))


def balanced_rounds(plays, keep):
    """Reference ``howell.balanced_rounds`` from plays[round][set]: greedy adding, then the first improving swap
    found scanning chosen rounds, then unchosen ones, one pair of rounds at a time."""
    n_sets = len(plays[0])
    count = [0] * n_sets
    chosen, free = [], list(range(len(plays)))
    for _ in range(keep):
        best = min(free, key=lambda k: (sum((c + p) ** 2 for c, p in zip(count, plays[k])), k))
        chosen.append(best)
        free.remove(best)
        count = [c + p for c, p in zip(count, plays[best])]

    def cost(c):
        return max(c) - min(c), sum(x * x for x in c)

    improved = True
    while improved:
        improved = False
        for i, k in enumerate(chosen):
            for j, f in enumerate(free):
                trial = [c - a + b for c, a, b in zip(count, plays[k], plays[f])]
                if cost(trial) < cost(count):
                    count, chosen[i], free[j] = trial, f, k
                    improved = True
                    break
            if improved:
                break
    return sorted(chosen)
