"""The bridge score model: a simulated board played at a table yields a real bridge score.

Units: strengths in grade points (50 = national average; a pair's true
strength is the MP % it would average against an average field, SPEC §2),
scores in bridge points (NS view, integers), IMPs, boards.

In one paragraph
----------------
A board is a *deal* from a pool of pre-built deals.  A deal is a short list
of contract options that real tables reach on such a hand -- the normal
contract of the side it favours ("side A"), a partscore stop, the other
strain, one level too high, the other side competing or sacrificing,
doubles of failing contracts -- each with a weight and a double-dummy (DD)
trick count; play noise spreads each option over DD-2..DD+1 tricks.  Scored
with duplicate scoring at the board's vulnerability, these outcomes are the
board's *ladder*: side A's distinct scores in ascending order with their
probabilities p_0..p_{K-1} at an average table (equal outcomes merged).  Each
table then draws one latent value

    q = sigma(field) * (alpha * (s_A - s_B) + eps),    eps ~ N(0, 1),

(s_A, s_B the strengths of the pairs sitting in side A's and side B's seats)
and takes rung k where c_{k-1} < q <= c_k, with cut points
c_k = Phi^-1(p_0 + ... + p_k): an ordered probit.  So an average table
reproduces the ladder, a stronger side A climbs it, and every table that
plays the board shares the same few outcomes: ties, flat boards, partscore,
game and slam swings and the occasional disaster (a doubled contract several
down) arise as in real duplicate.

Contracts and scoring
---------------------
``bridge_score(level, strain, doubled, vulnerable, tricks)`` is the standard
duplicate score of the declaring side (trick values 20/30/30+10, partscore
50, game 300/500, small slam 500/750, grand 1000/1500, overtricks doubled
100/200 and redoubled 200/400, the insult 50/100, undertricks 50/100
undoubled and 100, 300, 500, 800, +300 (NV) or 200, 500, 800, +300 (V)
doubled, twice that redoubled).  ``board_vulnerability(board)`` follows the
standard 16-board cycle; the dealer plays no part.

Deals (``_make_deal``)
----------------------
A deal is one of four kinds, drawn with probabilities p_flat, p_partscore,
p_game, p_slam:

* FLAT -- one contract (a game, or a partscore two levels lower) with weight
  20 and a stop one level lower with weight 1; a fifth of the usual play
  noise.  These give the boards on which every table scores the same.
* PARTSCORE -- side A's partscore (C 14 %, D 14 %, H 24 %, S 26 %, NT 22 %;
  suits at the 1/2/3 level 15/55/30 %, notrump 1NT 70 %, 2NT 30 %) with DD
  tricks from one short to two over (20/35/30/15 %); notrump instead of the
  suit (or a major instead of notrump); one level higher, and that doubled
  when it fails; passed out (some 1-level deals); and on p_compete of the
  deals side B's competing 2- or 3-level contract (DD two short to one over,
  20/45/30/5 %), and that doubled when it fails.
* GAME -- side A's game (4H 25 %, 4S 30 %, 3NT 30 %, 5C 7 %, 5D 8 %), DD
  tricks two short to two over (5/25/40/22/8 %); a partscore stop; the other
  game (3NT for a suit game, a major for 3NT) with one trick more or less;
  one level too high; the game doubled when it fails; and on p_sacrifice of
  the deals side B's doubled sacrifice 1-4 down (30/40/25/5 %), whose weight
  is doubled at favourable and cut to 0.3 at unfavourable vulnerability.
* SLAM -- side A's small slam or (15 %) grand slam (C 10, D 10, H 25, S 30,
  NT 25 %), DD tricks one short to one over (25/55/20 %); stopping in game;
  a grand one too many (or the small slam when the grand is on); the slam in
  the other strain.

Each option's weight is its base (the normal contract: ``consensus``, 0.6 x
that for slams; a doubled failing contract: ``double_weight``; a contract one
too high in a game deal 0.25; a grand 0.2; most others 1) times a lognormal
factor exp(bidding_dispersion * z), drawn per deal and option: some deals
pose bidding problems that split the field, others do not.  Play noise:
declarer takes DD-2, DD-1, DD+1 tricks with probabilities play_minus2 * f,
play_minus * f, play_plus * f (f = exp(play_dispersion * z) per deal), DD
tricks otherwise.

The ladder (``_ladder``) scores every option x trick outcome at the
vulnerability, merges equal scores and sorts them; a board has at most
MAX_RUNGS = 16 rungs: beyond that the least likely rung joins the neighbour
with the closer score, repeatedly (7 % of boards, moving 0.2 % of
probability on average; a median board has 12 rungs).

The deal pool and boards
------------------------
``build_pool(params, key)`` builds ``pool_size`` deals once per run (about
1 us a deal).  Each deal is stored four times, once per vulnerability of
side A and side B, as ladder scores and cut points (+inf padded to 16).  A
board of a session is ``deal_board(n_deals, vul, state)``: a random deal and
a random orientation (side A sits NS or EW, so NS and EW are symmetric), at
the vulnerability of its board number.  Its int32 *board code* is all the
tables need; they share it.

Tables
------
``draw_ns_score(scores, thresholds, code, s_ns, s_ew, alpha, sigma, state)``
draws one table's NS score with one uniform: eps by table interpolation of
the normal quantile, the rung by a four-step binary search.

alpha (latent units per grade point) makes a strength gap count: it is
tuned so that a pair 1 grade point above an otherwise equal field gains
1 MP % (d E[MP %] / d gap = 1 at gap 0), which is what a grade point means.
The probit saturates, so the expected score tails off for large gaps
(FR15): 50 + gap holds within 0.1 up to +-8 and the gain falls below the
gap beyond (about 65.6 at +16 and 72.5 at +24, symmetric below 50).

sigma = field_sigma(field) = max(sigma_floor, 1 - sigma_slope * (field - 50)),
where ``field`` is the mean strength of the session's players.  Stronger
fields are less noisy: the latent is pulled towards the board's central
rungs, more tables score alike and boards are flatter (FR18: sessions
averaging over 57 have F about 4 % lower; 1 - 0.024 * 9 gives 0.962 at 59).
The noise scale belongs to the field, not the table, and multiplies the
strength term too, because the other choices break linearity: with sigma
per table a pair 8 points above its field sits at a quieter table than the
pairs it is compared with, which makes E[MP %] asymmetric (57.5 at +8 but
41.7 at -8, and no tail-off below 50); with the strength term outside sigma
a grade point is worth 1/sigma MP % -- 1.25 in a field of 59.  Scaled as
here, E[MP %] = 50 + pair - field within 0.3 up to +-8 in fields from 44
to 59 (slope at gap 0: 1.015 in a field of 44, 1.00 at 50, 0.97 at 59).
Callers pass sigma; one value serves a whole session.

Card play for the IMPs-lost rating (seed 003)
---------------------------------------------
The IMPs-lost rating reads card-play records, not scores: IMPs lost against
double-dummy play per board on which a player was declarer or defender
(rating = 3400 - 1000 x that).  ``draw_imps_lost(strength, boards, ...)``
makes one record: the player is dummy on Binomial(boards, dummy_share)
boards (dummy loses nothing); on the others he makes Poisson(played x
lambda / 5.33) mistakes, each costing MISTAKE_IMPS with MISTAKE_PROBS (an
overtrick 1 IMP 30 %, partscores 2-9, games 10-12, doubled games and slams
13-17; mean 5.33).  So most boards cost nothing and the expected loss per
played board is exactly

    lambda(t) = max(imps_lost_floor, imps_lost_base + imps_lost_slope * (50 - t)),

by default 1.2 at t = 50 (rating 2200, the scheme's initial rating),
rating = 2200 + 50 (t - 50), and the floor 0.55 (rating 2850) for the
randomness nobody avoids (the seed: 0.5-0.6 IMPs a board).  It is
independent of the score model.  The simulator (``simcore.simulate.play``)
records declarer play only: one declarer per table-board, ``draw_imps_lost``
over that one board with no dummy draw, at the declarer's card-play trait
(``world.card_play``, correlated with true strength by
``players.card_play_correlation``); ``dummy_share`` serves
``simulate_imps_lost``.

Parameters (``BridgeModelParams``, defaults in brackets)
--------------------------------------------------------
deal mix: p_flat [0.01], p_partscore [0.475], p_game [0.40], p_slam [0.115]
    (they must sum to 1);
bidding: consensus [0.7], bidding_dispersion [1.1], p_compete [0.6],
    p_sacrifice [0.4], double_weight [0.5];
play: play_minus [0.24], play_minus2 [0.03], play_plus [0.24],
    play_dispersion [0.3] (play_minus + play_minus2 + play_plus <= 0.9);
tables: alpha [0.0377 latent units per grade point], sigma_slope [0.024 per
    grade point], sigma_floor [0.5];
pool: pool_size [8192 deals];
card play: imps_lost_base [1.2 IMPs/board], imps_lost_slope [0.05 IMPs/board
    per grade point], imps_lost_floor [0.55 IMPs/board], dummy_share [0.25].
Each field's metadata holds its help text and bounds; a bad value raises a
ValueError naming the field and the value.  The defaults were tuned with
``simcore calibrate`` (seeds 101, 202, 303 and others; never the seeds the
tests use) to the EBU variability study (seed 001, FR18): see
``simcore.bridge.calibration`` for the figures and how each is measured.

Speed (``python -m simcore.bench.bridge_model``; one core here): a table draw
about 10 ns per table-board, ``deal_board`` about 4 ns plus one cache miss
per board, the pool about 1.5 us per deal (0.8 us of it the kernel, the rest
the first touch of the new arrays), a card-play record about 130 ns per
player-session.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, fields

import numpy as np

from simcore import rng
from simcore._jit import helper, kernel
from simcore._memory import huge_page_empty
from simcore.rng import _P_LOW as _NQ_LOW
from simcore.rng import normal_quantile, normal_quantile_central, seed_stream, uniform

# --- contracts and duplicate scoring ---------------------------------------

CLUBS, DIAMONDS, HEARTS, SPADES, NOTRUMP = range(5)
STRAINS = ("C", "D", "H", "S", "NT")
UNDOUBLED, DOUBLED, REDOUBLED = 0, 1, 2

VUL_NONE, VUL_NS, VUL_EW, VUL_BOTH = range(4)
VULNERABILITIES = ("None", "NS", "EW", "All")


@kernel
def _score(level, strain, doubled, vulnerable, tricks):
    """Declarer side's duplicate score (bridge points); level 0 = passed out."""
    if level == 0:
        return 0
    need = level + 6
    mult = 1 << doubled                       # 1, 2, 4
    if tricks >= need:
        if strain >= HEARTS:
            per = 30
        else:
            per = 20
        contract = per * level
        if strain == NOTRUMP:
            contract += 10
        contract *= mult
        score = contract
        if contract >= 100:
            score += 500 if vulnerable else 300
        else:
            score += 50
        if level == 6:
            score += 750 if vulnerable else 500
        elif level == 7:
            score += 1500 if vulnerable else 1000
        over = tricks - need
        if doubled == 0:
            score += over * per
        else:
            score += over * (100 if not vulnerable else 200) * (mult // 2)
            score += 50 * (mult // 2)          # the insult: 50 doubled, 100 redoubled
        return score
    down = need - tricks
    if doubled == 0:
        return -down * (100 if vulnerable else 50)
    if vulnerable:
        pen = 200 + 300 * (down - 1)
    else:
        pen = 100
        if down >= 2:
            pen += 200 * min(down - 1, 2)
        if down >= 4:
            pen += 300 * (down - 3)
    return -pen * (mult // 2)


def bridge_score(level: int, strain: int | str, doubled: int, vulnerable: bool, tricks: int) -> int:
    """Duplicate score (bridge points) of the declaring side.

    level 1..7 (0 = passed out, scores 0); strain 0..4 or "C", "D", "H", "S",
    "NT"; doubled 0 (undoubled), 1 (doubled) or 2 (redoubled); vulnerable:
    the declaring side's vulnerability; tricks 0..13 taken by declarer.
    Positive when the contract makes.  NS view: negate when EW declared.
    """
    if isinstance(strain, str):
        if strain.upper() not in STRAINS:
            raise ValueError(f"bridge_score: strain={strain!r} must be one of {', '.join(STRAINS)}")
        strain = STRAINS.index(strain.upper())
    for name, value, lo, hi in (("level", level, 0, 7), ("strain", strain, 0, 4),
                                ("doubled", doubled, 0, 2), ("tricks", tricks, 0, 13)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
            raise ValueError(f"bridge_score: {name}={value!r} must be an integer in {lo}..{hi}")
    return int(_score(int(level), int(strain), int(doubled), bool(vulnerable), int(tricks)))


def board_vulnerability(board: int) -> int:
    """Vulnerability code (VUL_NONE, VUL_NS, VUL_EW, VUL_BOTH) of board number ``board`` >= 1.

    The standard 16-board cycle: 1 None, 2 NS, 3 EW, 4 All, 5 NS, 6 EW, 7 All,
    8 None, 9 EW, 10 All, 11 None, 12 NS, 13 All, 14 None, 15 NS, 16 EW; then
    board 17 is like board 1.  (The dealer rotates too but does not matter here.)
    """
    if isinstance(board, bool) or not isinstance(board, (int, np.integer)) or board < 1:
        raise ValueError(f"board_vulnerability: board={board!r} must be an integer >= 1")
    return int(_vulnerability(int(board)))


@helper(forceinline=True)
def _vulnerability(board):
    b = (board - 1) % 16
    return (b + b // 4) % 4


# --- parameters ---------------------------------------------------------------

def _p(default, help, lo=None, hi=None):
    meta = {"help": help}
    if lo is not None:
        meta["min"] = lo
    if hi is not None:
        meta["max"] = hi
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class BridgeModelParams:
    """Parameters of the bridge score model (see the module docstring)."""

    # deal mix
    p_flat: float = _p(0.01, "share of deals with one near-certain result (everyone in the same "
                             "contract with the same tricks)", 0.0, 1.0)
    p_partscore: float = _p(0.475, "share of partscore deals", 0.0, 1.0)
    p_game: float = _p(0.40, "share of game deals", 0.0, 1.0)
    p_slam: float = _p(0.115, "share of slam deals (small or grand)", 0.0, 1.0)
    # bidding
    consensus: float = _p(0.7, "weight of the normal contract relative to each alternative "
                               "(higher: the field agrees more, flatter boards)", 0.0)
    bidding_dispersion: float = _p(1.1, "sd of the log of each contract option's weight across "
                                        "deals (how much deals differ in their bidding problems)", 0.0)
    p_compete: float = _p(0.6, "share of partscore deals in which the other side competes", 0.0, 1.0)
    p_sacrifice: float = _p(0.4, "share of game deals in which the other side may sacrifice", 0.0, 1.0)
    double_weight: float = _p(0.5, "weight of the doubled version of a failing contract, "
                                   "relative to an alternative", 0.0)
    # play
    play_minus: float = _p(0.24, "probability declarer takes one trick fewer than double dummy", 0.0, 1.0)
    play_minus2: float = _p(0.03, "probability declarer takes two tricks fewer than double dummy", 0.0, 1.0)
    play_plus: float = _p(0.24, "probability declarer takes one trick more than double dummy "
                                "(a defensive error)", 0.0, 1.0)
    play_dispersion: float = _p(0.3, "sd of the log of a deal's play-error rates (hard and easy deals)", 0.0)
    # tables
    alpha: float = _p(0.0377, "latent shift per grade point of strength difference (NS minus EW)", 0.0)
    sigma_slope: float = _p(0.024, "fall of the latent noise scale per grade point of the field mean "
                                  "strength above 50 (stronger fields are less noisy)", 0.0)
    sigma_floor: float = _p(0.5, "smallest latent noise scale (very strong fields)", 1e-6)
    # deal pool
    pool_size: int = _p(8192, "deals in the pool sessions draw their boards from", 1)
    # card play (IMPs-lost scheme)
    imps_lost_base: float = _p(1.2, "IMPs lost per board (vs double dummy) by a 50 player", 0.0)
    imps_lost_slope: float = _p(0.05, "extra IMPs lost per board per grade point below 50", 0.0)
    imps_lost_floor: float = _p(0.55, "IMPs lost per board to randomness even by perfect players", 0.0)
    dummy_share: float = _p(0.25, "share of boards on which a player is dummy (loses nothing)", 0.0, 1.0)

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("int", int):
                ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
                kind = "an integer"
            else:
                ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) \
                    and math.isfinite(value)
                kind = "a finite number"
            if not ok:
                raise ValueError(f"BridgeModelParams: {f.name}={value!r} must be {kind}")
            lo, hi = f.metadata.get("min"), f.metadata.get("max")
            if lo is not None and value < lo:
                raise ValueError(f"BridgeModelParams: {f.name}={value!r} must be >= {lo}")
            if hi is not None and value > hi:
                raise ValueError(f"BridgeModelParams: {f.name}={value!r} must be <= {hi}")
        total = self.p_flat + self.p_partscore + self.p_game + self.p_slam
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"BridgeModelParams: p_flat={self.p_flat!r}, p_partscore={self.p_partscore!r}, "
                             f"p_game={self.p_game!r}, p_slam={self.p_slam!r}: "
                             f"p_flat + p_partscore + p_game + p_slam = {total:.6g} must be 1")
        if self.play_minus + self.play_minus2 + self.play_plus > 0.9:
            raise ValueError("BridgeModelParams: play_minus + play_minus2 + play_plus = "
                             f"{self.play_minus + self.play_minus2 + self.play_plus!r} must be <= 0.9")

    def deal_vector(self) -> np.ndarray:
        """The deal-construction parameters as the float64 vector kernels read (index constants _P_*)."""
        return np.array([getattr(self, name) for name in _DEAL_FIELDS], dtype=np.float64)


_DEAL_FIELDS = ("p_flat", "p_partscore", "p_game", "p_slam", "consensus", "bidding_dispersion",
                "p_compete", "p_sacrifice", "double_weight", "play_minus", "play_minus2", "play_plus",
                "play_dispersion")
(_P_FLAT, _P_PART, _P_GAME, _P_SLAM, _P_CONSENSUS, _P_BIDDISP, _P_COMPETE, _P_SACRIFICE,
 _P_DOUBLE, _P_MINUS, _P_MINUS2, _P_PLUS, _P_PLAYDISP) = range(len(_DEAL_FIELDS))

# --- the deal generator -----------------------------------------------------

MAX_OPTIONS = 8
"""Most contract options a deal can have."""
MAX_RUNGS = 16
"""Most outcomes (rungs) a board can have; the per-table search assumes exactly 16 slots."""

SIDE_A, SIDE_B = 0, 1
"""Side A is the side the deal favours (it owns the normal contract); side B the other."""
KIND_PLAIN, KIND_SACRIFICE = 0, 1
"""A sacrifice option's weight depends on the vulnerability (_SACRIFICE_VUL)."""
OPT_LEVEL, OPT_STRAIN, OPT_SIDE, OPT_DOUBLED, OPT_TRICKS, OPT_KIND = range(6)
"""Columns of an option row: contract level, strain, declaring side, doubled, double-dummy tricks, kind."""

# Small discrete distributions of the deal generator, as cumulative probabilities.
_PART_STRAIN = np.cumsum([0.14, 0.14, 0.24, 0.26, 0.22])          # C D H S NT
_PART_LEVEL_SUIT = np.cumsum([0.15, 0.55, 0.30])                   # 1 2 3
_PART_MARGIN = np.cumsum([0.20, 0.35, 0.30, 0.15])                 # DD tricks over the contract: -1..+2
_GAME_KIND = np.cumsum([0.25, 0.30, 0.30, 0.07, 0.08])             # 4H 4S 3NT 5C 5D
_GAME_STRAIN = (HEARTS, SPADES, NOTRUMP, CLUBS, DIAMONDS)
_GAME_LEVEL = (4, 4, 3, 5, 5)
_GAME_MARGIN = np.cumsum([0.05, 0.25, 0.40, 0.22, 0.08])           # -2..+2
_SLAM_STRAIN = np.cumsum([0.10, 0.10, 0.25, 0.30, 0.25])           # C D H S NT
_SLAM_MARGIN = np.cumsum([0.25, 0.55, 0.20])                       # -1..+1
_COMPETE_MARGIN = np.cumsum([0.20, 0.45, 0.30, 0.05])              # -2..+1
_SACRIFICE_DOWN = np.cumsum([0.30, 0.40, 0.25, 0.05])              # 1..4 down
_ALT_SHIFT = np.cumsum([0.35, 0.40, 0.25])                         # 0, 1, 2 (shifted by the caller)
_SACRIFICE_VUL = np.array([[1.0, 0.3], [2.0, 1.0]])
"""Sacrifice weight factor by [A vulnerable, B vulnerable]: B sacrifices more at favourable vulnerability."""


@helper(refcount=False)
def _pick(cum, st):
    """Index drawn from the cumulative probabilities ``cum`` (one uniform)."""
    u = uniform(st)
    k = 0
    while k < cum.shape[0] - 1 and u > cum[k]:
        k += 1
    return k


@helper(refcount=False)
def _weight(base, sd, st):
    """Option weight: base x lognormal(0, sd) (one uniform)."""
    return base * np.exp(sd * normal_quantile(uniform(st)))


@helper(refcount=False)
def _add(opts, w, n, level, strain, side, doubled, tricks, weight, kind):
    """Append an option (tricks clipped to 0..13); returns the new count."""
    if n >= MAX_OPTIONS:
        return n
    opts[n, OPT_LEVEL] = level
    opts[n, OPT_STRAIN] = strain
    opts[n, OPT_SIDE] = side
    opts[n, OPT_DOUBLED] = doubled
    opts[n, OPT_TRICKS] = min(max(tricks, 0), 13)
    opts[n, OPT_KIND] = kind
    w[n] = weight
    return n + 1


@helper(refcount=False)
def _other_suit(sa, st):
    """A random suit other than ``sa`` (any suit when sa is notrump)."""
    sb = np.int64(uniform(st) * 4.0)
    if sb == sa:
        sb = (sb + 1 + np.int64(uniform(st) * 3.0)) % 4
    return sb


@helper(forceinline=True, refcount=False)
def _flat_options(P, st, opts, w):
    """FLAT: everyone bids the same contract and takes the same tricks.

    Writes the options into opts/w; returns their count.
    """
    disp = P[_P_BIDDISP]
    n = 0
    k = _pick(_GAME_KIND, st)
    sa, la = _GAME_STRAIN[k], _GAME_LEVEL[k]
    if uniform(st) < 0.4:
        la -= 2                                              # a flat partscore
    ta = la + 6 + (1 if uniform(st) < 0.3 else 0)
    n = _add(opts, w, n, la, sa, SIDE_A, 0, ta, 20.0 * _weight(1.0, disp, st), KIND_PLAIN)
    n = _add(opts, w, n, la - 1 if la > 1 else la + 1, sa, SIDE_A, 0, ta, _weight(1.0, disp, st),
             KIND_PLAIN)
    return n


@helper(forceinline=True, refcount=False)
def _partscore_options(P, st, opts, w):
    """PARTSCORE: A's partscore, another strain, one level higher (and doubled when
    that fails), sometimes passed out, sometimes B competes (and is doubled).

    Writes the options into opts/w; returns their count.
    """
    disp = P[_P_BIDDISP]
    cons = P[_P_CONSENSUS]
    dw = P[_P_DOUBLE]
    n = 0
    sa = _pick(_PART_STRAIN, st)
    la = (1 if uniform(st) < 0.7 else 2) if sa == NOTRUMP else 1 + _pick(_PART_LEVEL_SUIT, st)
    ta = la + 6 + _pick(_PART_MARGIN, st) - 1
    n = _add(opts, w, n, la, sa, SIDE_A, 0, ta, _weight(cons, disp, st), KIND_PLAIN)
    if sa == NOTRUMP:
        s2, l2, t2 = (HEARTS if uniform(st) < 0.5 else SPADES), 2, ta + _pick(_ALT_SHIFT, st)
    else:
        s2, l2, t2 = NOTRUMP, max(1, la - 1), ta - 2 + _pick(_ALT_SHIFT, st)
    n = _add(opts, w, n, l2, s2, SIDE_A, 0, t2, _weight(1.0, disp, st), KIND_PLAIN)
    n = _add(opts, w, n, la + 1, sa, SIDE_A, 0, ta, _weight(1.0, disp, st), KIND_PLAIN)
    if ta < la + 7:
        n = _add(opts, w, n, la + 1, sa, SIDE_A, 1, ta, _weight(dw, disp, st), KIND_PLAIN)
    if la == 1 and sa != NOTRUMP and uniform(st) < 0.3:
        n = _add(opts, w, n, 0, NOTRUMP, SIDE_A, 0, 0, _weight(0.3, disp, st), KIND_PLAIN)
    if uniform(st) < P[_P_COMPETE]:
        sb = _other_suit(sa, st)
        lb = 2 if uniform(st) < 0.6 else 3
        tb = lb + 6 + _pick(_COMPETE_MARGIN, st) - 2
        n = _add(opts, w, n, lb, sb, SIDE_B, 0, tb, _weight(1.0, disp, st), KIND_PLAIN)
        if tb < lb + 6:
            n = _add(opts, w, n, lb, sb, SIDE_B, 1, tb, _weight(dw, disp, st), KIND_PLAIN)
    return n


@helper(forceinline=True, refcount=False)
def _game_options(P, st, opts, w):
    """GAME: A's game, a partscore stop, the other game (3NT or a major), one level
    too high, the game doubled when it fails, sometimes B's doubled sacrifice.

    Writes the options into opts/w; returns their count.
    """
    disp = P[_P_BIDDISP]
    cons = P[_P_CONSENSUS]
    dw = P[_P_DOUBLE]
    n = 0
    k = _pick(_GAME_KIND, st)
    sa, la = _GAME_STRAIN[k], _GAME_LEVEL[k]
    ta = la + 6 + _pick(_GAME_MARGIN, st) - 2
    n = _add(opts, w, n, la, sa, SIDE_A, 0, ta, _weight(cons, disp, st), KIND_PLAIN)
    ls = 2 if sa == NOTRUMP else (3 if sa <= DIAMONDS else la - 1)
    n = _add(opts, w, n, ls, sa, SIDE_A, 0, ta, _weight(1.0, disp, st), KIND_PLAIN)
    if sa == NOTRUMP:
        s2, l2, t2 = (HEARTS if uniform(st) < 0.5 else SPADES), 4, ta + _pick(_ALT_SHIFT, st)
    elif sa >= HEARTS:
        s2, l2, t2 = NOTRUMP, 3, ta - 2 + _pick(_ALT_SHIFT, st)
    else:
        s2, l2, t2 = NOTRUMP, 3, ta - 3 + _pick(_ALT_SHIFT, st)
    n = _add(opts, w, n, l2, s2, SIDE_A, 0, t2, _weight(1.0, disp, st), KIND_PLAIN)
    n = _add(opts, w, n, la + 1, sa, SIDE_A, 0, ta, _weight(0.25, disp, st), KIND_PLAIN)
    if ta < la + 6:
        n = _add(opts, w, n, la, sa, SIDE_A, 1, ta, _weight(dw, disp, st), KIND_PLAIN)
    if uniform(st) < P[_P_SACRIFICE]:
        sb = _other_suit(sa, st)
        # over 3NT at the four level; over a suit game the same level in a
        # higher suit, one level higher in a lower one
        lb = 4 if sa == NOTRUMP else (la if sb > sa else la + 1)
        tb = lb + 6 - 1 - _pick(_SACRIFICE_DOWN, st)
        n = _add(opts, w, n, lb, sb, SIDE_B, 1, tb, _weight(1.0, disp, st), KIND_SACRIFICE)
    return n


@helper(forceinline=True, refcount=False)
def _slam_options(P, st, opts, w):
    """SLAM: A's small or grand slam, stopping in game, a grand that is one too
    many (or the small slam when the grand is on), the slam in the other strain.

    Writes the options into opts/w; returns their count.
    """
    disp = P[_P_BIDDISP]
    cons = P[_P_CONSENSUS]
    n = 0
    sa = _pick(_SLAM_STRAIN, st)
    la = 7 if uniform(st) < 0.15 else 6
    ta = la + 6 + _pick(_SLAM_MARGIN, st) - 1
    n = _add(opts, w, n, la, sa, SIDE_A, 0, ta, _weight(0.6 * cons, disp, st), KIND_PLAIN)
    lg = 3 if sa == NOTRUMP else (4 if sa >= HEARTS else 5)
    n = _add(opts, w, n, lg, sa, SIDE_A, 0, ta, _weight(1.0, disp, st), KIND_PLAIN)
    if la == 7:
        n = _add(opts, w, n, 6, sa, SIDE_A, 0, ta, _weight(1.0, disp, st), KIND_PLAIN)
    else:
        n = _add(opts, w, n, 7, sa, SIDE_A, 0, ta, _weight(0.2, disp, st), KIND_PLAIN)
    if sa == NOTRUMP:
        s2, t2 = (HEARTS if uniform(st) < 0.5 else SPADES), ta + _pick(_ALT_SHIFT, st)
    else:
        s2, t2 = NOTRUMP, ta - 1 + _pick(_ALT_SHIFT, st)
    n = _add(opts, w, n, la, s2, SIDE_A, 0, t2, _weight(0.5, disp, st), KIND_PLAIN)
    return n


@helper(forceinline=True, refcount=False)
def _play_noise(P, play, noise):
    """This deal's play noise: the base rates times the deal factor ``play``, at most 0.9 in all.

    noise[0..3] = P(declarer takes DD-2, DD-1, DD, DD+1 tricks).
    """
    e2 = P[_P_MINUS2] * play
    e1 = P[_P_MINUS] * play
    ep = P[_P_PLUS] * play
    tot = e1 + e2 + ep
    if tot > 0.9:
        e2 *= 0.9 / tot
        e1 *= 0.9 / tot
        ep *= 0.9 / tot
    noise[0] = e2
    noise[1] = e1
    noise[2] = 1.0 - e2 - e1 - ep
    noise[3] = ep


@helper(refcount=False)
def _make_deal(P, st, opts, w, noise):
    """One deal: its contract options (side A's view) and play-noise probabilities.

    P: BridgeModelParams.deal_vector().  Writes the options into ``opts``
    (int64[MAX_OPTIONS, 6], columns OPT_*) and their weights into ``w``;
    noise[0..3] = P(declarer takes DD-2, DD-1, DD, DD+1 tricks).  Returns the
    number of options.  See the module docstring for the rules.
    """
    play = np.exp(P[_P_PLAYDISP] * normal_quantile(uniform(st)))
    u = uniform(st)
    if u < P[_P_FLAT]:
        n = _flat_options(P, st, opts, w)
        play *= 0.2
    elif u < P[_P_FLAT] + P[_P_PART]:
        n = _partscore_options(P, st, opts, w)
    elif u < P[_P_FLAT] + P[_P_PART] + P[_P_GAME]:
        n = _game_options(P, st, opts, w)
    else:
        n = _slam_options(P, st, opts, w)
    _play_noise(P, play, noise)
    return n


@helper(refcount=False)
def _score_table(table):
    """table[level, strain, doubled, vulnerable, tricks] = ``_score`` of every contract and result
    (int64[8, 5, 3, 2, 14]): 3360 scores, ~30 us, once per pool."""
    for level in range(8):
        for strain in range(5):
            for doubled in range(3):
                for vul in range(2):
                    for tricks in range(14):
                        table[level, strain, doubled, vul, tricks] = _score(level, strain, doubled, vul, tricks)


@helper(refcount=False)
def _outcome_scores(opts, n_opt, table, out):
    """Side A's score (bridge points) of each candidate outcome c = 4 i + j of a deal, option i with its
    declarer taking DD-2+j tricks, in each of the deal's rows: out[4 c + 2 vul_a + vul_b] (the declaring
    side's vulnerability picked here, not in the ladders' sort loop).  table: ``_score_table``, looked up
    instead of ``_score``'s branches (mispredicted: ~36 scores a deal)."""
    for i in range(n_opt):
        by_a = opts[i, OPT_SIDE] == SIDE_A
        sign = 1 if by_a else -1
        level, strain, doubled = opts[i, OPT_LEVEL], opts[i, OPT_STRAIN], opts[i, OPT_DOUBLED]
        for j in range(4):
            t = min(max(opts[i, OPT_TRICKS] + j - 2, 0), 13)
            for vc in range(4):
                vul = vc >> 1 if by_a else vc & 1
                out[4 * (4 * i + j) + vc] = sign * table[level, strain, doubled, vul, t]


_CAND_BITS = 5
_CAND_MASK = (1 << _CAND_BITS) - 1
"""A ladder candidate's sort key is its score times 2**_CAND_BITS plus its number c (< 4 * MAX_OPTIONS)."""
assert 4 * MAX_OPTIONS <= 1 << _CAND_BITS
_NO_SCORE = -(1 << 40)
"""Below every score: the score "before" a ladder's first rung."""


@helper(refcount=False)
def _ladder(opts, w, n_opt, noise, vul_a, vul_b, outcome, f, keys, rung_s, rung_p):
    """A board's outcome ladder: options x play noise, side A's scores ascending, ties merged.

    outcome: the candidates' scores (``_outcome_scores``).  Writes the rungs' scores (side A's view,
    bridge points) into ``rung_s`` and their probabilities into ``rung_p``; returns the number of rungs.
    Beyond MAX_RUNGS the least likely rung is folded into the neighbour whose score is closer (the lower
    one on a tie), repeatedly.

    The candidates c = 4 i + j (option i, declarer taking DD-2+j tricks) are sorted by their keys
    score * 2**_CAND_BITS + c; a score's probability is the sum of its candidates' in c order
    (candidates of probability 0 left out), the order in which inserting them one by one into a sorted
    list adds them up.  keys[:4 n_opt] comes in with the candidates' numbers in some order (in their
    low _CAND_BITS bits: the keys of the deal's ladder before, or just 0, 1, 2, ... for its first) and
    leaves sorted: the next ladder, at another vulnerability, starts nearly sorted and its insertion
    sort mostly compares.  f: work array of MAX_OPTIONS; keys, rung_s, rung_p: of 4 * MAX_OPTIONS.
    """
    total = 0.0
    for i in range(n_opt):
        x = w[i]
        if opts[i, OPT_KIND] == KIND_SACRIFICE:
            x *= _SACRIFICE_VUL[vul_a, vul_b]
        total += x
    for i in range(n_opt):
        x = w[i]
        if opts[i, OPT_KIND] == KIND_SACRIFICE:
            x *= _SACRIFICE_VUL[vul_a, vul_b]
        f[i] = x / total                                 # option i's share
    vc = 2 * vul_a + vul_b
    # each candidate's key at this vulnerability, inserted at once into the sorted ones before it
    for r in range(4 * n_opt):
        c = keys[r] & _CAND_MASK
        key = (outcome[4 * c + vc] << _CAND_BITS) + c
        q = r
        while q > 0 and keys[q - 1] > key:
            keys[q] = keys[q - 1]
            q -= 1
        keys[q] = key
    # equal scores merged without a branch (a third of the candidates tie with the one before)
    m = 0
    last = _NO_SCORE
    acc = 0.0
    for r in range(4 * n_opt):
        c = keys[r] & _CAND_MASK
        p = f[c >> 2] * noise[c & 3]
        if p <= 0.0:
            continue
        s = keys[r] >> _CAND_BITS
        new = s != last
        acc = p if new else acc + p
        m += new
        rung_s[m - 1] = s
        rung_p[m - 1] = acc
        last = s
    while m > MAX_RUNGS:
        k = 0
        for i in range(1, m):
            if rung_p[i] < rung_p[k]:
                k = i
        if k == 0:
            nb = 1
        elif k == m - 1:
            nb = m - 2
        elif rung_s[k] - rung_s[k - 1] <= rung_s[k + 1] - rung_s[k]:
            nb = k - 1
        else:
            nb = k + 1
        rung_p[nb] += rung_p[k]
        for q in range(k, m - 1):
            rung_s[q] = rung_s[q + 1]
            rung_p[q] = rung_p[q + 1]
        m -= 1
    return m


@kernel(forceinline=True)
def cut_points(probs, m, out):
    """Latent cut points of a ladder of m rungs with probabilities probs[:m] (0 past them):
    out[k] = Phi^-1(probs[0] + ... + probs[k]) for k < m - 1, +inf from m - 1 on (probs, out: MAX_RUNGS).

    A cumulative probability within 1e-12 of 1 gives +inf (the rungs above it count as impossible at an
    average table) and one below 1e-15 counts as 1e-15: no infinite or NaN cut points.  The quantile's
    central formula first runs over all MAX_RUNGS sums in a loop LLVM vectorises (no branch, the same
    operations as ``normal_quantile``, so the same bits); the cut points in its tails, about a fifth (a
    log and a square root each), then call ``normal_quantile`` itself.
    """
    c = 0.0
    for k in range(MAX_RUNGS):
        c += probs[k]
        out[k] = c
    # in place: a loop from one array into another would need a run-time check that they do not overlap;
    # and over the array's length: a loop of a constant MAX_RUNGS trips is unrolled instead (numba runs no
    # SLP vectoriser)
    for k in range(out.shape[0]):
        out[k] = normal_quantile_central(out[k])
    top = max(m - 1, 0)
    c = 0.0
    for k in range(top):
        c += probs[k]                                  # the same sums, added in the same order
        if not (c >= _NQ_LOW and c <= 1.0 - _NQ_LOW):  # a tail (or NaN): what normal_quantile does there
            out[k] = normal_quantile(max(c, 1e-15)) if c < 1.0 - 1e-12 else np.inf
    for k in range(top, MAX_RUNGS):
        out[k] = np.inf


@kernel
def _build_pool(P, key, first, scores, thresholds, probs, n_rungs):
    """Build deals first, first + 1, ... of stream ``key`` into the pool rows.

    Deal d is drawn from stream (key, first + d, 0) and fills rows 4d + 2 vul_a
    + vul_b, one per vulnerability of side A and side B.  Past the last rung
    the scores repeat the last one, the probabilities are 0 and the cut points
    are +inf.  thresholds[row, k] = Phi^-1(P(rung <= k)) at an average table.
    """
    opts = np.empty((MAX_OPTIONS, 6), np.int64)
    w = np.empty(MAX_OPTIONS, np.float64)
    noise = np.empty(4, np.float64)
    f = np.empty(MAX_OPTIONS, np.float64)
    keys = np.empty(4 * MAX_OPTIONS, np.int64)
    rung_s = np.empty(4 * MAX_OPTIONS, np.int64)
    rung_p = np.empty(4 * MAX_OPTIONS, np.float64)
    outcome = np.empty(16 * MAX_OPTIONS, np.int64)
    st = np.empty(1, np.uint64)
    table = np.empty((8, 5, 3, 2, 14), np.int64)
    _score_table(table)
    _fill_pool(P, key, first, scores, thresholds, probs, n_rungs, opts, w, noise, f, keys, rung_s, rung_p, outcome, st,
               table)


@helper(refcount=False)
def _fill_pool(P, key, first, scores, thresholds, probs, n_rungs, opts, w, noise, f, keys, rung_s, rung_p, outcome, st,
               table):
    """``_build_pool``'s loop over the deals, given its work arrays.

    It and the helpers it calls, which only write into arrays they are given, run without reference
    counting: numba otherwise increments and decrements, atomically, the count of every array passed to
    a helper or taken as a view, ~12 % of a pool's time (perf samples in NRT_incref and NRT_decref).
    """
    for d in range(scores.shape[0] // 4):
        seed_stream(st, key, first + d, 0)
        n_opt = _make_deal(P, st, opts, w, noise)
        _outcome_scores(opts, n_opt, table, outcome)
        side_b = False
        for i in range(n_opt):
            side_b |= opts[i, OPT_SIDE] == SIDE_B
        for c in range(4 * n_opt):
            keys[c] = c
        # rows (vul_a, vul_b) = (0, 0), (0, 1), (1, 1), (1, 0): each differs from the one before in one
        # side's vulnerability, so its ladder starts from a nearly sorted order (``_ladder``)
        prev = 0
        for t in range(4):
            vc = t ^ (t >> 1)
            row = 4 * d + vc
            if t & 1 and not side_b:
                # side B's vulnerability only matters to side B's contracts: the row before's ladder
                n_rungs[row] = n_rungs[prev]
                for k in range(MAX_RUNGS):
                    scores[row, k] = scores[prev, k]
                    probs[row, k] = probs[prev, k]
                    thresholds[row, k] = thresholds[prev, k]
            else:
                m = _ladder(opts, w, n_opt, noise, vc >> 1, vc & 1, outcome, f, keys, rung_s, rung_p)
                n_rungs[row] = m
                for k in range(MAX_RUNGS):
                    scores[row, k] = rung_s[min(k, m - 1)]
                    probs[row, k] = rung_p[k] if k < m else 0.0
                cut_points(probs[row], m, thresholds[row])
            prev = row


@dataclass(frozen=True)
class DealPool:
    """Pre-built deals: a board is one row, shared by every table that plays it.

    scores: int32[R, MAX_RUNGS] outcome scores (bridge points, side A's view,
        ascending); thresholds: float64[R, MAX_RUNGS] latent cut points;
        probs: float64[R, MAX_RUNGS] rung probabilities at an average table
        (equal pairs of strength 50); n_rungs: int32[R].  R = 4 x deals.
    """

    scores: np.ndarray
    thresholds: np.ndarray
    probs: np.ndarray
    n_rungs: np.ndarray

    @property
    def n_deals(self) -> int:
        return self.scores.shape[0] // 4


def build_pool(params: BridgeModelParams, key, n_deals: int | None = None, first: int = 0) -> DealPool:
    """Build ``n_deals`` deals (default ``params.pool_size``) from stream key ``key``."""
    n = params.pool_size if n_deals is None else n_deals
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"build_pool: n_deals={n!r} must be a positive integer")
    # on huge pages (where the system gives them): play reads random rows of scores and thresholds, a TLB
    # miss each on 4 KB pages (several MB), measured ~1 ns a player-board of national play
    scores = huge_page_empty((4 * n, MAX_RUNGS), np.int32)
    thr = huge_page_empty((4 * n, MAX_RUNGS), np.float64)
    probs = np.empty((4 * n, MAX_RUNGS), np.float64)
    nr = np.empty(4 * n, np.int32)
    _build_pool(params.deal_vector(), np.uint64(key), int(first), scores, thr, probs, nr)
    return DealPool(scores, thr, probs, nr)


# --- tables ------------------------------------------------------------------

_NQ_CELLS = 2048
_NQ_EDGE = 10      # cells at each end left to the tail formula (interpolation error > 5e-4 there)
_NQ_TABLE = np.array([0.0] + [statistics.NormalDist().inv_cdf(i / _NQ_CELLS) for i in range(1, _NQ_CELLS)]
                     + [0.0])


@kernel(forceinline=True)
def fast_normal(state):
    """Standard normal from one uniform: the inverse CDF interpolated in a table.

    Linear interpolation between the exact quantiles at i/2048 (error below
    2e-5 for |z| < 2 and below 5e-4 up to |z| = 2.6); in the 1 % of draws
    beyond (|z| > 2.6) the Abramowitz-Stegun 26.2.23 tail formula (error
    below 5e-4).  About 1.5 ns on top of the uniform, against about 9 ns for
    ``rng.normal``; the code is kept small so that it inlines into the
    table-draw loops.
    """
    return fast_normal_of(uniform(state))


@helper(forceinline=True)
def fast_normal_of(u):
    """``fast_normal``'s standard normal from the uniform u it draws."""
    x = u * _NQ_CELLS
    i = np.int64(x)
    if i < _NQ_EDGE or i >= _NQ_CELLS - _NQ_EDGE:
        p = u if u < 0.5 else 1.0 - u
        t = np.sqrt(-2.0 * np.log(p))
        z = t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)))
        return -z if u < 0.5 else z
    f = x - i
    return _NQ_TABLE[i] + f * (_NQ_TABLE[i + 1] - _NQ_TABLE[i])


