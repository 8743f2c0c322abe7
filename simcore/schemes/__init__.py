"""Grading schemes: NGS, PPI, Elo pairs, IMPs-lost — and their variants.

``SCHEMES`` below is the one place a scheme's name is spelt.  Every scheme
is a module here with

* a frozen dataclass ``Params`` whose fields are the scheme's parameters,
  each with a default and ``metadata={"help": ..., "choices": ...}``;
* ``SCHEME``, a class deriving from ``SchemeBase`` and implementing the
  ``Scheme`` protocol below, whose numba kernels (private functions taking
  arrays and named-scalar tuples) do the work.

Adding a scheme is that module plus one line in ``SCHEMES``: the engine,
``simcore grade``, ``compare`` and the metrics learn everything else from
the protocol (what it reads, its extras, its default variants).

A *variant* is a scheme name plus parameter overrides, written
``ngs(gain=2, window=1000)``; ``parse_variant`` turns that (or the
``--set NAME=VALUE`` pairs of ``simcore grade``) into a validated scheme
object, and rejects unknown names and bad values with a message naming the
parameter, the value and what is allowed.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

SCHEMES = {
    "ngs": "simcore.schemes.ngs",
    "ppi": "simcore.schemes.ppi",
    "elo-pairs": "simcore.schemes.elo_pairs",
    "imps-lost": "simcore.schemes.imps_lost",
    "kalman": "simcore.schemes.kalman",
    "offline": "simcore.schemes.offline",
    # general rating systems, for comparison; they need the optional extra simcore[peers]
    "openskill": "simcore.schemes.peer_openskill",
    "trueskill": "simcore.schemes.peer_trueskill",
    "ttt": "simcore.schemes.peer_ttt",
    "whr": "simcore.schemes.peer_whr",
}
"""Scheme name → module.  Each module defines ``Params`` and ``SCHEME``
(a ``SchemeBase`` class implementing ``Scheme``).  The only place a
scheme's name is spelt (tests/test_scheme_registry.py checks it)."""

SCORED = "scored"
"""``Scheme.reads``: the scheme grades ``ScoredResults`` (sessions)."""
CARD_PLAY = "card-play"
"""``Scheme.reads``: the scheme grades ``CardPlay`` records (declarer play: IMPs lost against double dummy)."""


@dataclass
class PlayerTable:
    """Per-player facts a scheme may need, all of length P.

    member: False for guests / unknown players (PPI guests, NGS unknowns).
    at_start: the player was already playing when the scheme started
        (NGS start grade 50 rather than the newcomer grade 42).
    initial_grade: explicit initial grade, NaN = the scheme's rule.
    """

    member: np.ndarray
    at_start: np.ndarray
    initial_grade: np.ndarray

    @classmethod
    def from_results(cls, results) -> "PlayerTable":
        return cls(results.player_member.copy(), results.player_at_start.copy(),
                   results.player_initial_grade.copy())

    @property
    def n_players(self) -> int:
        return len(self.member)


