"""simcore import: real results files to a bundle, scored as the club's scorer scored them."""

import csv
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from simcore.cli import main as cli_main
from simcore.io.imported import ImportFileError, ns_score_of, parse_contract
from simcore.io.importer import import_paths
from simcore.scoring.adjusted import assigned_percent, session_percent

DATA = Path(__file__).parent / "data" / "import"
FIXTURES = sorted(p.name for p in DATA.iterdir() if p.is_file())


def _scores(folder):
    with open(Path(folder) / "session_scores.csv", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def each_fixture(tmp_path_factory):
    """Every fixture imported on its own: {file: (summary, session_scores rows)}."""
    out = {}
    for name in FIXTURES:
        folder = tmp_path_factory.mktemp("imp") / "bundle"
        summary, _, _ = import_paths([DATA / name], folder)
        out[name] = (summary, _scores(folder))
    return out


@pytest.mark.parametrize("name", FIXTURES)
def test_percentages_equal_the_published_ones_to_the_files_rounding(each_fixture, name):
    summary, rows = each_fixture[name]
    compared = [r for r in rows if r["published_percentage"]]
    assert compared, f"{name}: nothing published to compare"
    for r in compared:
        decimals = len(r["published_percentage"].split(".")[1]) if "." in r["published_percentage"] else 0
        half = 0.5 * 10.0 ** -decimals
        assert abs(float(r["percentage"]) - float(r["published_percentage"])) <= half + 1e-9, r
    assert summary.worst_mp <= summary.worst_mp_rounding + 1e-9 or not np.isfinite(summary.worst_mp)


def test_a_different_artificial_rule_moves_the_percentages_off_the_published_ones(tmp_path):
    src = DATA / "usebio_ebuscore_artificial_v12.xml"
    summary, _, _ = import_paths([src], tmp_path / "flat", rule="flat")
    rows = _scores(tmp_path / "flat")
    worst = max(abs(float(r["percentage"]) - float(r["published_percentage"])) for r in rows)
    assert worst > 0.01  # the fixture was published under the EBU rule: the test can fail


def test_artificial_rule_ebu():
    # average-plus: 60 or the pair's own % if higher; average-minus: 40 or lower
    got = assigned_percent([60, 60, 40, 40, 50, 70], [55.0, 65.0, 45.0, 35.0, 80.0, 20.0], "ebu")
    assert got.tolist() == [60.0, 65.0, 40.0, 35.0, 50.0, 70.0]
    assert assigned_percent([60, 40], [65.0, 35.0], "flat").tolist() == [60.0, 40.0]
    # 20 boards at 55 % and one average-plus: (20 * 55 + 60) / 21
    assert session_percent(55.0, 20, [60.0]) == pytest.approx((20 * 55 + 60) / 21)
    assert session_percent(62.0, 20, [60.0]) == pytest.approx(62.0)
    with pytest.raises(ValueError, match="acbl"):
        assigned_percent([60], [50], "acbl")


def test_bundle_is_graded_and_players_carry_national_ids(tmp_path):
    import_paths([DATA], tmp_path / "b")
    with open(tmp_path / "b" / "players.csv", newline="") as fh:
        players = list(csv.DictReader(fh))
    with_id = [p for p in players if p["national_id"]]
    assert with_id and all(p["player"] == p["national_id"] and p["member"] == "true" for p in with_id)
    # players without a national id (PBN names, pair identities) are the NGS's unknown players
    without = [p for p in players if not p["national_id"]]
    assert without and all(p["player"] == p["name"] or "#" in p["player"] for p in without)
    assert all(p["member"] == "false" for p in without)
    assert cli_main(["grade", str(tmp_path / "b"), "--scheme", "ngs", "--out", str(tmp_path / "g.csv")]) == 0
    with open(tmp_path / "g.csv") as fh:
        assert len(fh.readlines()) > 100


def test_sessions_from_every_shape(each_fixture):
    pianola = each_fixture["usebio_pianola_sections_v13.xml"][1]
    assert {r["session"].rsplit("|", 1)[1] for r in pianola} == {"A", "B"}  # one session per section
    howell = each_fixture["usebio_ebuscore_howell_v12.xml"][1]
    assert {r["direction"] for r in howell} == {"-"}


def test_the_same_session_exported_twice_is_counted_once(tmp_path):
    src = DATA / "usebio_ebuscore_mitchell_v12.xml"
    a, b = tmp_path / "in" / "first.xml", tmp_path / "in" / "again.dat"
    a.parent.mkdir()
    shutil.copy(src, a)
    text = src.read_text().replace("<SCORE>420</SCORE>", "<SCORE>450</SCORE>", 1)
    b.write_text(text)
    os.utime(a, (1_700_000_000, 1_700_000_000))
    os.utime(b, (1_700_000_100, 1_700_000_100))  # the adjusted re-export is the later file
    summary, results, _ = import_paths([tmp_path / "in"], tmp_path / "out")
    assert summary.sessions == 1
    assert any("again.dat" in n and "first.xml" in n for n in summary.notes)
    assert 450 in results.trav_ns_score


def test_contract_scores():
    assert ns_score_of(1, "4H", "N", "10", "f", "") == 420
    assert ns_score_of(2, "4H", "S", "10", "f", "") == 620          # NS vulnerable
    assert ns_score_of(1, "3NT", "E", "+1", "f", "") == -430
    assert ns_score_of(4, "1NTX", "W", "5", "f", "") == 500          # 2 down doubled vulnerable
    assert ns_score_of(1, "PASS", "", "", "f", "") == 0
    assert ns_score_of(13, "7NTXX", "N", "=", "f", "") == 2980
    assert parse_contract("2S**", "f", "") == (2, "S", 2)


BAD = [
    ("<USEBIO Version='1.2'><EVENT EVENT_TYPE='MP_PAIRS'><DATE>01/02/2024", "malformed XML"),
    ("EVENT_TYPE=\"MP_PAIRS\"", "unknown event type 'BRIDGE_BINGO'"),
    ("<NS_PAIR_NUMBER>1</NS_PAIR_NUMBER>", "pair '99' is not among the participants"),
    ("<CONTRACT>4H</CONTRACT>", "contract '4Q' is not readable"),
    ("<DATE>05/03/2024</DATE>", "date 'March 5th' is not a date in a known form"),
]


@pytest.mark.parametrize("change, message", BAD)
def test_bad_input_names_file_element_and_value_and_writes_nothing(tmp_path, change, message):
    text = (DATA / "usebio_ebuscore_mitchell_v12.xml").read_text()
    if message == "malformed XML":
        text = change
    else:
        new = {"unknown event type 'BRIDGE_BINGO'": "EVENT_TYPE=\"BRIDGE_BINGO\"",
               "pair '99' is not among the participants": "<NS_PAIR_NUMBER>99</NS_PAIR_NUMBER>",
               "contract '4Q' is not readable": "<CONTRACT>4Q</CONTRACT><SCORE_DROPPED/>",
               "date 'March 5th' is not a date in a known form": "<DATE>March 5th</DATE>"}[message]
        assert change in text
        text = text.replace(change, new, 1)
        if "4Q" in new:  # no score on that line, so the contract must be read
            i = text.index("<SCORE_DROPPED/>")
            j = text.index("</TRAVELLER_LINE>", i)
            text = text[:i] + text[j:]
    bad = tmp_path / "club.xml"
    bad.write_text(text)
    out = tmp_path / "out"
    with pytest.raises(ImportFileError) as err:
        import_paths([bad], out)
    assert str(bad) in str(err.value) and message in str(err.value)
    if message != "malformed XML":
        assert "EVENT 1" in str(err.value)
    else:
        assert "line 1" in str(err.value)
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_cli_prints_one_line_and_refuses_a_full_out(tmp_path, capsys):
    assert cli_main(["import", str(DATA / "usebio_ebuscore_howell_v12.xml"), "--out", str(tmp_path / "o")]) == 0
    line = capsys.readouterr().out.strip()
    assert "sessions" in line and "travellers" in line and "worst |percentage - published|" in line
    assert cli_main(["import", str(DATA), "--out", str(tmp_path / "o")]) == 2
    assert "already exists" in capsys.readouterr().err


def test_a_named_file_that_is_no_results_file_is_an_error(tmp_path):
    f = tmp_path / "notes.xml"
    f.write_text("hello")
    with pytest.raises(ImportFileError, match="notes.xml: not a USEBIO XML, PBN or BridgeWebs CSV"):
        import_paths([f], tmp_path / "o")


def test_pbn_per_table_records_crlf_without_scores(each_fixture):
    raw = (DATA / "pbn_tables_mitchell.pbn").read_bytes()
    assert b"\r\n" in raw and b"[Score " not in raw  # scores come from contract, declarer, tricks
    summary, rows = each_fixture["pbn_tables_mitchell.pbn"]
    assert summary.sessions == 1 and len(rows) == 10
    assert {r["direction"] for r in rows} == {"NS", "EW"}


def test_pbn_pair_labels_become_session_scoped_pair_identities(each_fixture):
    _, rows = each_fixture["pbn_tables_howell_pair_labels.txt"]
    for r in rows:
        assert r["player1"].endswith("#1") and r["player2"].endswith("#2")
        assert r["player1"].startswith("Oakfield BC|2024-03-15|Pair ")


def test_pbn_score_table_and_bridgewebs_read_pair_numbers(each_fixture):
    _, rows = each_fixture["pbn_scoretable_mitchell.pbn"]
    assert {r["pair"] for r in rows} >= {"1NS", "1EW"}
    summary, rows = each_fixture["bridgewebs_mitchell.csv"]
    assert summary.artificial == 5 and {r["pair"] for r in rows} >= {"1NS", "7EW"}


def test_bad_pbn_and_bridgewebs_lines_are_named(tmp_path):
    text = (DATA / "pbn_tables_mitchell.pbn").read_bytes().decode()
    bad = tmp_path / "a.pbn"
    bad.write_bytes(text.replace('[Contract "', '[Contract "9', 1).encode())
    with pytest.raises(ImportFileError, match=r"a\.pbn, line \d+ \(board \d+\): contract '9"):
        import_paths([bad], tmp_path / "o")
    text = (DATA / "bridgewebs_mitchell.csv").read_bytes().decode()
    bad = tmp_path / "b.csv"
    bad.write_bytes(text.replace("#TRAVELLERS\r\nBoard,NS,EW,Contract,By,Tricks,NSScore,EWScore\r\n1,1,",
                                "#TRAVELLERS\r\nBoard,NS,EW,Contract,By,Tricks,NSScore,EWScore\r\n1,42,").encode())
    with pytest.raises(ImportFileError, match=r"b\.csv, line \d+: pair '42' is not in #SCORES"):
        import_paths([bad], tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_card_play_imps_lost_against_double_dummy():
    from simcore.io.card_play import declarer_losses
    from simcore.io.imported import ImportedSession, Pair, Traveller
    deal = "N:98.95.JT9865.543 K6.84.Q7432.AK76 QJ7543.KQ62.A.J8 AT2.AJT73.K.QT92"
    s = ImportedSession("f.pbn", "e", "c", 19800, "club", "mp", 2, "mitchell")
    s.pairs = {"a": Pair("a", ("n", "s"), "NS"), "b": Pair("b", ("e", "w"), "EW")}
    s.deals = {1: ("N", "None", deal)}
    seats = {"N": "n", "E": "e", "S": "s", "W": "w"}
    # double dummy: North makes 6 tricks in spades, East 11 in hearts (endplay's table for this deal)
    s.travellers = [Traveller(1, "a", "b", -150, None, "2S", "N", 5, "", "t1", seats),   # -150 vs -100: 2 IMPs
                    Traveller(1, "a", "b", 110, None, "2S", "N", 8, "", "t2", seats),    # beat double dummy: 0
                    Traveller(1, "a", "b", -420, None, "4H", "E", 10, "", "t3", seats)]  # 420 vs 450: 1 IMP
    rows, notes = declarer_losses([s])
    assert rows == [("n", "2024-03-18", 2), ("n", "2024-03-18", 0), ("e", "2024-03-18", 1)]


def test_card_play_cli_writes_a_file_imps_lost_grades(tmp_path):
    out = tmp_path / "cp"
    import_paths([DATA / "pbn_tables_mitchell.pbn"], out, card_play=True)
    with open(out / "card_play.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and sum(int(r["boards"]) for r in rows) > 50
    assert cli_main(["grade", str(out), "--scheme", "imps-lost", "--out", str(tmp_path / "il.csv")]) == 0


def test_grade_reads_results_files_directly_and_counts_a_repeated_export_once(tmp_path, capsys):
    src = DATA / "usebio_ebuscore_mitchell_v12.xml"
    copy = tmp_path / "copy.xml"
    shutil.copy(src, copy)
    direct = tmp_path / "direct.csv"
    assert cli_main(["grade", str(src), str(copy), "--scheme", "ngs", "--out", str(direct)]) == 0
    err = capsys.readouterr().err
    assert "imported: 1 sessions" in err and "using" in err
    import_paths([src], tmp_path / "b")
    via = tmp_path / "via.csv"
    assert cli_main(["grade", str(tmp_path / "b"), "--scheme", "ngs", "--out", str(via)]) == 0
    assert direct.read_text() == via.read_text()
    assert cli_main(["grade", str(src), "--scheme", "ngs", "--set", "gain=x", "--out", str(direct)]) == 2


def test_describe_counts_and_partner_shares():
    from simcore.io.bundle import read_bundle
    from simcore.metrics.describe import describe
    from simcore.scoring import score_results
    res = read_bundle(Path(__file__).parent / "data" / "bundle_small")
    got = describe(res, score_results(res))
    assert got["sessions"] == res.n_sessions and got["travellers"] == res.n_travellers
    share = got["partner_share"]["values"]
    assert ((share > 0) & (share <= 1)).all()


def test_describe_cli_beside_a_scenario_writes_a_figure(tmp_path, capsys):
    assert cli_main(["describe", str(DATA / "bridgewebs_howell.csv"), "--scenario", "default", "--years", "0.02",
                     "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "your results" in out and "default (simulated" in out and "session MP %" in out
    assert (tmp_path / "describe.png").stat().st_size > 1000
    assert cli_main(["describe", str(DATA), "--scenario", "no-such-world"]) == 2


def test_event_types_map_to_scorings_and_movements(tmp_path):
    names = ["usebio_ebuscore_butler_v12.xml", "usebio_scorebridge_cross_imp_v13.xml",
             "usebio_ebuscore_swiss_pairs_v12.xml", "usebio_ebuscore_swiss_teams_v12.xml",
             "usebio_pianola_sections_v13.xml"]
    _, results, _ = import_paths([DATA / n for n in names], tmp_path / "b")
    with open(tmp_path / "b" / "sessions.csv", newline="") as fh:
        got = {(r["scoring"], r["movement"].split(":")[0], r["winners"], r["event_type"]) for r in csv.DictReader(fh)}
    assert got == {("butler", "mitchell", "2", "club"), ("cross_imps", "howell", "1", "club"),
                   ("mp", "swiss_pairs", "1", "club"), ("teams_imps", "swiss_teams", "1", "green"),
                   ("mp", "mitchell", "2", "green")}
    assert (tmp_path / "b" / "teams.csv").is_file()


@pytest.fixture(scope="module")
def simulated_bundle(tmp_path_factory):
    """A few weeks of the default county, as a results bundle."""
    from simcore.engine import run
    folder = tmp_path_factory.mktemp("sim") / "bundle"
    run("default", schemes=("ppi",), years=0.05, seed=3, bundle=folder)
    return folder


def test_simulated_results_written_as_usebio_come_back_with_their_percentages(tmp_path, simulated_bundle):
    """The benchmark's helper on a small simulated bundle: files in, the same scoring out."""
    import import_fixtures
    n = import_fixtures.usebio_from_bundle(simulated_bundle, tmp_path / "x", limit=25, chunk=500)
    assert n == 25
    summary, results, _ = import_paths([tmp_path / "x"], tmp_path / "b")
    assert summary.sessions == 25 and summary.worst_mp <= summary.worst_mp_rounding + 1e-9


def test_names_with_commas_and_quotes_survive_the_bundle(tmp_path):
    text = (DATA / "bridgewebs_howell.csv").read_bytes().decode()
    first = text.split("#SCORES\r\n", 1)[1].split("\r\n")[1].split(",")[2]
    bad = tmp_path / "c.csv"
    bad.write_bytes(text.replace(f",{first},", ',"Smith, ""Jo""",', 1).replace(",Id1,Id2,", ",Ida,Idb,", 1)
                    .encode())  # unknown id columns: players are known by name
    _, results, _ = import_paths([bad], tmp_path / "b")
    assert 'Smith, "Jo"' in set(results.player_names)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), tables=st.sampled_from([3, 5, 7, 9]), bpr=st.integers(1, 4),
       n_art=st.integers(0, 4), rule=st.sampled_from(["ebu", "flat"]), sitout=st.booleans())
def test_percentages_equal_a_plain_python_club_scorer_on_random_sessions(tmp_path_factory, seed, tables, bpr,
                                                                         n_art, rule, sitout):
    import import_fixtures as fx
    from naive import club_scoring
    rng = np.random.default_rng(seed)
    session = fx.mitchell(rng, tables, bpr, sitout=sitout)
    rows = session["rows"]
    # artificial scores on distinct tables, keeping at least two real results on every board
    real = {}
    for r in rows:
        real[r[0]] = real.get(r[0], 0) + 1
    for i in rng.permutation(len(rows))[:n_art]:
        b = rows[i][0]
        if real[b] > 2:
            real[b] -= 1
            pct = [(60.0, 40.0), (40.0, 60.0), (50.0, 50.0), (60.0, 60.0), (40.0, 40.0)][int(rng.integers(5))]
            rows[i] = rows[i][:3] + (pct, "", "", None)
    folder = tmp_path_factory.mktemp("h")
    (folder / "s.xml").write_text(fx.usebio([session], "ebuscore", rule=rule))
    import_paths([folder / "s.xml"], folder / "b", rule=rule)
    want = club_scoring.percentages([r[:4] for r in rows], rule)
    got = {r["pair"]: float(r["percentage"]) for r in _scores(folder / "b")}
    assert got.keys() == want.keys()
    for pair, pct in want.items():
        assert got[pair] == pytest.approx(pct, abs=1e-9), pair


def test_reading_on_worker_processes_gives_the_same_bundle(tmp_path, monkeypatch):
    from simcore.io import importer
    import_paths([DATA], tmp_path / "serial")
    monkeypatch.setattr(importer, "PARALLEL_FROM", 2)
    monkeypatch.setattr(importer.os, "cpu_count", lambda: 2)
    import_paths([DATA], tmp_path / "parallel")
    for name in ("sessions.csv", "travellers.csv", "players.csv", "session_scores.csv", "artificial.csv"):
        assert (tmp_path / "serial" / name).read_text() == (tmp_path / "parallel" / name).read_text(), name


def test_an_unwritable_out_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ImportFileError, match="--out .*cannot write there"):
        import_paths([DATA / "bridgewebs_howell.csv"], blocker / "sub" / "b")


def test_every_board_with_an_artificial_table_is_factored_up_to_the_full_field(tmp_path_factory):
    """Hypothesis found it: 3 tables, one board a round, an artificial score on every board.  The
    boards were played three times (the artificial table included), so the two real results are
    factored up to a top of 4 (Neuberg's N = 3), not scored as a two-table field."""
    test_percentages_equal_a_plain_python_club_scorer_on_random_sessions.hypothesis.inner_test(
        tmp_path_factory, seed=0, tables=3, bpr=1, n_art=4, rule="ebu", sitout=False)


def test_describe_counts_a_corrected_session_once(tmp_path):
    """A session published with an error and then corrected is described once, as its correction."""
    from simcore.engine import run
    from simcore.io.bundle import read_bundle
    from simcore.metrics.describe import FIGURES, describe
    from simcore.scenario import load_scenario, with_overrides
    from simcore.scoring import score_results
    got = {}
    for share in (0.0, 0.4):
        sc = with_overrides(load_scenario("default"), {"calendar.years": 0.04, "reporting.corrected_share": share})
        run(sc, schemes="ppi", seed=3, bundle=tmp_path / str(share))
        res = read_bundle(tmp_path / str(share))
        got[share] = (describe(res, score_results(res)), int((res.session_replaces >= 0).sum()))
    (plain, n_plain), (corrected, n_fixed) = got[0.0], got[0.4]
    assert n_plain == 0 and n_fixed > 0
    for key in ("players", "sessions", "boards", "travellers", "pair_entries"):
        assert corrected[key] == plain[key], key
    for key, *_ in FIGURES:  # a correction is listed after its chunk's sessions: compare as sets
        np.testing.assert_array_equal(np.sort(corrected[key]["values"]), np.sort(plain[key]["values"]), err_msg=key)