@helper(forceinline=True)
def board_code(deal, vul, flip):
    """Code of a board: deal ``deal`` of the pool at vulnerability ``vul`` (VUL_*).

    flip = 1 puts side A (the side the deal favours) EW.  code = 2 * row +
    flip with row = 4 * deal + 2 * vul_a + vul_b, the pool row of the deal
    seen from side A.
    """
    ns_v = vul & 1                      # NS vulnerable on VUL_NS and VUL_BOTH
    ew_v = vul >> 1                     # EW vulnerable on VUL_EW and VUL_BOTH
    # arithmetic, not branches: the vulnerability changes from board to board
    va = ns_v + flip * (ew_v - ns_v)
    vb = ew_v + flip * (ns_v - ew_v)
    return np.int32(2 * (4 * deal + 2 * va + vb) + flip)


@helper(forceinline=True)
def deal_board(n_deals, vul, state):
    """Code of a fresh board at vulnerability ``vul``: a random deal of the pool, random side A.

    Two uniform draws; call once per board per session.
    """
    d = np.int64(uniform(state) * n_deals)
    return board_code(d, vul, np.int64(uniform(state) < 0.5))


@kernel(refcount=False)  # called per session: no reference counting
def take_boards(scores, thresholds, codes, first, stop, slot_scores, slot_thresholds):
    """Copy boards codes[first:stop]'s ladders (their pool rows) into rows first..stop-1 of a session's own
    small table, and replace each code by the board's code there (2 * slot + flip).

    ``draw_ns_score`` on (slot_scores, slot_thresholds, new code) gives the
    same scores as on the pool with the old code.  A session's boards are
    random rows of a pool of several MB, each played at many tables: the
    table-draw loop then reads a few KB that stay in cache, and the copy's
    loads, a few vector instructions a board, miss the cache together.
    """
    for slot in range(first, stop):
        row = codes[slot] >> 1
        for k in range(MAX_RUNGS):
            slot_scores[slot, k] = scores[row, k]
        for k in range(MAX_RUNGS):
            slot_thresholds[slot, k] = thresholds[row, k]
        codes[slot] = 2 * slot + (codes[slot] & 1)