class Scheme(Protocol):
    """What the engine, ``simcore grade``, ``compare`` and the metrics use of a scheme.

    ``state`` is a scheme-specific dataclass of numpy arrays (struct of
    arrays), created by ``new_state`` and mutated in place by ``apply``.
    ``SchemeBase`` gives the defaults of everything but the four methods.
    """

    params: Any
    name: str
    """The registry name (``SCHEMES``), e.g. for messages and Dataset variable names."""
    reads: str
    """``SCORED`` (``apply`` takes ``ScoredResults``) or ``CARD_PLAY`` (``apply`` takes ``CardPlay``)."""
    out_columns: tuple[str, ...]
    """``CARD_PLAY`` schemes: the columns ``apply`` writes per record (``out_after`` is (n, len))."""
    snapshot_extras: dict[str, tuple[str, ...]]
    """Extras the engine records at every snapshot: name → labels of its codes (code = index);
    each becomes the int8 Dataset variable ``<name>_<extra>`` (name with - as _)."""
    optional_out_after: bool
    """``apply(state, scored, None)`` is allowed and skips the post-session grades."""
    partnership_switch: dict[str, Any] | None
    """None: no partnership-level grades.  Else the parameter overrides that make the
    scheme keep them (``{}`` when it always does); ``partnership_grades`` then works."""
    default_variants: tuple[dict[str, Any], ...]
    """Parameter overrides of the variants ``simcore run`` grades by default (``({},)``: the
    scheme as published; ``()``: none)."""
    graded_sessions: str
    """What the scheme grades, for the message when a replay grades nothing."""
    corrections: str
    """What the scheme does with a corrected session (``ScoredResults.replaces``), one of
    ``CORRECTIONS``: ``"replace"`` (the scheme removes the original itself, as NGS),
    ``"first"`` (the first publication stands; a correction is ignored) or ``"last"`` (the
    original is ignored and the correction graded in its place).  The engine and replays pass
    ``for_grading(scored)``, so no scheme counts a session twice."""

    def new_state(self, players: PlayerTable, n_partnerships: int) -> Any:
        """Fresh state for P players (and room for partnership ids)."""

    def grow(self, state: Any, n_partnerships: int) -> Any:
        """Return state with room for at least ``n_partnerships`` partnerships."""

    def apply(self, state: Any, scored, out_after: np.ndarray | None) -> None:
        """Grade every session of ``scored`` (a ScoredResults) in ``scored.order``.

        Writes into ``out_after[e, k]`` (float64, shape (E, 2)) the grade of
        player ``scored.pair_players[e, k]`` right after the session of pair
        entry ``e`` was graded (NaN if the scheme did not grade that player
        in that session).  ``CARD_PLAY`` schemes take ``CardPlay`` records
        and write ``out_columns`` per record.
        """

    def apply_trusted(self, state: Any, scored, out_after: np.ndarray | None) -> None:
        """``apply`` for results simcore's own scoring just made (the engine's chunks): a scheme may
        skip the checks ``apply`` runs on what a caller hands it (``SchemeBase``: ``apply``)."""

    def grades(self, state: Any, day: int) -> np.ndarray:
        """Current grades (grade points) of all P players on ``day``, NaN if none."""

    def extras(self, state: Any, day: int) -> dict[str, np.ndarray]:
        """More per-player facts on ``day`` (name → array of P); ``snapshot_extras`` names
        those the engine records."""

    def revise(self, state: Any, days: np.ndarray) -> np.ndarray | None:
        """After the run: grades (T, P) on the snapshot ``days`` re-read from all the results (a
        retrospective scheme, e.g. ``offline(smooth=true)``), or None to keep the snapshots taken."""

    def partnership_grades(self, state: Any, day: int) -> dict[str, np.ndarray]:
        """Partnership-level grades on ``day``: arrays over partnership ids with at least
        ``grade`` (grade points, NaN if none); other 1-D columns (``rating``, ``sessions``,
        ...) are written by ``simcore grade --partnerships`` too."""


class SchemeBase:
    """Defaults of the ``Scheme`` protocol; every scheme class derives from it."""

    reads = SCORED
    out_columns: tuple[str, ...] = ()
    snapshot_extras: dict[str, tuple[str, ...]] = {}
    optional_out_after = False
    partnership_switch: dict[str, Any] | None = None
    default_variants: tuple[dict[str, Any], ...] = ({},)
    graded_sessions = "check the bundle's sessions"
    corrections = "first"

    @property
    def name(self) -> str:
        """The registry name of this scheme (looked up in ``SCHEMES``, so it is spelt once)."""
        return scheme_name_of(type(self))

    @property
    def has_partnership_grades(self) -> bool:
        return self.partnership_switch is not None

    def extras(self, state, day: int) -> dict[str, np.ndarray]:
        return {}

    def revise(self, state, days) -> np.ndarray | None:
        return None

    def apply_trusted(self, state, scored, out_after) -> None:
        self.apply(state, scored, out_after)

    def for_grading(self, scored):
        """``scored`` with ``order`` left without the sessions ``corrections`` says to ignore:
        corrections (``"first"``) or the sessions they replace (``"last"``); unchanged for
        ``"replace"`` or when nothing is corrected."""
        return graded_view(scored, self.corrections)

    def partnership_grades(self, state, day: int) -> dict[str, np.ndarray]:
        raise ValueError(f"{self.name} has no partnership-level grades")


