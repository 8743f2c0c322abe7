"""Partnerships: who plays with whom by arrangement, and how often.

Within each club (and within the online room) the members present at the
start are shuffled and cut into triangles (NGS FAQ 15, FR 13: A plays with
B or C, B and C only with A), near-exclusive pairs and regular pairs; the
rest play pick-up.  Within each kind, partners' true strengths correlate by
the scenario's ``*_correlation`` (``assortative_pairs``); triangles are
formed at random.  ``joint`` then gives each partnership's sessions a week
together: the partner who wants fewer binds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore.scenario import Scenario
from simcore.world.model import NEAR_EXCLUSIVE, REGULAR
from simcore.world.population import People


class Links(NamedTuple):
    """Each player's regular partners (−1 none), the share of their sessions with each, the
    partnerships' true-performance bonuses (grade points) and the main partnership's type."""
    partner: np.ndarray
    partner2: np.ndarray
    rate: np.ndarray
    rate2: np.ndarray
    bonus: np.ndarray
    bonus2: np.ndarray
    ptype: np.ndarray


def form_partnerships(sc: Scenario, people: People, activity: np.ndarray, rng) -> Links:
    """Partnerships within each club and the online room; evens out ``activity`` in place
    (near-exclusive partners play as often as each other; triangle partners half as often as A)."""
    pt, on = sc.partnerships, sc.online
    P = len(people.home)
    C = len(people.club_first)
    partner = np.full(P, -1, np.int32)
    partner2 = np.full(P, -1, np.int32)
    rate = np.zeros(P)
    rate2 = np.zeros(P)
    bonus = np.zeros(P)
    bonus2 = np.zeros(P)
    ptype = np.zeros(P, np.int8)
    groups = [np.arange(people.club_first[c], people.guest_first[c]) for c in range(C)]
    if on.members:
        groups.append(np.arange(people.online_guest_first, P))
    for g, ids in enumerate(groups):
        ids = ids[people.at_start[ids] & people.member[ids]]
        ids = rng.permutation(ids)
        is_online = g >= C
        k = 0
        if not is_online:
            for _ in range(pt.triangles):
                if k + 3 > len(ids):
                    break
                a_, b_, c_ = ids[k:k + 3]
                k += 3
                partner[a_], rate[a_], partner2[a_], rate2[a_] = b_, 0.48, c_, 0.48
                partner[b_], rate[b_], partner[c_], rate[c_] = a_, 0.95, a_, 0.95
                activity[b_] = activity[c_] = activity[a_] / 2
                bonus[a_] = bonus[b_] = bonus2[a_] = bonus[c_] = pt.near_exclusive_bonus
                ptype[[a_, b_, c_]] = NEAR_EXCLUSIVE
        rest = ids[k:]
        n_ne = int(round(pt.near_exclusive_share * len(rest) / 2)) * 2
        n_reg = int(round(pt.regular_share * len(rest) / 2)) * 2
        z = _standardised(people.strength[ids], people.strength[rest])
        for lo, hi, r, bon, typ, rho in (
                (0, n_ne, pt.near_exclusive_rate, pt.near_exclusive_bonus, NEAR_EXCLUSIVE,
                 pt.near_exclusive_correlation),
                (n_ne, n_ne + n_reg, pt.regular_rate, pt.regular_bonus, REGULAR, pt.regular_correlation)):
            pairs = assortative_pairs(rest[lo:hi], z[lo:hi], rho, rng)
            if is_online:
                r = on.keep_partner
            a_, b_ = pairs[:, 0], pairs[:, 1]  # every player in one pair at most: all pairs at once
            partner[a_], partner[b_] = b_, a_
            rate[a_] = rate[b_] = r
            bonus[a_] = bonus[b_] = bon
            ptype[a_] = ptype[b_] = typ
            if typ == NEAR_EXCLUSIVE:
                activity[a_] = activity[b_] = 0.5 * (activity[a_] + activity[b_])
    return Links(partner, partner2, rate, rate2, bonus, bonus2, ptype)


def _standardised(group: np.ndarray, x: np.ndarray) -> np.ndarray:
    sd = group.std() if len(group) > 1 else 0.0
    return (x - group.mean()) / sd if sd > 0 else np.zeros(len(x))


def assortative_pairs(ids: np.ndarray, z: np.ndarray, rho: float, rng) -> np.ndarray:
    """Cut players ``ids`` (in random order, standardised strengths ``z``) into pairs whose
    strengths correlate by about ``rho``.

    Each player gets a sorting key sqrt(rho)·z + sqrt(1 − rho)·noise and
    neighbours in key order pair up: two players with the same key have
    strengths correlated by exactly rho (the key explains rho of each one's
    variance), so in a large group the partners' correlation is rho.  With
    rho = 0 the random order is kept and no number is drawn.
    """
    if rho > 0 and len(ids) > 2:
        key = np.sqrt(rho) * z + np.sqrt(1 - rho) * rng.normal(0.0, 1.0, len(ids))
        ids = ids[np.argsort(key, kind="stable")]
    return ids.reshape(-1, 2)


def joint_rates(links: Links, activity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sessions a week each player plays with partner and partner2: the partner who wants fewer binds."""
    partner, partner2, rate, rate2 = links.partner, links.partner2, links.rate, links.rate2
    P = len(partner)

    def joint(p_of, r_of, other_rate):
        j = np.zeros(P)
        has = p_of >= 0
        q = p_of[has]
        j[has] = np.minimum(r_of[has] * activity[has], other_rate[has] * activity[q])
        return j
    rate_back1 = np.where(partner[np.maximum(partner, 0)] == np.arange(P), rate[np.maximum(partner, 0)],
                          rate2[np.maximum(partner, 0)])
    rate_back2 = np.where(partner[np.maximum(partner2, 0)] == np.arange(P), rate[np.maximum(partner2, 0)],
                          rate2[np.maximum(partner2, 0)])
    return joint(partner, rate, rate_back1), joint(partner2, rate2, rate_back2)
