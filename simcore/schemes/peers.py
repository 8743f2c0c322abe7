"""General rating systems as schemes, for benchmarking (issue 17): ``openskill``, ``trueskill``, ``ttt``, ``whr``.

They need the optional extra ``simcore[peers]`` (``pip install 'simcore[peers]'``):
``openskill`` (Plackett-Luce), ``trueskill``, ``trueskillthroughtime`` (TTT)
and ``whr``.  Asking for one without its package installed raises a
``ValueError`` naming the extra and the package, before any work starts.

Every session (the online room aside, as NGS) is a ranked match of pairs,
each pair a team of its two players, ranked by session score within each
competition group (the direction of a two-winner session; the whole field
of a one-winner or Swiss event) — the libraries know nothing of boards,
scoring methods or event weights:

* ``openskill``, ``trueskill``: online updates, one ``rate`` call a group;
* ``ttt``: TrueSkill Through Time, whole-history; at each snapshot the
  History of every match so far is rebuilt and converged (pure Python:
  small runs only), ties broken by entry order (``p_draw`` = 0);
* ``whr``: whole-history rating, which rates players in two-player games
  only: a ranked group becomes games between pairs adjacent in the
  ranking, entered seat by seat (each player of the better pair beats the
  opposite-seat player of the worse one; a tie is a draw); re-iterated at
  each snapshot.

A library's rating r (its mean μ) is mapped to grade points by a linear
map ``grade = offset + scale · (r − r₀)`` (r₀ the library's initial mean)
fitted by least squares of true strength on rating over the graded players
of a training run (``default``, seed 1: 2 years for openskill and
trueskill, half a year for the slow whole-history ttt and whr;
``peers.fit_map``); the defaults below are that fit.

Corrected sessions: the libraries have no way to withdraw a match, so the first
publication stands and a correction (``ScoredResults.replaces``) is ignored
(``corrections = "first"``): no session is rated twice.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

import numpy as np

from simcore.results import KIND_ONLINE, MATCH_KINDS
from simcore.schemes import PlayerTable, SchemeBase

EXTRA = "simcore[peers]"


def _p(default, help, **meta):  # noqa: A002
    return field(default=default, metadata={"help": help, **meta})


def require(package: str, scheme: str):
    """Import ``package`` or raise a ValueError naming the extra that provides it."""
    try:
        return importlib.import_module(package)
    except ImportError:
        raise ValueError(f"scheme {scheme!r} needs the optional extra {EXTRA} (package {package!r} is not "
                         f"installed): pip install '{EXTRA}'") from None


# --- ranked groups from scored results -------------------------------------------------

def ranked_groups(scored, with_entries: bool = False):
    """[(day, [(player a, player b), ...] best first, [rank, ...])] in processing order.

    rank: 0 for the best pair, ties share the better rank.  ``with_entries``:
    each tuple also carries the pair entries, in the same order.
    """
    sc = scored
    out = []
    for s in np.asarray(sc.order):
        s = int(s)
        if sc.kind[s] == KIND_ONLINE:
            continue
        e0, e1 = int(sc.pair_start[s]), int(sc.pair_start[s + 1])
        groups = np.zeros(e1 - e0, np.int64) if sc.kind[s] in MATCH_KINDS else np.asarray(sc.pair_group[e0:e1])
        for g in np.unique(groups):
            idx = e0 + np.flatnonzero(groups == g)
            if len(idx) < 2:
                continue
            score = np.asarray(sc.pair_score, np.float64)[idx]
            order = np.argsort(-score, kind="stable")
            idx, score = idx[order], score[order]
            rank = np.searchsorted(-score, -score, side="left")
            teams = [(int(sc.pair_players[e, 0]), int(sc.pair_players[e, 1])) for e in idx]
            out.append((int(sc.day[s]), teams, rank.tolist()) + ((idx,) if with_entries else ()))
    return out


# --- the schemes ------------------------------------------------------------------------

@dataclass
class PeerState:
    member: np.ndarray
    ratings: dict = field(default_factory=dict)   # player -> library rating (online peers)
    matches: list = field(default_factory=list)   # (day, teams, ranks) (whole-history peers)
    cache: dict = field(default_factory=dict)
    updates: int = 0                               # player-sessions rated

    @property
    def n_players(self) -> int:
        return len(self.member)


class _Peer(SchemeBase):
    """Common plumbing: the Scheme protocol around a library; subclasses rate groups."""
    corrections = "first"

    default_variants = ()  # comparisons only, and they need the optional extra simcore[peers]
    package = ""
    mu0 = 0.0
    online = True  # rated session by session (False: whole-history, re-solved at each snapshot)

    def __init__(self, params):
        self.params = params
        self.lib = require(self.package, self.name)

    def new_state(self, players: PlayerTable, n_partnerships: int = 0) -> PeerState:
        return PeerState(member=np.asarray(players.member, bool).copy())

    def grow(self, state: PeerState, n_partnerships: int) -> PeerState:
        return state

    def to_grade(self, mu):
        return self.params.offset + self.params.scale * (np.asarray(mu, np.float64) - self.mu0)

    def apply(self, state: PeerState, scored, out_after: np.ndarray) -> None:
        """Rate every group of ``scored``; ``out_after``: each player's mapped rating (grade points) right
        after his group was rated (online peers) or, for the whole-history ttt and whr, from every match of
        this call."""
        if out_after is not None:
            out_after[:] = np.nan
        groups = ranked_groups(scored, with_entries=True)
        state.updates += sum(2 * len(g[1]) for g in groups)
        if self.online:
            for g in groups:
                self._rate(state, [g[:3]])
                if out_after is not None:
                    for e, (a, b) in zip(g[3], g[1]):
                        out_after[e] = self.to_grade([self._mean(state, a), self._mean(state, b)])
            return
        self._rate(state, [g[:3] for g in groups])
        if out_after is not None:
            now = self.grades(state, int(np.max(scored.day)) if scored.n_sessions else 0, members_only=False)
            for g in groups:
                for e, (a, b) in zip(g[3], g[1]):
                    out_after[e] = (now[a], now[b])

    def _mean(self, state, p):
        return state.ratings[p].mu

    def grades(self, state: PeerState, day: int, members_only: bool = True) -> np.ndarray:
        out = np.full(state.n_players, np.nan)
        for p, mu in self._means(state).items():
            out[p] = mu
        out = self.to_grade(out)
        if members_only:
            out[~state.member] = np.nan
        return out

    def extras(self, state: PeerState, day: int) -> dict:
        return {}


@dataclass(frozen=True)
class OpenSkillParams:
    """openskill Plackett-Luce: library defaults (μ 25, σ 25/3); the map to grade points."""

    scale: float = _p(0.3601, "grade points per openskill μ point (fitted: default, seed 1, 2 years)")
    offset: float = _p(49.015, "grade of a player at the initial μ (fitted)")


class OpenSkill(_Peer):
    package, mu0 = "openskill", 25.0

    def __init__(self, params=None):
        super().__init__(params or OpenSkillParams())
        self.model = importlib.import_module("openskill.models").PlackettLuce()

    def _rate(self, state, groups):
        r = state.ratings
        for _, teams, ranks in groups:
            match = [[r.get(a) or self.model.rating(), r.get(b) or self.model.rating()] for a, b in teams]
            new = self.model.rate(match, ranks=ranks)
            for (a, b), (ra, rb) in zip(teams, new):
                r[a], r[b] = ra, rb

    def _means(self, state):
        return {p: x.mu for p, x in state.ratings.items()}


@dataclass(frozen=True)
class TrueSkillParams:
    """trueskill: library defaults (μ 25, σ 25/3, β 25/6, τ 25/300), draw probability; the map."""

    draw_probability: float = _p(0.02, "probability of a tie between two pairs", min=0.0, max=0.5)
    scale: float = _p(1.7441, "grade points per trueskill μ point (fitted: default, seed 1, 2 years)")
    offset: float = _p(49.552, "grade of a player at the initial μ (fitted)")


class TrueSkill(_Peer):
    package, mu0 = "trueskill", 25.0

    def __init__(self, params=None):
        super().__init__(params or TrueSkillParams())
        self.env = self.lib.TrueSkill(draw_probability=self.params.draw_probability)

    def _rate(self, state, groups):
        r = state.ratings
        for _, teams, ranks in groups:
            match = [(r.get(a) or self.env.create_rating(), r.get(b) or self.env.create_rating()) for a, b in teams]
            new = self.env.rate(match, ranks=ranks)
            for (a, b), (ra, rb) in zip(teams, new):
                r[a], r[b] = ra, rb

    def _means(self, state):
        return {p: x.mu for p, x in state.ratings.items()}


@dataclass(frozen=True)
class TTTParams:
    """TrueSkill Through Time: prior σ, performance β, drift γ a day (library units), iterations; the map."""

    sigma: float = _p(6.0, "prior sd of a skill (library units)", min=1e-6)
    beta: float = _p(1.0, "sd of a performance (library units)", min=1e-6)
    gamma: float = _p(0.03, "skill drift a day (library units)", min=0.0)
    iterations: int = _p(10, "convergence sweeps at each snapshot", min=1)
    scale: float = _p(3.0, "grade points per TTT skill unit (fitted, default seed 1)")
    offset: float = _p(49.7, "grade of a player at skill 0 (fitted)")


class TTT(_Peer):
    package, mu0 = "trueskillthroughtime", 0.0
    online = False

    def __init__(self, params=None):
        super().__init__(params or TTTParams())

    def _rate(self, state, groups):
        state.matches.extend(groups)
        state.cache.clear()

    def _means(self, state):
        if "means" not in state.cache:
            p = self.params
            comp, results, times = [], [], []
            for day, teams, _ in state.matches:
                comp.append([[str(a), str(b)] for a, b in teams])
                results.append([float(len(teams) - i) for i in range(len(teams))])  # best first; ties by order
                times.append(day)
            means = {}
            if comp:
                h = self.lib.History(comp, results, times, mu=0.0, sigma=p.sigma, beta=p.beta, gamma=p.gamma)
                h.convergence(iterations=p.iterations, verbose=False)
                means = {int(k): v[-1][1].mu for k, v in h.learning_curves().items()}
            state.cache["means"] = means
        return state.cache["means"]


@dataclass(frozen=True)
class WHRParams:
    """whr: w² (Elo² a day), virtual games, iterations at each snapshot; the map."""

    w2: float = _p(14.0, "rating variance gained a day (Elo²)", min=0.0)
    iterations: int = _p(20, "Newton iterations at each snapshot", min=1)
    scale: float = _p(0.1631, "grade points per Elo point (fitted: default, seed 1, half a year)")
    offset: float = _p(49.731, "grade of a player at Elo 0 (fitted)")


class WHR(_Peer):
    package, mu0 = "whr", 0.0
    online = False

    def __init__(self, params=None):
        super().__init__(params or WHRParams())

    def new_state(self, players, n_partnerships=0):
        state = super().new_state(players, n_partnerships)
        state.cache["base"] = self.lib.Base(config={"w2": self.params.w2})
        return state

    def _rate(self, state, groups):
        base = state.cache["base"]
        for day, teams, ranks in groups:
            for i in range(len(teams) - 1):
                winner = "D" if ranks[i] == ranks[i + 1] else "B"
                for j in range(2):
                    base.create_game(str(teams[i][j]), str(teams[i + 1][j]), winner, int(day))
        state.cache.pop("means", None)

    def _means(self, state):
        if "means" not in state.cache:
            base = state.cache["base"]
            base.iterate(self.params.iterations)
            state.cache["means"] = {int(name): hist[-1][1] for name, hist in base.get_ordered_ratings()}
        return state.cache["means"]


def fit_map(name: str, scenario: str = "default", seed: int = 1, years: float = 2.0):
    """(scale, offset) of the least-squares line from a peer's raw rating to true strength (grade points)."""
    import simcore
    from simcore.metrics import graded_mask
    from simcore.schemes import scheme_module
    mu0 = scheme_module(name).SCHEME.mu0
    ds = simcore.run(scenario, schemes=f"{name}(scale=1,offset={mu0})", years=years, seed=seed)
    snap = ds.isel(time=-1)
    mask = graded_mask(snap).isel(scheme=0).values
    raw = snap["grade"].isel(scheme=0).values[mask] - mu0
    truth = snap["true_strength"].values[mask]
    scale, offset = np.polyfit(raw, truth, 1)
    return float(scale), float(offset)


if __name__ == "__main__":
    import sys
    for name in sys.argv[1:] or ["openskill", "trueskill"]:
        print(name, "scale=%.4f offset=%.3f" % fit_map(name))
