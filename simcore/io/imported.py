"""What every results-file reader returns: sessions as club scorers publish them.

USEBIO, PBN and BridgeWebs readers (``simcore.io.usebio``, ``.pbn``,
``.bridgewebs``) each turn one file into a list of ``ImportedSession``: the
event, the pairs (labels such as ``1NS`` or ``7``, their two players and what
the file publishes for them) and one ``Traveller`` per table per board.
``simcore.io.importer`` turns a list of them into a ``Results`` and a bundle.

Shared here: the error type (``ImportFileError``, always naming the file and
the element / line and the bad value), dates, contracts, artificial scores and
the NS score of a played contract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from simcore.bridge.model import board_vulnerability, bridge_score


class ImportFileError(ValueError):
    """A problem in a results file: names the file, the element or line, and the value."""


def fail(path, where: str, message: str):
    """Raise an ImportFileError as ``FILE, WHERE: MESSAGE``."""
    raise ImportFileError(f"{path}, {where}: {message}" if where else f"{path}: {message}")


# --- players -------------------------------------------------------------------------

@dataclass
class Player:
    """One person (or one pair identity, see ``pbn``) as a file names them."""
    id: str
    name: str
    national_id: str = ""
    club_id: str = ""


def player_id(name: str, national_id: str) -> str:
    """The id simcore uses: the national id when the file gives one, else the name."""
    return national_id if national_id else name


def clean_name(text: str | None) -> str:
    return " ".join((text or "").split())


# --- sessions ------------------------------------------------------------------------

@dataclass(slots=True)
class Pair:
    """A pair (or, in team events, one pair of a team) as listed by the file.

    label: the pair number as written (``7``, ``1NS``); players: two player
    ids; direction: ``NS``, ``EW`` or ``""`` (one-winner); published: the
    file's session result for the pair — MP % (mp), or net IMPs / total
    score in the event's units — None if the file gives none; decimals: the
    decimals it is written with (its rounding).
    """
    label: str
    players: tuple
    direction: str = ""
    published: float | None = None
    decimals: int = 2
    team: str = ""


@dataclass(slots=True)
class Traveller:
    """One table's result on one board.

    ns_score: NS bridge points, or None for an artificial score, which is
    then ``artificial`` = (NS %, EW %), e.g. (60, 40) for ``A6040``.
    contract / declarer / tricks / lead are kept as text for card play.
    where: the element or line the row came from (for messages).
    """
    board: int
    ns: str
    ew: str
    ns_score: int | None
    artificial: tuple | None = None
    contract: str = ""
    declarer: str = ""
    tricks: int | None = None
    lead: str = ""
    where: str = ""
    seats: dict | None = None      # seat letter -> player id, when the file names the four players


@dataclass
class ImportedSession:
    """One scored field: an event's section on one day.

    scoring / movement / winners / event_type use the bundle's words
    (``simcore.results``).  key: what makes two exports "the same session"
    (event, club, date, section).  deals: board number -> PBN deal text, when
    the file carries the cards (for ``--card-play``).
    """
    source: str
    event: str
    club: str
    day: int
    event_type: str
    scoring: str
    winners: int
    movement: str
    section: str = ""
    program: str = ""
    pairs: dict = field(default_factory=dict)
    travellers: list = field(default_factory=list)
    players: dict = field(default_factory=dict)
    teams: dict = field(default_factory=dict)        # team label -> (pair label, pair label)
    deals: dict = field(default_factory=dict)        # board -> (dealer, vulnerability, PBN deal text)
    mtime: float = 0.0
    order: int = 0

    @property
    def key(self) -> tuple:
        return (self.event.lower(), self.club.lower(), self.day, self.section.lower())

    @property
    def date(self) -> str:
        return str(np.datetime64(int(self.day), "D"))

    @property
    def name(self) -> str:
        """The session id written to the bundle: club, date, event and section."""
        parts = [self.club or "club", self.date, self.event or "session"]
        if self.section:
            parts.append(self.section)
        return re.sub(r"\s+", "_", "|".join(parts))


# --- dates ---------------------------------------------------------------------------

_DATE_FORMS = (
    (re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$"), ("d", "m", "y")),     # dd/mm/yyyy (USEBIO, BridgeWebs)
    (re.compile(r"^(\d{4})-(\d{2})-(\d{2})$"), ("y", "m", "d")),         # ISO
    (re.compile(r"^(\d{4})\.(\d{2})\.(\d{2})$"), ("y", "m", "d")),       # yyyy.mm.dd (PBN)
    (re.compile(r"^(\d{4})(\d{2})(\d{2})$"), ("y", "m", "d")),           # yyyymmdd (BridgeWebs)
)
DATE_FORMS_TEXT = "dd/mm/yyyy, yyyy-mm-dd, yyyy.mm.dd or yyyymmdd"


def parse_date(text: str, path, where: str) -> int:
    """Days since 1970-01-01 of a date in one of ``DATE_FORMS_TEXT``."""
    t = (text or "").strip()
    for rx, order in _DATE_FORMS:
        m = rx.match(t)
        if m:
            parts = dict(zip(order, (int(g) for g in m.groups())))
            try:
                return int(np.datetime64(f"{parts['y']:04d}-{parts['m']:02d}-{parts['d']:02d}", "D")
                           .astype(np.int64))
            except ValueError:
                break
    fail(path, where, f"date {text!r} is not a date in a known form ({DATE_FORMS_TEXT})")


# --- contracts, artificial scores, NS scores ----------------------------------------------

_CONTRACT = re.compile(r"^([1-7])\s*(C|D|H|S|N|NT)\s*(XX|X|\*\*|\*|R)?$", re.I)
_ARTIFICIAL = re.compile(r"^A(\d{2})(\d{2})$", re.I)
SEATS = "NESW"


def parse_contract(text: str, path, where: str):
    """(level, strain, doubled) of a contract text such as ``4HX``, ``3NT``, ``2S**``; level 0 for a pass-out.

    strain is ``C D H S NT``; doubled 0, 1 (X, *) or 2 (XX, **, R).
    """
    t = (text or "").strip().upper().replace(" ", "")
    if t in ("PASS", "P", "AP", "ALLPASS", "PASSED", "PASSEDOUT", "PO"):
        return 0, "NT", 0
    m = _CONTRACT.match(t)
    if not m:
        fail(path, where, f"contract {text!r} is not readable (expected e.g. 4H, 3NTX, 6SXX or PASS)")
    strain = m.group(2).upper()
    dbl = (m.group(3) or "").upper()
    return int(m.group(1)), ("NT" if strain in ("N", "NT") else strain), {"": 0, "X": 1, "*": 1}.get(dbl, 2)


def parse_artificial(text: str) -> tuple | None:
    """(NS %, EW %) of an artificial score such as ``A6040`` / ``A5050``; None if not one."""
    m = _ARTIFICIAL.match((text or "").strip())
    if not m:
        return None
    return float(m.group(1)), float(m.group(2))


def parse_tricks(text: str, level: int, path, where: str) -> int:
    """Tricks taken by declarer from ``10``, ``=``, ``+1``, ``-2`` (relative forms need the level)."""
    t = (text or "").strip()
    try:
        if t == "=":
            return level + 6
        if t[:1] in "+-" and len(t) > 1:
            tricks = level + 6 + int(t)
        else:
            tricks = int(t)
    except ValueError:
        fail(path, where, f"result {text!r} is not a number of tricks (0-13, or =, +1, -2)")
    if not 0 <= tricks <= 13:
        fail(path, where, f"result {text!r} gives {tricks} tricks; must be 0-13")
    return tricks


def vulnerable(board: int, seat: str, vul_text: str | None = None) -> bool:
    """Whether ``seat``'s side is vulnerable on ``board`` (the file's vulnerability if given)."""
    if vul_text:
        v = vul_text.strip().lower()
        code = {"none": 0, "love": 0, "-": 0, "ns": 1, "ew": 2, "all": 3, "both": 3, "b": 3}.get(v)
        if code is None:
            raise ValueError(f"vulnerability {vul_text!r} is not None, NS, EW or All")
    else:
        code = board_vulnerability(board)
    ns_side = seat in "NS"
    return code == 3 or (code == 1 and ns_side) or (code == 2 and not ns_side)


def ns_score_of(board: int, contract: str, declarer: str, tricks_text: str, path, where: str,
                vul_text: str | None = None) -> int:
    """NS bridge points of a played contract at the board's (or given) vulnerability."""
    level, strain, doubled = parse_contract(contract, path, where)
    if level == 0:
        return 0
    seat = (declarer or "").strip().upper()[:1]
    if seat not in SEATS or not seat:
        fail(path, where, f"declarer {declarer!r} is not N, E, S or W")
    tricks = parse_tricks(tricks_text, level, path, where)
    try:
        vul = vulnerable(board, seat, vul_text)
    except ValueError as exc:
        fail(path, where, str(exc))
    score = bridge_score(level, strain, doubled, vul, tricks)
    return score if seat in "NS" else -score


def decimals_of(text: str) -> int:
    t = (text or "").strip()
    return len(t.split(".", 1)[1]) if "." in t else 0


def number(text: str, path, where: str, what: str) -> float:
    try:
        return float((text or "").strip().rstrip("%"))
    except ValueError:
        fail(path, where, f"{what} {text!r} is not a number")
