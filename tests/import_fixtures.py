"""Results files in the shapes real scoring programs export, written from known sessions.

The fixtures in ``tests/data/import/`` come from here (``python3
tests/import_fixtures.py`` rewrites them), and so do the ~20 000 USEBIO files
of the import benchmark (``usebio_from_results``).  Published percentages
are those of a club scorer's rules as written in ``tests/naive/club_scoring.py``
(independent of simcore's scoring), rounded as the program would print them.
Names are made up.

A session here is a dict:
  event, club, club_id, date (dd/mm/yyyy), winners, event_type (USEBIO word),
  mp_type (BLACK / GREEN), pairs {label: (direction, [(name, national id), x2])},
  rows [(board, ns label, ew label, ns score or (ns %, ew %), contract, declarer, tricks)],
  teams {team: (pair label, pair label)} for team events.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from naive import club_scoring  # noqa: E402
from simcore.bridge.model import board_vulnerability, bridge_score  # noqa: E402

HERE = Path(__file__).resolve().parent / "data" / "import"
FIRST = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kit", "Lyn", "Max", "Ned", "Olive",
         "Pat", "Quin", "Ros", "Sam", "Tess", "Una", "Vic", "Wyn", "Xan", "Yves", "Zoe"]
LAST = ["Abbot", "Brook", "Carter", "Dale", "Ellis", "Frost", "Grey", "Hale", "Innes", "Judd", "Kemp", "Lowe",
        "Marsh", "Nash", "Oakes", "Penn", "Quill", "Reed", "Shaw", "Tate", "Usher", "Vale", "Webb", "Yates"]
STRAINS = ("C", "D", "H", "S", "NT")


def people(rng, n, ids=True):
    out, seen = [], set()
    while len(out) < n:
        name = f"{FIRST[rng.integers(len(FIRST))]} {LAST[rng.integers(len(LAST))]}"
        if name in seen:
            continue
        seen.add(name)
        out.append((name, str(100000 + int(rng.integers(900000))) if ids else ""))
    return out


def _contract(rng, board):
    """A board's par-ish contract and the result at one table: (contract, declarer, tricks, ns score)."""
    level = int(rng.integers(1, 7))
    strain = STRAINS[int(rng.integers(5))]
    declarer = "NESW"[int(rng.integers(4))]
    return level, strain, declarer


def _play(rng, board, par):
    level, strain, declarer = par
    if rng.random() < 0.04:
        return "PASS", "", 0, 0
    if rng.random() < 0.35:
        level = max(1, min(7, level + int(rng.integers(-1, 2))))
    dbl = "X" if rng.random() < 0.05 else ""
    tricks = int(np.clip(level + 6 + int(rng.integers(-2, 2)), 0, 13))
    vul = board_vulnerability(board)
    side_vul = vul == 3 or (vul == 1 and declarer in "NS") or (vul == 2 and declarer in "EW")
    score = bridge_score(level, strain, 1 if dbl else 0, side_vul, tricks)
    return f"{level}{strain}{dbl}", declarer, tricks, score if declarer in "NS" else -score


def mitchell(rng, tables, boards_per_round, rounds=None, sitout=False, artificial=(), ids=True,
             event="Tuesday Pairs", date="05/03/2024", mp_type="BLACK"):
    """A two-winner Mitchell (odd ``tables``: no skip needed); sitout drops EW pair ``tables``; artificial: [(row index, (ns %, ew %))]."""
    rounds = rounds or tables
    who = people(rng, 4 * tables, ids)
    pairs = {}
    for t in range(1, tables + 1):
        pairs[f"{t}NS"] = ("NS", [who[4 * t - 4], who[4 * t - 3]])
        if not (sitout and t == tables):
            pairs[f"{t}EW"] = ("EW", [who[4 * t - 2], who[4 * t - 1]])
    pars = {}
    rows = []
    for r in range(rounds):
        for t in range(1, tables + 1):
            ew = (t - 1 + r) % tables + 1
            if f"{ew}EW" not in pairs:
                continue
            bset = (t - 1 - r) % tables
            for b in range(bset * boards_per_round + 1, (bset + 1) * boards_per_round + 1):
                par = pars.setdefault(b, _contract(rng, b))
                c, d, k, sc = _play(rng, b, par)
                rows.append((b, f"{t}NS", f"{ew}EW", sc, c, d, k))
    for i, pct in artificial:
        b, ns, ew = rows[i][:3]
        rows[i] = (b, ns, ew, pct, "", "", None)
    rows.sort(key=lambda x: (x[0], x[1]))
    return dict(event=event, club="Oakfield BC", club_id="1234", date=date, winners=2, event_type="MP_PAIRS",
                mp_type=mp_type, pairs=pairs, rows=rows)