@kernel(forceinline=True)
def field_sigma(field_strength, sigma_slope, sigma_floor):
    """Latent noise scale of a session whose players average ``field_strength`` grade points."""
    s = 1.0 - sigma_slope * (field_strength - 50.0)
    return s if s > sigma_floor else sigma_floor


@kernel(forceinline=True)
def latent_score(scores, thresholds, code, q):
    """NS score (bridge points) of board ``code`` for a table whose latent is ``q`` (side A's view)."""
    row = code >> 1
    # the rung is the number of cut points below q: a binary search over the
    # row's MAX_RUNGS = 16 entries (padded with +inf), four compares
    k = 8 if q > thresholds[row, 7] else 0
    if q > thresholds[row, k + 3]:
        k += 4
    if q > thresholds[row, k + 1]:
        k += 2
    if q > thresholds[row, k]:
        k += 1
    return scores[row, k] * (1 - 2 * (code & 1))     # side A's score, negated when A sits EW


@helper(forceinline=True)
def draw_ns_score(scores, thresholds, code, s_ns, s_ew, alpha, sigma, state):
    """NS score (bridge points) at one table of board ``code``; one uniform draw.

    s_ns, s_ew: pair strengths (grade points); alpha: latent shift per grade
    point; sigma: the session's noise scale (``field_sigma``).
    """
    return ns_score_of(scores, thresholds, code, s_ns, s_ew, alpha, sigma, uniform(state))


