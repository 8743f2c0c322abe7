"""Reference weekly planning (simcore.world.plan._plan_weeks, one week of it, and its steps), in plain Python.

The same algorithm and the same random streams as the kernel, written out
with lists and dicts; compared with the kernel on small worlds.
"""

import math
from statistics import NormalDist

from .rng import SplitMix64


def _stream(key, a, b):
    return SplitMix64(int(key), a, b)


def _poisson(st, mean):
    limit, k, prod = math.exp(-mean), 0, st.uniform()
    while prod > limit:
        k += 1
        prod *= st.uniform()
    return k


def _below(st, n):
    return int(st.uniform() * n)


def _choose_slot(st, p, w, slots, mixing, travel_rate, second_weight):
    if w.online[p]:
        lo, hi = slots["online_first"], slots["online_stop"]
        return -1 if hi <= lo else lo + _below(st, hi - lo)
    first, stop = slots["club_slot_first"], slots["club_slot_stop"]
    h, C = int(w.home_club[p]), w.n_clubs
    if mixing and not w.club_isolated[h] and C > 1 and st.uniform() < travel_rate:
        c = _below(st, C - 1)
        c += c >= h
        if not w.club_isolated[c] and stop[c] > first[c]:
            return first[c] + _below(st, stop[c] - first[c])
    n_home = stop[h] - first[h]
    s2 = int(w.second_club[p])
    n_second = stop[s2] - first[s2] if (mixing and s2 >= 0) else 0
    total = n_home + second_weight * n_second
    if total <= 0:
        return -1
    x = st.uniform() * total
    if x < n_home:
        return first[h] + min(int(x), n_home - 1)
    return first[s2] + min(int((x - n_home) / second_weight), n_second - 1)


def plan_week(w, week, slots, active, strength, ev_logit, params):
    """[(slot, a, b, ptype, bonus, team)] for one week, in the kernel's output order."""
    key, P = w.key, w.n_players
    mixing, travel, w2 = slots["mixing"], params["travel_rate"], params["second_weight"]
    recs, n_play = [], [0] * P
    for p in range(P):
        if not active[p] or w.activity[p] <= 0:
            continue
        st = _stream(key, week * 4, p)
        n = min(_poisson(st, max(0.0, w.activity[p] - w.joint1[p] - w.joint2[p])), params["cap"])
        if mixing and not w.online[p] and not w.club_isolated[w.home_club[p]]:
            for q in range(len(slots["ev_first"])):
                if slots["ev_stop"][q] <= slots["ev_first"][q]:
                    continue
                z = ev_logit[q] + w.ev_entry_strength[q] * (strength[p] - 50.0)
                if st.uniform() < 1.0 / (1.0 + math.exp(-z)):
                    recs.append((slots["ev_first"][q] + w.home_club[p] % max(w.ev_count[q], 1), p, -1, 0, 0.0))
                    n = max(0, n - 1)
        n_play[p] = n
    for p in range(P):
        if not active[p]:
            continue
        for link in (0, 1):
            q = w.partner[p] if link == 0 else w.partner2[p]
            if q < 0 or q < p or not active[q]:
                continue
            st = _stream(key, week * 4 + 1, p * 2 + link)
            j = min(_poisson(st, w.joint1[p] if link == 0 else w.joint2[p]), params["cap"])
            for _ in range(j):
                slot = _choose_slot(st, p, w, slots, mixing, travel, w2)
                if slot >= 0:
                    recs.append((slot, p, q, w.ptype[p] if link == 0 else 2,
                                 w.bonus[p] if link == 0 else w.bonus2[p]))
    for p in range(P):
        if n_play[p] <= 0:
            continue
        st = _stream(key, week * 4 + 2, p)
        for _ in range(n_play[p]):
            slot = _choose_slot(st, p, w, slots, mixing, travel, w2)
            if slot >= 0:
                recs.append((slot, p, -1, 0, 0.0))
    out = []
    for s in range(len(slots["day"])):
        mine = [r for r in recs if r[0] == s]
        if not mine:
            continue
        st = _stream(key, week * 4 + 3, s)
        seated, entries, singles = set(), [], []
        for _, a, b, typ, bon in mine:
            if a in seated or (b >= 0 and b in seated):
                continue
            seated.add(a)
            if b >= 0:
                seated.add(b)
                entries.append([min(a, b), max(a, b), typ, bon])
            else:
                singles.append(a)
        for i in range(len(singles) - 1, 0, -1):
            j = _below(st, i + 1)
            singles[i], singles[j] = singles[j], singles[i]
        if slots["is_online"][s]:
            entries += [[a, -1, 4, 0.0] for a in singles]
        else:
            n_paired = len(singles) - len(singles) % 2
            rho = params.get("pickup_corr", 0.0)
            if rho > 0 and n_paired > 2:
                head = singles[:n_paired]
                xs = [float(strength[p]) for p in head]
                mean = sum(xs) / n_paired
                sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / n_paired)
                sort_key = [math.sqrt(rho) * ((x - mean) / sd if sd > 0 else 0.0)
                            + math.sqrt(1 - rho) * NormalDist().inv_cdf(st.uniform()) for x in xs]
                singles[:n_paired] = [p for _, p in sorted(zip(sort_key, head))]
            for i in range(0, len(singles) - 1, 2):
                a, b = singles[i], singles[i + 1]
                entries.append([min(a, b), max(a, b), 0, 0.0])
            c = slots["club"][s]
            if len(singles) % 2 and params["guest"] and c >= 0 and w.guest_stop[c] > w.guest_first[c]:
                g = int(w.guest_first[c] + _below(st, w.guest_stop[c] - w.guest_first[c]))
                a = singles[-1]
                entries.append([min(a, g), max(a, g), 3, 0.0])
        if len(entries) < slots["min_pairs"][s]:
            continue
        for i in range(len(entries) - 1, 0, -1):
            j = _below(st, i + 1)
            entries[i], entries[j] = entries[j], entries[i]
        keep = min(len(entries), slots["max_pairs"][s])
        if slots["is_team"][s]:
            keep -= keep % 2
        for i, (a, b, typ, bon) in enumerate(entries[:keep]):
            out.append((s, a, b, typ, bon, i // 2 if slots["is_team"][s] else -1))
    return out


def strength_on(w, day):
    """Reference ``world.strength_on``: each player's true strength on ``day``, one player at a time."""
    out = []
    for p in range(len(w.base_strength)):
        since_join = max(0, day - max(int(w.join_day[p]), w.start_day))
        x = since_join / float(w.learner_days[p]) if w.learner_days[p] != 0 else (
            math.nan if since_join == 0 else math.inf)
        learn = float(w.learner_gain[p]) * (x if math.isnan(x) or x < 1.0 else 1.0)
        step = float(w.step_size[p]) if day >= w.step_day[p] else 0.0
        out.append(float(w.base_strength[p]) + learn + step - float(w.decline_per_day[p]) * max(0, day - w.start_day))
    return out


def active_on(w, day):
    """Reference ``world.active_on``: joined, not left (or back again), and a member or online player."""
    return [bool(w.join_day[p] <= day and (day < w.leave_day[p] or day >= w.return_day[p])
                 and (w.member[p] or w.online[p])) for p in range(len(w.join_day))]