def howell(rng, n_pairs, boards_per_round, rounds, artificial=(), ids=True, event="Friday Howell",
           date="08/03/2024", mp_type="BLACK"):
    """A one-winner movement: random pairings each round, every pair at most once on a board set;
    boards end up played different numbers of times (Neuberg)."""
    who = people(rng, 2 * n_pairs, ids)
    pairs = {str(p): ("", [who[2 * p - 2], who[2 * p - 1]]) for p in range(1, n_pairs + 1)}
    n_sets = rounds + 1
    played = {p: set() for p in pairs}
    pars, rows = {}, []
    for r in range(rounds):
        order = [str(p) for p in rng.permutation(np.arange(1, n_pairs + 1))]
        free_sets = list(rng.permutation(n_sets))
        for k in range(0, len(order) - 1, 2):
            a, b = order[k], order[k + 1]
            pick = next((s for s in free_sets if s not in played[a] and s not in played[b]), None)
            if pick is None:
                continue
            free_sets.remove(pick)
            played[a].add(pick)
            played[b].add(pick)
            ns, ew = (a, b) if rng.random() < 0.5 else (b, a)
            for bd in range(int(pick) * boards_per_round + 1, (int(pick) + 1) * boards_per_round + 1):
                par = pars.setdefault(bd, _contract(rng, bd))
                c, d, k2, sc = _play(rng, bd, par)
                rows.append((bd, ns, ew, sc, c, d, k2))
    # keep boards played at least twice
    counts = {}
    for row in rows:
        counts[row[0]] = counts.get(row[0], 0) + 1
    rows = [row for row in rows if counts[row[0]] >= 2]
    for i, pct in artificial:
        b, ns, ew = rows[i][:3]
        rows[i] = (b, ns, ew, pct, "", "", None)
    rows.sort(key=lambda x: (x[0], x[1]))
    return dict(event=event, club="Oakfield BC", club_id="1234", date=date, winners=1, event_type="MP_PAIRS",
                mp_type=mp_type, pairs=pairs, rows=rows)


def swiss_pairs(rng, n_pairs, rounds, boards_per_round, event="County Swiss Pairs", date="17/03/2024"):
    """Swiss pairs scored by match points across the field: every table plays the round's boards."""
    who = people(rng, 2 * n_pairs)
    pairs = {str(p): ("", [who[2 * p - 2], who[2 * p - 1]]) for p in range(1, n_pairs + 1)}
    rows, pars = [], {}
    for r in range(rounds):
        order = [str(p) for p in rng.permutation(np.arange(1, n_pairs + 1))]
        for k in range(0, n_pairs, 2):
            ns, ew = order[k], order[k + 1]
            for b in range(r * boards_per_round + 1, (r + 1) * boards_per_round + 1):
                par = pars.setdefault(b, _contract(rng, b))
                c, d, t, sc = _play(rng, b, par)
                rows.append((b, ns, ew, sc, c, d, t))
    rows.sort(key=lambda x: (x[0], x[1]))
    return dict(event=event, club="Midshire CBA", club_id="77", date=date, winners=1, event_type="SWISS_PAIRS",
                mp_type="BLACK", pairs=pairs, rows=rows)


def swiss_teams(rng, n_teams, rounds, boards_per_round, event="County Swiss Teams", date="24/03/2024"):
    """Swiss teams: each round two teams meet at two tables on the same boards (team T's first pair
    sits NS at one table, its second pair EW at the other)."""
    who = people(rng, 4 * n_teams)
    pairs, teams = {}, {}
    for t in range(1, n_teams + 1):
        pairs[f"{t}/1"] = ("NS", [who[4 * t - 4], who[4 * t - 3]])
        pairs[f"{t}/2"] = ("EW", [who[4 * t - 2], who[4 * t - 1]])
        teams[str(t)] = (f"{t}/1", f"{t}/2")
    rows, pars = [], {}
    for r in range(rounds):
        order = [str(t) for t in rng.permutation(np.arange(1, n_teams + 1))]
        for k in range(0, n_teams, 2):
            a, b = order[k], order[k + 1]
            for bd in range(r * boards_per_round + 1, (r + 1) * boards_per_round + 1):
                par = pars.setdefault(bd, _contract(rng, bd))
                for home, away in ((a, b), (b, a)):
                    c, d, t, sc = _play(rng, bd, par)
                    rows.append((bd, f"{home}/1", f"{away}/2", sc, c, d, t))
    rows.sort(key=lambda x: (x[0], x[1]))
    return dict(event=event, club="Midshire CBA", club_id="77", date=date, winners=1, event_type="SWISS_TEAMS",
                mp_type="GREEN", pairs=pairs, rows=rows, teams=teams)