@helper(forceinline=True)
def ns_score_of(scores, thresholds, code, s_ns, s_ew, alpha, sigma, u):
    """``draw_ns_score`` from the uniform u it draws."""
    d = (s_ns - s_ew) * (1 - 2 * (code & 1))         # side A minus side B
    return latent_score(scores, thresholds, code, sigma * (alpha * d + fast_normal_of(u)))


@kernel
def play_board(scores, thresholds, code, ns_strength, ew_strength, alpha, sigma, state, out):
    """NS scores (bridge points) of board ``code`` at n tables: out[i] for NS pair i vs EW pair i."""
    for i in range(out.shape[0]):
        out[i] = draw_ns_score(scores, thresholds, code, ns_strength[i], ew_strength[i], alpha, sigma, state)


# --- Python conveniences -------------------------------------------------------

def _keys(seed):
    """(pool key, table-draw key) of a run seeded with ``seed``."""
    key = rng.replicate_keys(seed, 1)[0]
    return rng.child_key(key, 1), rng.child_key(key, 2)


def _strengths(name, value, n):
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be {n} finite strengths (grade points), got {value!r}")
    return arr


def tables_setup(params: BridgeModelParams, ns_strength, ew_strength, n: int, seed: int,
                 field_strength: float | None, pool: DealPool | None):
    """(ns, ew, pool, draw key, sigma) for n tables of a run seeded with ``seed``.

    Strengths (grade points; scalars broadcast) checked as ``_strengths``;
    the field defaults to the mean of all pairs; the pool is built from the
    seed's pool key unless given; sigma is the field's noise scale.
    """
    ns = _strengths("ns_strength", ns_strength, n)
    ew = _strengths("ew_strength", ew_strength, n)
    if field_strength is None:
        field_strength = 0.5 * (ns.mean() + ew.mean())
    pool_key, draw_key = _keys(seed)
    if pool is None:
        pool = build_pool(params, pool_key)
    return ns, ew, pool, draw_key, field_sigma(float(field_strength), params.sigma_slope, params.sigma_floor)


