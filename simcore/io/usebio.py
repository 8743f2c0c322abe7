"""USEBIO 1.2 / 1.3 XML (the EBU's upload format) -> ``ImportedSession`` list.

Shapes read (fixtures for each in ``tests/data/import/``):

* flat: ``EVENT`` holds ``PARTICIPANTS`` and ``BOARD`` directly (EBUScore-,
  ScoreBridge-like);
* nested: ``EVENT/SESSION/SECTION`` (Pianola-like), several sections each a
  field of its own (one simcore session per section);
* event types ``MP_PAIRS``, ``BUTLER_PAIRS``, ``CROSS_IMP``, ``SWISS_PAIRS``,
  ``SWISS_TEAMS``, ``TEAMS`` / ``MULTIPLE_TEAMS``; ``WINNER_TYPE`` 1 or 2;
  pair numbers ``7`` or ``1NS`` / ``1EW``; ``dd/mm/yyyy`` dates; contract
  ``PASS``; ``SCORE`` (NS points, or an artificial ``A6040``) or
  ``NS_SCORE`` / ``EW_SCORE``, or no score (computed from contract,
  declarer and tricks);
* players by ``NATIONAL_ID_NUMBER`` when present, else by ``PLAYER_NAME``;
* event type from ``MASTER_POINT_TYPE`` (event level, per pair, or inside a
  ``MASTER_POINTS`` wrapper): green / blue / red / gold -> ``green``; black
  with a ``MASTER_POINT_SCALE`` other than club -> ``black``; otherwise
  ``club``.

Teams: ``TEAM`` participants (``TEAM_NUMBER``, four or more ``PLAYER``); a
traveller line names the two teams (``NS_TEAM_NUMBER``/``EW_TEAM_NUMBER``
or the pair-number elements).  USEBIO does not say which of a team's
players sat NS, so simcore takes the team's first two players as the pair
that sits NS when the team is named NS, and the next two as its EW pair.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from simcore.io.imported import (ImportedSession, Pair, Player, Traveller, clean_name, decimals_of, fail,
                                 ns_score_of, number, parse_artificial, parse_date, player_id)

EVENT_KINDS = {
    # EVENT_TYPE: (scoring, movement when one-winner, movement when two-winner)
    "MP_PAIRS": ("mp", "howell", "mitchell"),
    "PAIRS": ("mp", "howell", "mitchell"),
    "BUTLER_PAIRS": ("butler", "howell", "mitchell"),
    "CROSS_IMP": ("cross_imps", "howell", "mitchell"),
    "CROSS_IMPS": ("cross_imps", "howell", "mitchell"),
    "AGGREGATE_PAIRS": ("aggregate", "howell", "mitchell"),
    "SWISS_PAIRS": ("mp", "swiss_pairs", "swiss_pairs"),
    "SWISS_TEAMS": ("teams_imps", "swiss_teams", "swiss_teams"),
    "TEAMS": ("teams_imps", "multiple_teams", "multiple_teams"),
    "MULTIPLE_TEAMS": ("teams_imps", "multiple_teams", "multiple_teams"),
    "TEAMS_OF_FOUR": ("teams_imps", "multiple_teams", "multiple_teams"),
}
BOARD_SCORING = {"MATCH_POINTS": "mp", "MATCHPOINTS": "mp", "BUTLER_IMPS": "butler", "CROSS_IMPS": "cross_imps",
                 "AGGREGATE": "aggregate", "IMPS": "butler"}
GREEN_TYPES = {"GREEN", "BLUE", "RED", "GOLD"}


def looks_like(head: bytes) -> bool:
    """True when the first bytes of a file are a USEBIO document."""
    return b"<USEBIO" in head.upper()


def _text(el, tag: str, default: str = "") -> str:
    child = el.find(tag)
    return (child.text or "").strip() if child is not None and child.text is not None else default


def read_usebio(path, data: bytes | None = None) -> list[ImportedSession]:
    """Every field (event section) of a USEBIO file, in file order."""
    path = str(path)
    if data is None:
        with open(path, "rb") as fh:
            data = fh.read()
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        line, col = exc.position
        fail(path, f"line {line}, column {col}", f"malformed XML ({exc.msg if hasattr(exc, 'msg') else exc})")
    if root.tag.upper() != "USEBIO":
        fail(path, f"root element <{root.tag}>", "not a USEBIO document (expected <USEBIO>)")
    version = root.get("Version") or root.get("VERSION") or ""
    club = root.find("CLUB")
    club_name = clean_name(_text(club, "CLUB_NAME")) if club is not None else ""
    club_id = _text(club, "CLUB_ID_NUMBER") if club is not None else ""
    events = root.findall("EVENT")
    if not events:
        fail(path, "<USEBIO>", "no <EVENT> element")
    out = []
    for k, event in enumerate(events, 1):
        out += _read_event(path, event, k, club_name or club_id, club_id, version)
    return out


def _read_event(path, event, k, club_name, club_id, version) -> list[ImportedSession]:
    where = f"EVENT {k}"
    etype = (event.get("EVENT_TYPE") or _text(event, "EVENT_TYPE")).strip().upper()
    if etype not in EVENT_KINDS:
        fail(path, f"{where} EVENT_TYPE", f"unknown event type {etype!r}; simcore reads "
             f"{', '.join(EVENT_KINDS)}")
    winners_text = _text(event, "WINNER_TYPE", "")
    scoring, one, two = EVENT_KINDS[etype]
    bsm = _text(event, "BOARD_SCORING_METHOD").upper()
    if bsm and etype in ("SWISS_PAIRS",):
        if bsm not in BOARD_SCORING:
            fail(path, f"{where} BOARD_SCORING_METHOD", f"unknown board scoring {bsm!r}; simcore reads "
                 f"{', '.join(BOARD_SCORING)}")
        scoring = BOARD_SCORING[bsm]
    name = clean_name(_text(event, "EVENT_DESCRIPTION") or _text(event, "EVENT_NAME") or etype.lower())
    program = _text(event, "PROGRAM_NAME")
    date_text = _text(event, "DATE")
    event_type = _event_type(event)
    fields = [el for el in event.iter() if el.find("PARTICIPANTS") is not None]
    if not fields:
        fail(path, where, "no <PARTICIPANTS> element")
    sessions = []
    for j, fld in enumerate(fields, 1):
        fwhere = where if fld is event else f"{where} {fld.tag} {j}"
        sec_label = ""
        if fld is not event:
            sec_label = (fld.get("SECTION_ID") or _text(fld, "SECTION_ID") or fld.get("SESSION_ID")
                         or _text(fld, "SECTION_NAME") or _text(fld, "SESSION_ID") or str(j))
            if len(fields) == 1:
                sec_label = ""
        # the nearest date: this field's, its session's, the event's
        d_text = _text(fld, "DATE") or _session_date(event, fld) or date_text
        if not d_text:
            fail(path, fwhere, "no <DATE>")
        day = parse_date(d_text, path, f"{fwhere} DATE")
        w_text = _text(fld, "WINNER_TYPE") or winners_text or "2"
        if w_text not in ("1", "2"):
            fail(path, f"{fwhere} WINNER_TYPE", f"{w_text!r} must be 1 or 2")
        winners = int(w_text)
        movement = two if winners == 2 else one
        if movement in ("swiss_pairs", "swiss_teams", "multiple_teams"):
            winners = 1 if movement == "swiss_pairs" else winners
        s = ImportedSession(source=path, event=name, club=club_name, day=day, event_type=event_type,
                            scoring=scoring, winners=winners, movement=movement, section=sec_label,
                            program=program)
        teams = scoring == "teams_imps"
        _participants(path, fld.find("PARTICIPANTS"), fwhere, s, teams, scoring, winners)
        if not s.pairs:
            fail(path, f"{fwhere} PARTICIPANTS", "no <PAIR> or <TEAM>")
        boards = fld.findall("BOARD")
        if not boards:
            fail(path, fwhere, "no <BOARD> (travellers) in this field")
        _boards(path, boards, fwhere, s, teams)
        sessions.append(s)
    return sessions


def _session_date(event, fld) -> str:
    for sess in event.iter("SESSION"):
        if fld is sess or any(x is fld for x in sess.iter()):
            return _text(sess, "DATE")
    return ""


def _event_type(event) -> str:
    types = [(el.text or "").strip().upper() for el in event.iter("MASTER_POINT_TYPE") if el.text]
    scale = " ".join((el.text or "").strip().upper() for el in event.iter("MASTER_POINT_SCALE") if el.text)
    if any(t in GREEN_TYPES for t in types):
        return "green"
    if scale and "CLUB" not in scale:
        return "black"
    return "club"


def _player(path, el, where, s: ImportedSession) -> str:
    name = clean_name(_text(el, "PLAYER_NAME"))
    nat = _text(el, "NATIONAL_ID_NUMBER")
    if nat in ("0", "-"):
        nat = ""
    if not name and not nat:
        fail(path, where, "a <PLAYER> with neither PLAYER_NAME nor NATIONAL_ID_NUMBER")
    pid = player_id(name, nat)
    if pid not in s.players:
        s.players[pid] = Player(pid, name or pid, nat, _text(el, "CLUB_ID_NUMBER"))
    return pid


def _canon(num: str, direction: str) -> str:
    n = num.strip().upper()
    if n.endswith(("NS", "EW")):
        return n
    return f"{n}{direction}" if direction else n


def _participants(path, parts, where, s, teams, scoring, winners) -> None:
    tag = "TEAM" if teams else "PAIR"
    for i, el in enumerate(parts.findall(tag), 1):
        pw = f"{where} {tag} {i}"
        num = _text(el, f"{tag}_NUMBER")
        if not num:
            fail(path, pw, f"no {tag}_NUMBER")
        players = [_player(path, p, f"{pw} PLAYER {k}", s) for k, p in enumerate(el.findall("PLAYER"), 1)]
        direction = _text(el, "DIRECTION").upper()
        if num.upper().endswith(("NS", "EW")):
            direction = num.upper()[-2:]
        if direction not in ("", "NS", "EW"):
            fail(path, f"{pw} DIRECTION", f"{direction!r} is not NS or EW")
        if winners == 1 and not teams:
            direction = ""
        published, dec = None, 2
        pct = _text(el, "PERCENTAGE")
        total = _text(el, "TOTAL_SCORE")
        if scoring == "mp" and pct:
            published, dec = number(pct, path, f"{pw} PERCENTAGE", "percentage"), decimals_of(pct)
        elif scoring != "mp" and total:
            published, dec = number(total, path, f"{pw} TOTAL_SCORE", "total score"), decimals_of(total)
        if teams:
            if len(players) < 4:
                fail(path, pw, f"team {num!r} lists {len(players)} players; a team needs four")
            a, b = f"{num}/1", f"{num}/2"
            s.pairs[a] = Pair(a, (players[0], players[1]), "NS", published, dec, team=num)
            s.pairs[b] = Pair(b, (players[2], players[3]), "EW", published, dec, team=num)
            s.teams[num] = (a, b)
            continue
        if len(players) != 2:
            fail(path, pw, f"pair {num!r} lists {len(players)} players; a pair has two")
        label = _canon(num, direction)
        if label in s.pairs:
            fail(path, f"{pw} PAIR_NUMBER", f"pair {label!r} listed twice")
        s.pairs[label] = Pair(label, tuple(players), direction, published, dec)


def _resolve(path, where, s, num: str, side: str) -> str:
    if num in s.pairs:
        return num
    n = num.strip().upper()
    for cand in (n, f"{n}{side}"):
        if cand in s.pairs:
            return cand
    fail(path, where, f"pair {num!r} is not among the participants "
         f"({', '.join(list(s.pairs)[:12])}{'...' if len(s.pairs) > 12 else ''})")


def _boards(path, boards, where, s, teams) -> None:
    for bi, bel in enumerate(boards, 1):
        bw = f"{where} BOARD {bi}"
        bn = _text(bel, "BOARD_NUMBER")
        try:
            board = int(bn)
            if board < 1:
                raise ValueError
        except ValueError:
            fail(path, f"{bw} BOARD_NUMBER", f"{bn!r} is not a board number")
        for li, tl in enumerate(bel.findall("TRAVELLER_LINE"), 1):
            tw = f"{where} BOARD {board} TRAVELLER_LINE {li}"
            vals = {c.tag: (c.text or "").strip() for c in tl}
            ns_num = vals.get("NS_TEAM_NUMBER") or vals.get("NS_PAIR_NUMBER", "")
            ew_num = vals.get("EW_TEAM_NUMBER") or vals.get("EW_PAIR_NUMBER", "")
            if not ns_num or not ew_num:
                fail(path, tw, "NS_PAIR_NUMBER or EW_PAIR_NUMBER is missing")
            if teams:
                for num in (ns_num, ew_num):
                    if num not in s.teams:
                        fail(path, tw, f"team {num!r} is not among the participants ({', '.join(s.teams)})")
                ns, ew = s.teams[ns_num][0], s.teams[ew_num][1]
            else:
                ns = _resolve(path, f"{tw} NS_PAIR_NUMBER", s, ns_num, "NS")
                ew = _resolve(path, f"{tw} EW_PAIR_NUMBER", s, ew_num, "EW")
            contract = vals.get("CONTRACT", "")
            declarer = vals.get("PLAYED_BY", "")
            tricks = vals.get("TRICKS", "")
            score_text = vals.get("SCORE", "")
            if not score_text and (vals.get("NS_SCORE") or vals.get("EW_SCORE")):
                if vals.get("NS_SCORE"):
                    score_text = vals["NS_SCORE"]
                else:
                    ew_text = vals["EW_SCORE"]
                    score_text = ew_text if parse_artificial(ew_text) else str(-int(_int(path, tw, ew_text)))
            art = None
            if score_text[:1] in ("A", "a") or contract[:1] in ("A", "a"):  # cheap test first: 4M lines a year
                art = parse_artificial(score_text) or parse_artificial(contract)
            if art is not None:
                s.travellers.append(Traveller(board, ns, ew, None, art, contract, declarer, None,
                                              vals.get("LEAD", ""), tw))
                continue
            if score_text:
                ns_score = _int(path, f"{tw} SCORE", score_text)
            elif contract:
                ns_score = ns_score_of(board, contract, declarer, tricks, path, tw)
            else:
                fail(path, tw, "no SCORE and no CONTRACT")
            s.travellers.append(Traveller(board, ns, ew, ns_score, None, contract, declarer,
                                          int(tricks) if tricks.isdigit() else None, vals.get("LEAD", ""), tw))


def _int(path, where, text) -> int:
    try:
        return int(text.strip().lstrip("+"))
    except ValueError:
        fail(path, where, f"score {text!r} is not a whole number of points or an artificial score (A6040)")
