"""Scoring whole sessions: Results -> ScoredResults (MP, Butler, cross-IMPs, aggregate, team IMPs)."""
from simcore.scoring import PartnershipTable, score_results

from ._workload import quarter


class ScoreResults:
    """One quarter of the default county (~1 600 sessions of every scoring kind)."""

    def setup(self):
        _, _, chunk = quarter()
        self.results = chunk.results
        score_results(self.results, partnerships=PartnershipTable())  # compiled outside the timing

    def time_score_quarter(self):
        score_results(self.results, partnerships=PartnershipTable())