def simulate_boards(params: BridgeModelParams, ns_strength, ew_strength, n_boards: int, seed: int = 0,
                    field_strength: float | None = None, pool: DealPool | None = None) -> np.ndarray:
    """NS scores (bridge points, int32[n_boards, n]) of ``n_boards`` boards each played at n tables.

    Table i seats the NS pair of strength ``ns_strength[i]`` against the EW
    pair ``ew_strength[i]`` (grade points; scalars are broadcast when n is
    given by the other).  Board k is board number k + 1 (its vulnerability),
    a random deal of the pool built from ``seed`` (or ``pool``).  The noise
    scale comes from ``field_strength`` (default: the mean of all pairs).
    """
    if isinstance(n_boards, bool) or not isinstance(n_boards, (int, np.integer)) or n_boards < 1:
        raise ValueError(f"simulate_boards: n_boards={n_boards!r} must be a positive integer")
    n = max(np.size(ns_strength), np.size(ew_strength))
    ns, ew, pool, draw_key, sigma = tables_setup(params, ns_strength, ew_strength, n, seed, field_strength, pool)
    out = np.empty((n_boards, n), np.int32)
    _play_boards(pool.scores, pool.thresholds, pool.n_deals, ns, ew, params.alpha, sigma, draw_key, out)
    return out