def published(session, rule="ebu", decimals=2):
    """{pair label: published text} as the scoring program prints it."""
    rows = [(r[0], r[1], r[2], r[3]) for r in session["rows"]]
    if session["event_type"] in ("BUTLER_PAIRS",):
        return {p: f"{v:.{decimals}f}" for p, v in club_scoring.butler(rows).items()}
    if session["event_type"] in ("CROSS_IMP",):
        return {p: f"{v:.{decimals}f}" for p, v in club_scoring.cross_imps(rows).items()}
    if session["event_type"] in ("SWISS_TEAMS",):
        team_of = {p: p.split("/")[0] for p in session["pairs"]}
        return {t: f"{v:.0f}" for t, v in club_scoring.team_imps(rows, team_of).items()}
    return {p: f"{v:.{decimals}f}" for p, v in club_scoring.percentages(rows, rule).items()}


# --- USEBIO ---------------------------------------------------------------------------

def _esc(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _player_xml(name, nat, club_id=""):
    out = f"<PLAYER><PLAYER_NAME>{_esc(name)}</PLAYER_NAME>"
    if nat:
        out += f"<NATIONAL_ID_NUMBER>{nat}</NATIONAL_ID_NUMBER>"
    if club_id:
        out += f"<CLUB_ID_NUMBER>{club_id}</CLUB_ID_NUMBER>"
    return out + "</PLAYER>"


def _teams_xml(session, pub):
    parts = []
    for team, (p1, p2) in session["teams"].items():
        players = session["pairs"][p1][1] + session["pairs"][p2][1]
        parts.append(f"<TEAM><TEAM_NUMBER>{team}</TEAM_NUMBER><TOTAL_SCORE>{pub[team]}</TOTAL_SCORE>"
                     + "".join(_player_xml(n, i) for n, i in players) + "</TEAM>")
    return "<PARTICIPANTS>" + "".join(parts) + "</PARTICIPANTS>"


def _pairs_xml(session, shape, pub):
    if session.get("teams"):
        return _teams_xml(session, pub)
    parts = []
    for label, (direction, players) in session["pairs"].items():
        num = label[:-2] if label.endswith(("NS", "EW")) else label
        shown = label if shape == "scorebridge" else num
        x = f"<PAIR><PAIR_NUMBER>{shown}</PAIR_NUMBER>"
        if direction and shape != "scorebridge":
            x += f"<DIRECTION>{direction}</DIRECTION>"
        if label in pub:
            tag = "TOTAL_SCORE" if session["event_type"] in ("BUTLER_PAIRS", "CROSS_IMP") else "PERCENTAGE"
            x += f"<{tag}>{pub[label]}</{tag}>"
        if shape == "pianola":
            x += f"<MASTER_POINTS><MASTER_POINT_TYPE>{session['mp_type']}</MASTER_POINT_TYPE>" \
                 f"<MASTER_POINTS_AWARDED>0</MASTER_POINTS_AWARDED></MASTER_POINTS>"
        x += "".join(_player_xml(n, i, session["club_id"] if shape == "ebuscore" else "") for n, i in players)
        parts.append(x + "</PAIR>")
    return "<PARTICIPANTS>" + "".join(parts) + "</PARTICIPANTS>"


def _boards_xml(session, shape):
    out, cur = [], None
    for (b, ns, ew, sc, c, d, k) in session["rows"]:
        if b != cur:
            if cur is not None:
                out.append("</BOARD>")
            out.append(f"<BOARD><BOARD_NUMBER>{b}</BOARD_NUMBER>")
            cur = b
        n_ns = ns[:-2] if ns.endswith("NS") else ns
        n_ew = ew[:-2] if ew.endswith("EW") else ew
        if shape == "scorebridge":
            n_ns, n_ew = ns, ew
        if session.get("teams"):
            x = (f"<TRAVELLER_LINE><NS_TEAM_NUMBER>{ns.split('/')[0]}</NS_TEAM_NUMBER>"
                 f"<EW_TEAM_NUMBER>{ew.split('/')[0]}</EW_TEAM_NUMBER>")
        else:
            x = f"<TRAVELLER_LINE><NS_PAIR_NUMBER>{n_ns}</NS_PAIR_NUMBER><EW_PAIR_NUMBER>{n_ew}</EW_PAIR_NUMBER>"
        if isinstance(sc, tuple):
            x += f"<SCORE>A{int(sc[0]):02d}{int(sc[1]):02d}</SCORE>"
        else:
            x += f"<CONTRACT>{c}</CONTRACT>"
            if c != "PASS":
                x += f"<PLAYED_BY>{d}</PLAYED_BY><TRICKS>{k}</TRICKS>"
            if shape == "scorebridge":
                x += f"<NS_SCORE>{sc}</NS_SCORE>" if sc >= 0 else f"<EW_SCORE>{-sc}</EW_SCORE>"
            elif shape == "pianola" and b % 3 == 0:
                pass  # Pianola-like: some lines carry no score; the reader computes it
            else:
                x += f"<SCORE>{sc}</SCORE>"
        out.append(x + "</TRAVELLER_LINE>")
    out.append("</BOARD>")
    return "".join(out)


def usebio(sessions, shape="ebuscore", rule="ebu", event_type=None):
    """USEBIO text: ``ebuscore`` (1.2, flat), ``scorebridge`` (1.3, flat, 1NS/1EW, NS_SCORE/EW_SCORE),
    ``pianola`` (1.3, EVENT/SESSION/SECTION with one section per session dict, MASTER_POINTS wrapper,
    some lines without a score)."""
    first = sessions[0]
    version = "1.2" if shape == "ebuscore" else "1.3"
    etype = event_type or first["event_type"]
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n<USEBIO Version="{version}">'
            f"<CLUB><CLUB_NAME>{_esc(first['club'])}</CLUB_NAME><CLUB_ID_NUMBER>{first['club_id']}"
            f"</CLUB_ID_NUMBER></CLUB>\n<EVENT EVENT_TYPE=\"{etype}\">"
            f"<EVENT_DESCRIPTION>{_esc(first['event'])}</EVENT_DESCRIPTION>"
            f"<PROGRAM_NAME>{ {'ebuscore': 'EBUScore', 'scorebridge': 'ScoreBridge', 'pianola': 'Pianola'}[shape] }"
            f"</PROGRAM_NAME><WINNER_TYPE>{first['winners']}</WINNER_TYPE><DATE>{first['date']}</DATE>")
    head += "<P2P_CHARGE_RATE>0.5</P2P_CHARGE_RATE>" if version == "1.2" else "<EBU_CHARGE_CODE>C</EBU_CHARGE_CODE>"
    if shape != "pianola":
        head += f"<MASTER_POINT_TYPE>{first['mp_type']}</MASTER_POINT_TYPE>"
    if shape == "pianola":
        body = "<SESSION><SESSION_ID>1</SESSION_ID>"
        for k, s in enumerate(sessions, 1):
            body += (f"<SECTION><SECTION_ID>{'ABCDEFGH'[k - 1]}</SECTION_ID>"
                     + _pairs_xml(s, shape, published(s, rule)) + _boards_xml(s, shape) + "</SECTION>")
        body += "</SESSION>"
    else:
        body = _pairs_xml(first, shape, published(first, rule)) + _boards_xml(first, shape)
    return head + body + "</EVENT>\n</USEBIO>\n"


