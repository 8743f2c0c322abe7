"""Artificial (adjusted) scores as club scorers apply them.

A director who cannot get a result at a table assigns an artificial score,
written ``A6040`` (NS 60 %, EW 40 %), ``A5050`` (average each), ``A6060``,
``A4040`` and so on.  The other tables' results on that board are scored
among themselves and factored up to the full top (Neuberg, see
``simcore.scoring.board_matchpoints``); the two pairs given the artificial
score get a percentage of the top fixed by a rule:

* ``ebu`` (default; EBU White Book, Law 12C2 as the EBU applies it):
  average-plus is 60 % or the pair's percentage on the boards it played if
  that is higher; average-minus is 40 % or that percentage if it is lower;
  average is 50 %; any other assigned figure (``A7030``) stands as written.
* ``flat``: the assigned figures as written (60 / 50 / 40), whatever the
  pair's session.

A pair's session percentage is then its match points over the tops it could
have scored: the mean of its board percentages, artificial boards included.

In IMP scoring (Butler, cross-IMPs) average-plus is worth +3 IMPs and
average-minus -3 (the EBU's convention), i.e. 0.3 IMPs per percent from 50.
"""

from __future__ import annotations

import numpy as np

ARTIFICIAL_RULES = ("ebu", "flat")
IMPS_PER_PERCENT = 0.3


def check_rule(rule: str) -> str:
    if rule not in ARTIFICIAL_RULES:
        raise ValueError(f"artificial-score rule {rule!r} is not one of {', '.join(ARTIFICIAL_RULES)}")
    return rule


def assigned_percent(assigned, played_percent, rule: str = "ebu") -> np.ndarray:
    """The MP % a pair scores on a board with an artificial score.

    assigned: the figure written (e.g. 60 for average-plus); played_percent:
    the pair's MP % on the boards it played in the session (NaN if none);
    rule: one of ``ARTIFICIAL_RULES``.
    """
    check_rule(rule)
    a = np.asarray(assigned, np.float64)
    p = np.asarray(played_percent, np.float64)
    if rule == "flat":
        return a.copy()
    known = np.isfinite(p)
    out = a.copy()
    plus = (a == 60.0) & known
    minus = (a == 40.0) & known
    out[plus] = np.maximum(60.0, p[plus])
    out[minus] = np.minimum(40.0, p[minus])
    return out


def session_percent(played_percent, played_boards, assigned_list, rule: str = "ebu") -> float:
    """A pair's session MP %: its played boards' mean MP % combined with its artificial boards.

    played_percent: MP % over the ``played_boards`` boards it played (any
    value when 0 boards); assigned_list: the figures of its artificial boards.
    """
    if not len(assigned_list):
        return float(played_percent)
    p = float(played_percent) if played_boards > 0 else np.nan
    art = assigned_percent(np.array(assigned_list, np.float64), np.full(len(assigned_list), p), rule)
    total = (p * played_boards if played_boards > 0 else 0.0) + float(art.sum())
    return total / (played_boards + len(assigned_list))


def session_imps(played_imps, assigned_list, rule: str = "ebu") -> float:
    """Net IMPs of a pair in an IMP-scored session with artificial boards (±3 IMPs for ± average)."""
    check_rule(rule)
    return float(played_imps) + IMPS_PER_PERCENT * float(np.sum(np.asarray(assigned_list, np.float64) - 50.0))