CORRECTIONS = ("replace", "first", "last")


def graded_view(scored, corrections: str):
    """See ``SchemeBase.for_grading``."""
    if corrections not in CORRECTIONS:
        raise ValueError(f"corrections={corrections!r}; choose from {', '.join(CORRECTIONS)}")
    rep = np.asarray(scored.replaces)
    if corrections == "replace" or not (rep >= 0).any():
        return scored
    order = np.asarray(scored.order)
    if corrections == "first":
        drop = rep >= 0
    else:
        drop = np.zeros(len(rep), bool)
        drop[rep[rep >= 0]] = True
    return dataclasses.replace(scored, order=order[~drop[order]].astype(order.dtype))


def scheme_names() -> list[str]:
    return list(SCHEMES)


def scheme_name_of(cls: type) -> str:
    """The registry name of scheme class ``cls``: the entry whose module defines it, else the entry whose
    ``SCHEME`` it is (a class re-exported by a small module, as the peers are) or derives from."""
    for name, mod in SCHEMES.items():
        if mod == cls.__module__:
            return name
    registered = []
    for name, mod in SCHEMES.items():
        try:
            registered.append((name, importlib.import_module(mod).SCHEME))
        except (ImportError, AttributeError):
            continue
    for test in (lambda k: k is cls, lambda k: issubclass(cls, k)):
        for name, k in registered:
            if test(k):
                return name
    raise ValueError(f"{cls.__module__}.{cls.__name__} is not a registered scheme; add it to "
                     "simcore.schemes.SCHEMES")


def default_schemes() -> list[str]:
    """Variant labels ``simcore run`` grades by default: every scheme's ``default_variants``, in
    registry order (schemes whose module is missing from this build are left out)."""
    out = []
    for name in SCHEMES:
        try:
            cls = scheme_module(name).SCHEME
        except ModuleNotFoundError:
            continue
        out += [variant_label(name, overrides) for overrides in cls.default_variants]
    return out


def scheme_module(name: str):
    if name not in SCHEMES:
        raise ValueError(f"unknown scheme {name!r}; choose from {', '.join(SCHEMES)}")
    return importlib.import_module(SCHEMES[name])


def params_help(name: str) -> list[tuple[str, str, str]]:
    """(parameter, default, help) for every parameter of a scheme."""
    params_cls = scheme_module(name).Params
    rows = []
    for f in dataclasses.fields(params_cls):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        text = f.metadata.get("help", "")
        if "choices" in f.metadata:
            text += f" (one of: {', '.join(map(str, f.metadata['choices']))})"
        rows.append((f.name, str(default), text))
    return rows


def _convert(scheme: str, f: dataclasses.Field, raw: Any):
    want = f.type if isinstance(f.type, type) else {"int": int, "float": float, "bool": bool,
                                                     "str": str}.get(str(f.type), str)
    value = raw
    if isinstance(raw, str):
        text = raw.strip()
        try:
            if want is bool:
                low = text.lower()
                if low not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                    raise ValueError
                value = low in ("true", "1", "yes", "on")
            elif want is int:
                value = int(float(text)) if float(text).is_integer() else int(text)
            elif want is float:
                value = float(text)
            else:
                value = text
        except ValueError:
            raise ValueError(f"{scheme}: parameter {f.name}={raw!r} is not a valid {want.__name__}") from None
    elif want is float and isinstance(raw, (int, np.integer)) and not isinstance(raw, bool):
        value = float(raw)
    if want is float and not np.isfinite(value):
        raise ValueError(f"{scheme}: parameter {f.name}={raw!r} must be a finite number")
    choices = f.metadata.get("choices")
    if choices is not None and value not in choices:
        raise ValueError(f"{scheme}: parameter {f.name}={raw!r} is not one of {', '.join(map(str, choices))}")
    lo, hi = f.metadata.get("min"), f.metadata.get("max")
    if lo is not None and value < lo:
        raise ValueError(f"{scheme}: parameter {f.name}={raw!r} is below its minimum {lo}")
    if hi is not None and value > hi:
        raise ValueError(f"{scheme}: parameter {f.name}={raw!r} is above its maximum {hi}")
    return value