def _pair_labels(session):
    """Pairs known only by a label: the label written as both players' names."""
    session["pairs"] = {p: (d, [(f"Pair {p}", ""), (f"Pair {p}", "")]) for p, (d, _) in session["pairs"].items()}
    return session


def _make_artificial(session):
    """Artificial scores where the EBU rule matters: average-plus to the best NS pair (above 60 %),
    average-minus to the worst EW pair (below 40 %), and an A5050, A6060 and A4040 elsewhere."""
    rows = session["rows"]
    best_ns, worst_ew = "1NS", "2EW"
    # swap results between tables (contracts travel with their scores) so that 1NS holds the
    # board's best NS score and 2EW faces the best NS score of the remaining tables
    for who, col in ((best_ns, 1), (worst_ew, 2)):
        for i, r in enumerate(rows):
            if r[col] != who:
                continue
            others = [j for j, q in enumerate(rows) if q[0] == r[0] and q[1] != best_ns or j == i]
            j = max(others, key=lambda j: rows[j][3])
            if j != i:
                a, b = rows[i], rows[j]
                rows[i], rows[j] = a[:3] + b[3:], b[:3] + a[3:]
    picks = [next(i for i, r in enumerate(rows) if r[1] == best_ns), None, None, None, None]
    picks[1] = next(i for i, r in enumerate(rows) if r[2] == worst_ew and i not in picks)
    for k, i in enumerate(range(7, len(rows), 19)):
        if k >= 3:
            break
        while i in picks:
            i += 1
        picks[2 + k] = i
    for i, score in zip(picks, [(60.0, 40.0), (60.0, 40.0), (50.0, 50.0), (60.0, 60.0), (40.0, 40.0)]):
        b, ns, ew = rows[i][:3]
        rows[i] = (b, ns, ew, score, "", "", None)


