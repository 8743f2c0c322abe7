"""Scoring: from bridge scores on travellers to match points, IMPs and ranks.

* ``board``     — per-board kernels: match points (with Neuberg), cross-IMPs,
  Butler IMPs against a (trimmed) datum, aggregate; every session-level
  method is built from them, so all scorings come from the same scores.
* ``session``   — ``score_results``: ``Results`` → ``ScoredResults`` (pair
  entries, session scores, groups and ranks, match rows for Swiss and team
  kinds) and the ``PartnershipTable`` of partnership ids.
* ``imp_scale`` — the IMP and VP scales.

This package re-exports the public API.
"""

from simcore.scoring.board import (board_aggregate, board_butler, board_cross_imps, board_matchpoints,  # noqa: F401
                                   butler_datum)
from simcore.scoring.imp_scale import imps  # noqa: F401
from simcore.scoring.session import ERR_DIRECTION, ERR_NONE, ERR_TEAM, PartnershipTable, score_results  # noqa: F401

__all__ = ["board_matchpoints", "board_cross_imps", "board_butler", "butler_datum", "board_aggregate",
           "score_results", "PartnershipTable"]