@kernel
def _play_boards(scores, thresholds, n_deals, ns_strength, ew_strength, alpha, sigma, key, out):
    st = np.empty(1, np.uint64)
    for b in range(out.shape[0]):
        seed_stream(st, key, b, 0)
        code = deal_board(n_deals, _vulnerability(b + 1), st)
        play_board(scores, thresholds, code, ns_strength, ew_strength, alpha, sigma, st, out[b])


# --- card play: IMPs lost against double dummy (the IMPs-lost rating) -----------

MISTAKE_IMPS = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17], dtype=np.int64)
"""IMP cost of one card-play mistake against double-dummy play."""
MISTAKE_PROBS = np.array([0.30, 0.08, 0.07, 0.06, 0.07, 0.08, 0.04, 0.03, 0.02, 0.09, 0.03, 0.08,
                          0.03, 0.01, 0.01])
"""How often a mistake costs each of MISTAKE_IMPS: an overtrick (1), a partscore made or
not (2-6), a double partscore swing (7-9), a game made or not (10 NV, 12 V), a doubled
game or a slam (13-17)."""
_MISTAKE_CUM = np.cumsum(MISTAKE_PROBS)
MEAN_MISTAKE_IMPS = float(np.dot(MISTAKE_IMPS, MISTAKE_PROBS))


