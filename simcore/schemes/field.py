"""Strength of opponents (SOpp): one definition for every scheme (SPEC §1.2, seed 001).

``strength_of_opponents`` gives each pair entry of a session the mean
current grade of the players it is measured against, from any per-player
grade array (grade points):

* one-winner sessions (Howell, arrow-switched Mitchell, the online room):
  all the other pairs' players;
* two-winner sessions and multiple teams: the other pairs of its own group
  (its direction) — its competitors, not the pairs it met;
* Swiss pairs and Swiss teams (SOpp rule ``SOPP_MATCHES`` in
  ``movements.registry``): per match the two
  opponents at its table, and over the event the plain mean of its matches
  (matches are of equal length in practice; the seed says "the average
  current grade of your opponents in each of your matches").

The groups and matches are those ``scoring.score_results`` derived from the
travellers, so every scheme ranks a pair against the same field.
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel
from simcore.movements.registry import SOPP_MATCHES, kind_flags
from simcore.results import SCORING_AGGREGATE, SCORING_BUTLER, SCORING_MP

# by kind code: SOpp taken match by match (the registry's SOpp rule; numba reads it as a constant)
_SOPP_BY_MATCHES = np.array(kind_flags(lambda m: m.sopp == SOPP_MATCHES), np.bool_)


@kernel(refcount=False, helper=True)
def strength_of_opponents(s, kind, pair_start, pair_players, pair_group, match_start, match_opp, grade, out):
    """SOpp (grade points) of every pair entry of session ``s``, written to ``out[e]``.

    NaN where a pair has nobody to be measured against.
    """
    e0, e1 = pair_start[s], pair_start[s + 1]
    if _SOPP_BY_MATCHES[kind[s]]:
        for e in range(e0, e1):
            total = 0.0
            n = 0
            for m in range(match_start[e], match_start[e + 1]):
                o = match_opp[m]
                total += 0.5 * (grade[pair_players[o, 0]] + grade[pair_players[o, 1]])
                n += 1
            out[e] = total / n if n > 0 else np.nan
        return
    for e in range(e0, e1):
        total = 0.0
        n = 0
        for f in range(e0, e1):
            if f != e and pair_group[f] == pair_group[e]:
                total += grade[pair_players[f, 0]] + grade[pair_players[f, 1]]
                n += 2
        out[e] = total / n if n > 0 else np.nan


@kernel(refcount=False)
def standard_score(scoring, score, boards, butler_factor, cross_imp_factor, aggregate_factor):
    """A pair's session performance in grade units (MP % above 50), NGS's conversions (SPEC §1.2).

    match points p − 50; Butler ``butler_factor``·i/x; aggregate
    (g − μ)/(``aggregate_factor``·x); cross-IMPs and team events
    ``cross_imp_factor``·i/x, with x the boards the pair played (at least 1).
    Every scheme that grades in grade units (NGS, kalman, offline) converts here.
    """
    x = max(boards, 1)
    if scoring == SCORING_MP:
        return score - 50.0
    if scoring == SCORING_BUTLER:
        return butler_factor * score / x
    if scoring == SCORING_AGGREGATE:
        return score / (aggregate_factor * x)
    return cross_imp_factor * score / x  # cross-IMPs, and team events graded as cross-IMPed pairs


@kernel(refcount=False)
def standard_scores(scoring, score, boards, butler_factor, cross_imp_factor, aggregate_factor, out):
    """``standard_score`` of many pair entries at once: ``out[i]`` for scoring code, score and boards ``[i]``."""
    for i in range(out.shape[0]):
        out[i] = standard_score(scoring[i], score[i], boards[i], butler_factor, cross_imp_factor, aggregate_factor)
