"""Every scheme applying one quarter of real default-county results (pass B of the engine).

One class per scheme so ``asv`` reports them apart; each ``setup`` builds a
fresh state and compiles the kernels by applying once.
"""
import numpy as np

from simcore.schemes import CARD_PLAY, make_scheme, parse_variant

from ._workload import quarter


class _SchemeApply:
    variant = "ngs"

    def setup(self):
        self.engine, self.rep, self.chunk = quarter()
        name, overrides = parse_variant(self.variant)
        self.scheme = make_scheme(name, overrides)
        self.card = self.scheme.reads == CARD_PLAY
        self.time_apply_quarter()

    def time_apply_quarter(self):
        state = self.scheme.new_state(self.rep.players, 1024)
        if self.card:
            card = self.chunk.card
            self.scheme.apply(state, card, np.empty((len(card.player), len(self.scheme.out_columns))))
            return
        state = self.scheme.grow(state, max(self.chunk.n_partnerships, 1))
        out = None if self.scheme.optional_out_after else np.empty((self.chunk.scored.n_entries, 2))
        self.scheme.apply(state, self.chunk.scored, out)


class NGS(_SchemeApply):
    variant = "ngs"


class NGSExponential(_SchemeApply):
    variant = "ngs(decay=exponential,half_life=555)"


class PPI(_SchemeApply):
    variant = "ppi"


class EloPairs(_SchemeApply):
    variant = "elo-pairs"


class IMPsLost(_SchemeApply):
    variant = "imps-lost"