@kernel
def imps_lost_rate(strength, base, slope, floor):
    """Expected IMPs lost per board played as declarer or defender by a player of ``strength``.

    lambda(t) = max(floor, base + slope * (50 - t)); grade points in, IMPs out.
    """
    lam = base + slope * (50.0 - strength)
    return lam if lam > floor else floor


@kernel(helper=True)
def _binomial(n, p, state):
    """Binomial(n, p) by inversion (one uniform per 400 trials)."""
    total = 0
    left = n
    q = 1.0 - p
    while left > 0:
        m = min(left, 400)
        left -= m
        if p <= 0.0:
            continue
        if q <= 0.0:
            total += m
            continue
        u = uniform(state)
        pk = q ** m
        cdf = pk
        k = 0
        while u > cdf and k < m:
            pk *= (m - k) / (k + 1.0) * p / q
            k += 1
            cdf += pk
        total += k
    return total


@kernel
def _poisson(mu, state):
    """Poisson(mu) by inversion (one uniform per 400 of mean)."""
    total = 0
    left = mu
    while left > 0.0:
        m = min(left, 400.0)
        left -= m
        total += poisson_step(m, np.exp(-m), state)
    return total


@helper(forceinline=True)
def poisson_step(m, exp_neg_m, state):
    """Poisson(m) for 0 < m <= 400 by inversion from one uniform, given exp_neg_m = exp(-m).

    The caller passes exp(-m) so that a mean used again and again (a
    declarer's rate in ``simulate.play``) pays for the exponential once.
    """
    return poisson_inverse(m, exp_neg_m, uniform(state))