def make_params(name: str, overrides: dict[str, Any]):
    """Validated ``Params`` of scheme ``name`` with ``overrides`` applied."""
    params_cls = scheme_module(name).Params
    by_name = {f.name: f for f in dataclasses.fields(params_cls)}
    kwargs = {}
    for key, raw in overrides.items():
        if key not in by_name:
            raise ValueError(f"{name}: unknown parameter {key!r}; valid parameters: {', '.join(by_name)}")
        kwargs[key] = _convert(name, by_name[key], raw)
    params = params_cls(**kwargs)
    check = getattr(params, "check", None)
    if check is not None:
        check()  # cross-field rules, raising ValueError naming the fields
    return params


def make_scheme(name: str, overrides: dict[str, Any] | None = None):
    """A scheme object (implementing ``Scheme``) with validated parameters."""
    module = scheme_module(name)
    if not (isinstance(module.SCHEME, type) and issubclass(module.SCHEME, SchemeBase)):
        raise TypeError(f"{module.__name__}.SCHEME must be a class deriving from simcore.schemes.SchemeBase")
    return module.SCHEME(make_params(name, overrides or {}))


_VARIANT = re.compile(r"^\s*([A-Za-z][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)


def reads_card_play(variant: str) -> bool:
    """Whether variant ``variant`` (e.g. ``"ngs(gain=1)"``) grades card-play records, not results.

    Such a scheme reads a different input (declarer play against double
    dummy) from the schemes that see only session results, so reports mark
    it and keep it out of their rankings.  From the registry's ``reads``;
    False for a label that names no registered scheme (a report's own label).
    """
    m = _VARIANT.match(variant)
    return bool(m) and m.group(1) in SCHEMES and make_scheme(m.group(1)).reads == CARD_PLAY


def parse_variant(text: str) -> tuple[str, dict[str, str]]:
    """``'ngs(gain=2, window=1000)'`` → ``('ngs', {'gain': '2', 'window': '1000'})``."""
    m = _VARIANT.match(text)
    if not m:
        raise ValueError(f"cannot read scheme variant {text!r}; write e.g. ngs or ngs(gain=2, window=1000)")
    name, body = m.group(1), m.group(2)
    if name not in SCHEMES:
        raise ValueError(f"unknown scheme {name!r} in {text!r}; choose from {', '.join(SCHEMES)}")
    overrides: dict[str, str] = {}
    if body and body.strip():
        for part in body.split(","):
            if "=" not in part:
                raise ValueError(f"in {text!r}: {part.strip()!r} is not NAME=VALUE")
            k, v = part.split("=", 1)
            k = k.strip()
            if k in overrides:
                raise ValueError(f"in {text!r}: parameter {k!r} given twice")
            overrides[k] = v.strip()
    return name, overrides


def split_variants(text: str) -> list[str]:
    """Split ``'ngs,ngs(gain=2, window=1000),ppi'`` at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced parentheses in scheme list {text!r}")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if depth:
        raise ValueError(f"unbalanced parentheses in scheme list {text!r}")
    if cur.strip():
        out.append(cur.strip())
    return out


def variant_label(name: str, overrides: dict[str, Any]) -> str:
    """Canonical label, e.g. ``ngs(gain=2,window=1000)``; the bare name if no overrides."""
    if not overrides:
        return name
    return f"{name}(" + ",".join(f"{k}={overrides[k]}" for k in sorted(overrides)) + ")"