# --- PBN -------------------------------------------------------------------------------

def random_deal(rng):
    """A PBN deal text ``N:spades.hearts.diamonds.clubs ...`` for N, E, S, W."""
    cards = rng.permutation(52)
    ranks = "AKQJT98765432"
    hands = []
    for h in range(4):
        mine = sorted(cards[13 * h:13 * h + 13])
        suits = ["".join(ranks[c % 13] for c in mine if c // 13 == s) for s in range(4)]
        hands.append(".".join(suits))
    return "N:" + " ".join(hands)


def _vul_word(board):
    return ("None", "NS", "EW", "All")[board_vulnerability(board)]


def pbn_tables(session, rng, crlf=True, date="2024.03.12", with_deal=True):
    """Per-table records: one game per table per board, no [Score] (the reader computes it)."""
    lines = ['% PBN 2.1', '% EXPORT', '']
    deals = {}
    for (b, ns, ew, sc, c, d, k) in session["rows"]:
        if isinstance(sc, tuple):
            continue
        npl, spl = session["pairs"][ns][1]
        epl, wpl = session["pairs"][ew][1]
        deals.setdefault(b, random_deal(rng))
        lines += [f'[Event "{session["event"]}"]', f'[Site "{session["club"]}"]', f'[Date "{date}"]',
                  f'[Board "{b}"]', f'[West "{wpl[0]}"]', f'[North "{npl[0]}"]', f'[East "{epl[0]}"]',
                  f'[South "{spl[0]}"]', f'[Dealer "{"NESW"[(b - 1) % 4]}"]', f'[Vulnerable "{_vul_word(b)}"]']
        if with_deal:
            lines.append(f'[Deal "{deals[b]}"]')
        lines += ['[Scoring "MP"]', f'[Declarer "{d}"]', f'[Contract "{"Pass" if c == "PASS" else c}"]',
                  f'[Result "{k if c != "PASS" else ""}"]', ""]
    pub = published(session)
    lines += [f'[Event "{session["event"]}"]', f'[Site "{session["club"]}"]', f'[Date "{date}"]',
              '[TotalScoreTable "Rank\\2R;TotalPercentage\\6R;Names\\40L"]']
    for i, label in enumerate(sorted(pub, key=lambda p: -float(pub[p])), 1):
        names = [n for n, _ in session["pairs"][label][1]]
        shown = names[0] if names[0] == names[1] else " - ".join(names)
        lines.append(f'{i:>2} {pub[label]:>6} "{shown}"')
    lines.append("")
    return ("\r\n" if crlf else "\n").join(lines)


def pbn_score_tables(session, rng, date="2024.03.14", crlf=True):
    """ScoreTable per board and a TotalScoreTable with the published percentages and the pairs' names
    (pair numbers as ids)."""
    pub = published(session)
    out = ['% PBN 2.1', '% EXPORT', '']
    by_board = {}
    for row in session["rows"]:
        by_board.setdefault(row[0], []).append(row)
    for b, rows in sorted(by_board.items()):
        out += [f'[Event "{session["event"]}"]', f'[Site "{session["club"]}"]', f'[Date "{date}"]',
                f'[Board "{b}"]', f'[Dealer "{"NESW"[(b - 1) % 4]}"]', f'[Vulnerable "{_vul_word(b)}"]',
                f'[Deal "{random_deal(rng)}"]',
                '[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;Result\\2R;'
                'Score_NS\\6R;Score_EW\\6R"]']
        for (_, ns, ew, sc, c, d, k) in rows:
            n_ns = ns[:-2] if ns.endswith("NS") else ns
            n_ew = ew[:-2] if ew.endswith("EW") else ew
            if isinstance(sc, tuple):
                out.append(f'{n_ns:>2} {n_ew:>2} A{int(sc[0]):02d}{int(sc[1]):02d} - - - -')
            elif c == "PASS":
                out.append(f'{n_ns:>2} {n_ew:>2} Pass  - -      0      -')
            else:
                sns, sew = (str(sc), "-") if sc >= 0 else ("-", str(-sc))
                out.append(f'{n_ns:>2} {n_ew:>2} {c:<5} {d} {k:>2} {sns:>6} {sew:>6}')
        out.append("")
    out += [f'[Event "{session["event"]}"]', f'[Site "{session["club"]}"]', f'[Date "{date}"]',
            '[TotalScoreTable "Rank\\2R;PairId\\2R;Direction\\2R;TotalPercentage\\6R;Names\\40L"]']
    ranked = sorted(session["pairs"], key=lambda p: -float(pub.get(p, 0)))
    for i, label in enumerate(ranked, 1):
        direction, players = session["pairs"][label]
        num = label[:-2] if label.endswith(("NS", "EW")) else label
        names = " - ".join(n for n, _ in players)
        out.append(f'{i:>2} {num:>2} {direction or "-":>2} {pub.get(label, "-"):>6} "{names}"')
    out.append("")
    return ("\r\n" if crlf else "\n").join(out)


# --- BridgeWebs ---------------------------------------------------------------------------

def bridgewebs(session, date="19/03/2024"):
    pub = published(session)
    out = ["#EVENT", "Club,Event,Date,Winners", f"{session['club']},{session['event']},{date},{session['winners']}",
           "#SCORES", "Pair,Dir,Player1,Player2,Id1,Id2,Percentage"]
    for label, (direction, players) in session["pairs"].items():
        num = label[:-2] if label.endswith(("NS", "EW")) else label
        out.append(f"{num},{direction},{players[0][0]},{players[1][0]},{players[0][1]},{players[1][1]},"
                   f"{pub.get(label, '')}")
    out += ["#TRAVELLERS", "Board,NS,EW,Contract,By,Tricks,NSScore,EWScore"]
    for (b, ns, ew, sc, c, d, k) in session["rows"]:
        n_ns = ns[:-2] if ns.endswith("NS") else ns
        n_ew = ew[:-2] if ew.endswith("EW") else ew
        if isinstance(sc, tuple):
            out.append(f"{b},{n_ns},{n_ew},,,,A{int(sc[0]):02d}{int(sc[1]):02d},")
        else:
            sns, sew = (str(sc), "") if sc >= 0 else ("", str(-sc))
            out.append(f"{b},{n_ns},{n_ew},{c},{d},{'' if k is None else k},{sns},{sew}")
    return "\r\n".join(out) + "\r\n"


def write_all(folder=HERE):
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20240305)
    files = {}
    files["usebio_ebuscore_mitchell_v12.xml"] = usebio([mitchell(rng, 7, 3)], "ebuscore")
    files["usebio_scorebridge_mitchell_sitout_v13.xml"] = usebio(
        [mitchell(rng, 7, 3, sitout=True, event="Wednesday Pairs", date="06/03/2024")], "scorebridge")
    files["usebio_ebuscore_howell_v12.xml"] = usebio([howell(rng, 10, 3, 7)], "ebuscore")
    files["usebio_pianola_sections_v13.xml"] = usebio(
        [mitchell(rng, 5, 3, event="Congress Pairs", date="09/03/2024", mp_type="GREEN"),
         mitchell(rng, 5, 4, event="Congress Pairs", date="09/03/2024", mp_type="GREEN")], "pianola")
    art = mitchell(rng, 7, 3, event="Thursday Pairs", date="07/03/2024")
    _make_artificial(art)
    files["usebio_ebuscore_artificial_v12.xml"] = usebio([art], "ebuscore")
    files["pbn_tables_mitchell.pbn"] = pbn_tables(
        mitchell(rng, 5, 3, ids=False, event="Tuesday Pairs", date="12/03/2024"), rng)
    files["pbn_tables_howell_pair_labels.txt"] = pbn_tables(
        _pair_labels(howell(rng, 8, 3, 5, ids=False, event="Friday Howell", date="15/03/2024")), rng,
        date="2024.03.15", with_deal=False)
    files["pbn_scoretable_mitchell.pbn"] = pbn_score_tables(
        mitchell(rng, 5, 4, ids=False, event="Thursday Pairs", date="14/03/2024"), rng)
    butler = mitchell(rng, 7, 3, event="Butler Pairs", date="10/03/2024")
    butler["event_type"] = "BUTLER_PAIRS"
    files["usebio_ebuscore_butler_v12.xml"] = usebio([butler], "ebuscore")
    cross = howell(rng, 8, 3, 6, event="Cross-IMP Pairs", date="11/03/2024")
    cross["event_type"] = "CROSS_IMP"
    files["usebio_scorebridge_cross_imp_v13.xml"] = usebio([cross], "scorebridge")
    files["usebio_ebuscore_swiss_pairs_v12.xml"] = usebio([swiss_pairs(rng, 12, 4, 4)], "ebuscore")
    files["usebio_ebuscore_swiss_teams_v12.xml"] = usebio([swiss_teams(rng, 8, 4, 5)], "ebuscore")
    bw = mitchell(rng, 7, 3, event="Tuesday Pairs", date="19/03/2024")
    _make_artificial(bw)
    files["bridgewebs_mitchell.csv"] = bridgewebs(bw)
    files["bridgewebs_howell.csv"] = bridgewebs(howell(rng, 9, 3, 6, event="Friday Howell"), date="22/03/2024")
    for name, text in files.items():
        with open(folder / name, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    return files


if __name__ == "__main__":
    for name in write_all():
        print(HERE / name)


# --- simulated results as USEBIO files (the import benchmark) ----------------------------------

def session_from_results(results, s, club_ids=None):
    """Session ``s`` of a simcore ``Results`` (match-pointed pairs) as a fixture session dict."""
    r = results
    t0, t1 = np.searchsorted(r.trav_session, [s, s + 1])
    names = r.player_names
    two = int(r.session_winners[s]) == 2
    labels, pairs, rows = {}, {}, []
    for t in range(t0, t1):
        for side, seat in (("NS", r.trav_ns[t]), ("EW", r.trav_ew[t])):
            key = tuple(sorted(int(x) for x in seat))
            if key not in labels:
                if two:
                    num = 1 + sum(1 for lab in labels.values() if lab.endswith(side))
                    labels[key] = f"{num}{side}"
                else:
                    labels[key] = str(len(labels) + 1)
                pairs[labels[key]] = (side if two else "", [(f"Player {names[p]}", str(100000 + p)) for p in key])
        ns = labels[tuple(sorted(int(x) for x in r.trav_ns[t]))]
        ew = labels[tuple(sorted(int(x) for x in r.trav_ew[t]))]
        rows.append((int(r.trav_board[t]), ns, ew, int(r.trav_ns_score[t]), "", "", None))
    rows.sort(key=lambda x: (x[0], x[1]))
    date = str(np.datetime64(int(r.session_day[s]), "D"))
    club = str(r.club_names[r.session_club[s]])
    return dict(event=f"Pairs {r.session_names[s]}", club=club, club_id=str(r.session_club[s] + 1000),
                date=f"{date[8:10]}/{date[5:7]}/{date[0:4]}", winners=2 if two else 1, event_type="MP_PAIRS",
                mp_type="BLACK", pairs=pairs, rows=rows)


def _usebio_scores_only(session, pub):
    """USEBIO 1.2 text of a session whose travellers carry scores only (as EBUScore uploads them)."""
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n<USEBIO Version="1.2"><CLUB><CLUB_NAME>{_esc(session["club"])}'
            f'</CLUB_NAME><CLUB_ID_NUMBER>{session["club_id"]}</CLUB_ID_NUMBER></CLUB>\n'
            f'<EVENT EVENT_TYPE="MP_PAIRS"><EVENT_DESCRIPTION>{_esc(session["event"])}</EVENT_DESCRIPTION>'
            f'<PROGRAM_NAME>EBUScore</PROGRAM_NAME><WINNER_TYPE>{session["winners"]}</WINNER_TYPE>'
            f'<DATE>{session["date"]}</DATE><MASTER_POINT_TYPE>BLACK</MASTER_POINT_TYPE>')
    parts = [head, _pairs_xml(session, "ebuscore", pub)]
    cur = None
    for (b, ns, ew, sc, _, _, _) in session["rows"]:
        if b != cur:
            parts.append(("</BOARD>" if cur is not None else "") + f"<BOARD><BOARD_NUMBER>{b}</BOARD_NUMBER>")
            cur = b
        n_ns = ns[:-2] if ns.endswith("NS") else ns
        n_ew = ew[:-2] if ew.endswith("EW") else ew
        parts.append(f"<TRAVELLER_LINE><NS_PAIR_NUMBER>{n_ns}</NS_PAIR_NUMBER><EW_PAIR_NUMBER>{n_ew}"
                     f"</EW_PAIR_NUMBER><SCORE>{sc}</SCORE></TRAVELLER_LINE>")
    parts.append("</BOARD></EVENT>\n</USEBIO>\n")
    return "".join(parts)


def usebio_from_results(results, folder, limit=20000):
    """Write up to ``limit`` match-pointed Mitchell/Howell sessions of ``results`` as USEBIO files
    (one a file, published percentages from the plain-Python scorer); returns the number written."""
    from simcore.results import KIND_HOWELL, KIND_MITCHELL, SCORING_MP
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ok = np.flatnonzero((results.session_scoring == SCORING_MP)
                        & np.isin(results.session_kind, [KIND_MITCHELL, KIND_HOWELL]))[:limit]
    for k, s in enumerate(ok):
        session = session_from_results(results, int(s))
        pub = published(session)
        sub = folder / f"club{results.session_club[s]:04d}"
        sub.mkdir(exist_ok=True)
        (sub / f"{k:06d}.xml").write_text(_usebio_scores_only(session, pub), encoding="utf-8")
    return len(ok)


def usebio_from_bundle(bundle, folder, limit=20000, chunk=1_000_000):
    """``usebio_from_results`` straight from a bundle folder's CSV files, reading travellers in chunks
    (a national year's bundle has ~13 M of them; the first ``limit`` club sessions need a third)."""
    import pandas as pd

    from simcore.io.bundle import read_bundle  # noqa: F401  (same columns as the reader)
    bundle, folder = Path(bundle), Path(folder)
    sess = pd.read_csv(bundle / "sessions.csv", dtype=str, keep_default_na=False)
    kind = sess["movement"].str.split(":").str[0]
    ok = sess[(sess["scoring"] == "mp") & kind.isin(["mitchell", "howell"])].head(limit)
    meta = ok.set_index("session")
    wanted = set(ok["session"])
    last = ok["session"].iloc[-1]
    written = 0
    folder.mkdir(parents=True, exist_ok=True)
    pending = None
    for part in pd.read_csv(bundle / "travellers.csv", dtype=str, keep_default_na=False, chunksize=chunk):
        if pending is not None:
            part = pd.concat([pending, part])
        tail_session = part["session"].iloc[-1]
        pending = part[part["session"] == tail_session]
        done = part[part["session"] != tail_session]
        for name, rows in done.groupby("session", sort=False):
            if name in wanted:
                _write_bundle_session(meta.loc[name], name, rows, folder, written)
                written += 1
        if last in set(done["session"]) or written >= len(wanted):
            break
    else:
        if pending is not None and len(pending):
            name = pending["session"].iloc[0]
            if name in wanted:
                _write_bundle_session(meta.loc[name], name, pending, folder, written)
                written += 1
    return written


def _write_bundle_session(m, name, rows, folder, k):
    two = m["winners"] == "2"
    labels, pairs, out = {}, {}, []
    ns1, ns2, ew1, ew2 = (rows[c].to_numpy() for c in ("ns1", "ns2", "ew1", "ew2"))
    boards = rows["board"].astype(int).to_numpy()
    scores = rows["ns_score"].astype(int).to_numpy()
    for i in range(len(rows)):
        lab = []
        for side, seat in (("NS", (ns1[i], ns2[i])), ("EW", (ew1[i], ew2[i]))):
            key = tuple(sorted(seat))
            if key not in labels:
                if two:
                    labels[key] = f"{1 + sum(1 for v in labels.values() if v.endswith(side))}{side}"
                else:
                    labels[key] = str(len(labels) + 1)
                pairs[labels[key]] = (side if two else "",
                                      [(f"Player {p}", f"{p[:1].upper()}{100000 + int(p[1:])}" if p[1:].isdigit() else "")
                                       for p in key])
            lab.append(labels[key])
        out.append((int(boards[i]), lab[0], lab[1], int(scores[i]), "", "", None))
    out.sort(key=lambda x: (x[0], x[1]))
    d = m["date"]
    session = dict(event=f"Pairs {name}", club=m["club"], club_id=m["club"], date=f"{d[8:10]}/{d[5:7]}/{d[0:4]}",
                   winners=2 if two else 1, event_type="MP_PAIRS", mp_type="BLACK", pairs=pairs, rows=out)
    sub = folder / str(m["club"]).replace("/", "_")
    sub.mkdir(exist_ok=True)
    (sub / f"{k:06d}.xml").write_text(_usebio_scores_only(session, published(session)), encoding="utf-8")