@kernel
def poisson_inverse(m, exp_neg_m, u):
    """The Poisson(m) deviate of uniform u by inversion (``poisson_step`` once it has drawn u): the first k
    whose CDF, summed term by term from exp_neg_m = exp(-m), reaches u."""
    pk = exp_neg_m
    cdf = pk
    k = 0
    while u > cdf and k < 100000:
        k += 1
        pk *= m / k
        cdf += pk
    return k


@helper(forceinline=True)
def mistakes_cost(n, state):
    """IMPs lost (against double dummy) to ``n`` card-play mistakes: one uniform each, MISTAKE_IMPS by MISTAKE_PROBS."""
    total = 0
    for _ in range(n):
        u = uniform(state)
        # the first cost whose cumulative probability reaches u, the last if none: the cumulative
        # probabilities rise, so this counts the ones below u, without a branch a cost
        k = 0
        for i in range(_MISTAKE_CUM.shape[0] - 1):
            k += u > _MISTAKE_CUM[i]
        total += MISTAKE_IMPS[k]
    return total


@kernel
def draw_imps_lost(strength, boards, base, slope, floor, dummy_share, state):
    """IMPs lost against double dummy by a player over ``boards`` boards: (imps_lost, boards_played).

    The player is dummy on Binomial(boards, dummy_share) boards (dummy loses
    nothing); on the others he makes Poisson(boards_played * lambda / mean
    cost) mistakes, each costing MISTAKE_IMPS with MISTAKE_PROBS.  So the
    expected IMPs lost per board played is lambda(strength) exactly.  Draws:
    one for the dummy boards, one for the number of mistakes, one per
    mistake (about 5 in a 24-board session at strength 50).
    """
    dummy = _binomial(boards, dummy_share, state)
    played = boards - dummy
    n = _poisson(played * imps_lost_rate(strength, base, slope, floor) / MEAN_MISTAKE_IMPS, state)
    return mistakes_cost(n, state), played


def simulate_imps_lost(params: BridgeModelParams, strength, boards, seed: int = 0):
    """(imps_lost, boards_played) int64 arrays: one card-play record per (player strength, boards).

    strength: grade points; boards: boards in the session (the player was
    declarer, defender or dummy).  Record i uses stream (seed, i).
    """
    t = np.atleast_1d(np.asarray(strength, np.float64))
    b = np.broadcast_to(np.asarray(boards), t.shape)
    if not np.all(np.isfinite(t)):
        raise ValueError(f"simulate_imps_lost: strength={strength!r} must be finite grade points")
    if not np.issubdtype(b.dtype, np.integer) or np.any(b < 0):
        raise ValueError(f"simulate_imps_lost: boards={boards!r} must be non-negative integers")
    key = rng.child_key(rng.replicate_keys(seed, 1)[0], 3)
    imps_out = np.empty(t.shape, np.int64)
    played = np.empty(t.shape, np.int64)
    _imps_lost_many(t, b.astype(np.int64), params.imps_lost_base, params.imps_lost_slope,
                    params.imps_lost_floor, params.dummy_share, key, imps_out, played)
    return imps_out, played


@kernel
def _imps_lost_many(strength, boards, base, slope, floor, dummy_share, key, imps_out, played):
    st = np.empty(1, np.uint64)
    for i in range(strength.shape[0]):
        seed_stream(st, key, i, 0)
        imps_out[i], played[i] = draw_imps_lost(strength[i], boards[i], base, slope, floor, dummy_share, st)
