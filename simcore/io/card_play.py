"""Real card play: declarers' IMPs lost against double-dummy, for the IMPs-lost rating.

For every imported table result whose file carries the deal (PBN ``Deal``)
and names the four players (per-table records), the deal is solved
double-dummy with ``endplay`` (a maintained wrapper of Bo Haglund's DDS; the
optional extra ``simcore[cardplay]``) and the declarer's loss is

    imps(score at the double-dummy number of tricks - score actually made)

from the declarer's side, counted only when positive: tricks the defence
gave away are not the declarer's skill.  Passed-out boards and artificial
scores are not declared and are skipped.  ``card_play.csv`` gets one row per
declarer per session: ``player,date,boards,imps_lost`` (boards declared, total
IMPs lost), the input of ``simcore grade --scheme imps-lost``.
"""

from __future__ import annotations

import csv
from pathlib import Path

from simcore.bridge.model import bridge_score
from simcore.io.imported import ImportFileError, parse_contract, vulnerable
from simcore.scoring.imp_scale import imps

CARD_PLAY_COLUMNS = ("player", "date", "boards", "imps_lost")


def _solver():
    try:
        from endplay.dds import calc_all_tables
        from endplay.types import Deal, Denom, Player
    except ImportError:
        raise ImportFileError("--card-play needs the endplay package (a double-dummy solver): "
                              "pip install 'simcore[cardplay]' or pip install endplay") from None
    return calc_all_tables, Deal, Denom, Player


def declarer_losses(sessions):
    """[(player, date, imps lost)] for every declared table with a deal and named players; and notes."""
    calc_all_tables, Deal, Denom, Player = _solver()
    denom = {"S": Denom.spades, "H": Denom.hearts, "D": Denom.diamonds, "C": Denom.clubs, "NT": Denom.nt}
    seat = {"N": Player.north, "E": Player.east, "S": Player.south, "W": Player.west}
    jobs, keys = [], {}
    for s in sessions:
        for b, (_, _, text) in s.deals.items():
            if (id(s), b) not in keys:
                try:
                    deal = Deal(text)
                except Exception as exc:  # endplay raises several types for a bad deal text
                    raise ImportFileError(f"{s.source}: board {b}: deal {text!r} is not a PBN deal ({exc})") \
                        from None
                keys[(id(s), b)] = len(jobs)
                jobs.append(deal)
    tables = list(calc_all_tables(jobs)) if jobs else []
    out, skipped = [], 0
    for s in sessions:
        for t in s.travellers:
            if t.ns_score is None or (id(s), t.board) not in keys:
                continue
            level, strain, doubled = parse_contract(t.contract, s.source, t.where) if t.contract else (0, "", 0)
            if level == 0:
                continue
            if not t.seats or t.tricks is None or t.declarer[:1].upper() not in seat:
                skipped += 1
                continue
            d = t.declarer[:1].upper()
            dd = tables[keys[(id(s), t.board)]][denom[strain], seat[d]]
            vul_text = s.deals[t.board][1] or None
            vul = vulnerable(t.board, d, vul_text)
            made = bridge_score(level, strain, doubled, vul, int(t.tricks))
            par = bridge_score(level, strain, doubled, vul, int(dd))
            out.append((t.seats[d], s.date, max(0, int(imps(par - made)))))
    notes = []
    if skipped:
        notes.append(f"card play: {skipped} declared tables with a deal but without the four players' names "
                     f"or the tricks taken were skipped")
    return out, notes


def write_card_play(sessions, path: Path) -> list:
    """Write ``card_play.csv`` (one row per declarer per session); returns notes."""
    rows, notes = declarer_losses(sessions)
    if not rows:
        raise ImportFileError("--card-play: no table result carries a deal (PBN [Deal]) with the four "
                              "players named; nothing to solve")
    agg: dict = {}
    for player, date, lost in rows:
        b, i = agg.get((player, date), (0, 0))
        agg[(player, date)] = (b + 1, i + lost)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(CARD_PLAY_COLUMNS)
        for (player, date), (boards, lost) in sorted(agg.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            w.writerow((player, date, boards, lost))
    notes.append(f"card play: {len(rows)} declared boards solved double-dummy, {len(agg)} declarer-sessions")
    return notes
