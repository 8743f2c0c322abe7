import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from results_factory import build, random_session
from simcore import scoring
from simcore.io import bundle

SESSIONS = ("session,date,club,event_type,scoring,winners,movement\n"
            "S1,2024-03-04,North,club,mp,2,mitchell\n"
            "S2,2024-03-09,County,black,teams_imps,2,multiple_teams\n")
TRAVELLERS = ("session,round,board,table,ns1,ns2,ew1,ew2,ns_score\n"
              "S1,1,1,1,ann,bob,cat,dan,420\n"
              "S1,1,1,2,eve,fay,gus,hal,-50\n"
              "S1,2,2,1,ann,bob,gus,hal,140\n"
              "S1,2,2,2,eve,fay,cat,dan,110\n"
              "S2,1,1,1,ann,bob,gus,hal,620\n"
              "S2,1,1,2,eve,fay,cat,dan,170\n")
TEAMS = ("session,team,player1,player2,player3,player4\n"
         "S2,Lions,ann,bob,cat,dan\n"
         "S2,Tigers,eve,fay,gus,hal\n")


def write(tmp_path, sessions=SESSIONS, travellers=TRAVELLERS, teams=TEAMS, players=None, card=None):
    for name, text in (("sessions.csv", sessions), ("travellers.csv", travellers), ("teams.csv", teams),
                       ("players.csv", players), ("card_play.csv", card)):
        if text is not None:
            (tmp_path / name).write_text(text)
    return tmp_path


def assert_same(a, b):
    for f in a.__dataclass_fields__:
        x, y = getattr(a, f), getattr(b, f)
        if x.dtype == object:
            assert list(x) == list(y), f
        else:
            np.testing.assert_array_equal(x, y, err_msg=f)
            assert x.dtype == y.dtype, f


def test_reads_a_hand_written_bundle(tmp_path):
    r = bundle.read_bundle(write(tmp_path))
    assert list(r.session_names) == ["S1", "S2"] and list(r.club_names) == ["North", "County"]
    assert r.n_travellers == 6 and list(r.player_names[:4]) == ["ann", "bob", "cat", "dan"]
    assert list(r.session_boards) == [2, 1] and r.team_players.shape == (2, 4)
    assert r.player_member.all() and not r.player_at_start.any()
    scored = scoring.score_results(r)  # the bundle is scoreable end to end
    assert scored.n_sessions == 2


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_round_trip_is_lossless(tmp_path_factory, seed):
    rng = np.random.default_rng(seed)
    kinds = [("mitchell", "mp"), ("howell", "butler"), ("swiss_pairs", "mp"), ("multiple_teams", "teams_imps"),
             ("mitchell", "aggregate")]
    sessions = [random_session(rng, *kinds[i], full=True) for i in rng.integers(0, len(kinds), 3)]
    r = build(sessions, 60)
    r.player_member[rng.integers(0, 60, 3)] = False
    r.player_at_start[rng.integers(0, 60, 5)] = True
    r.player_initial_grade[rng.integers(0, 60, 2)] = 47.25
    r.session_scored_on = r.session_day + rng.integers(0, 3, r.n_sessions).astype(np.int32)
    assert not _single_boards(r)  # full layouts: every board played at least twice
    folder = tmp_path_factory.mktemp("rt")
    bundle.write_bundle(r, folder)
    back = bundle.read_bundle(folder)
    # players never seated are written to players.csv and come back in the same order
    assert_same(r, back)


def _single_boards(r):
    keys, counts = np.unique(np.stack([r.trav_session, r.trav_board], 1), axis=0, return_counts=True)
    return (counts == 1).any()


def test_card_play_round_trip(tmp_path):
    table = {"player": np.array(["ann", "bob", "ann"], object), "date": np.array([19000, 19031, 19031]),
             "boards": np.array([93, 12, 95]), "imps_lost": np.array([73.0, 2.5, 93.0])}
    bundle.write_card_play(table, tmp_path)
    back = bundle.read_card_play(tmp_path)
    assert list(back["player"]) == ["ann", "bob", "ann"] and list(back["date"]) == [19000, 19031, 19031]
    np.testing.assert_array_equal(back["boards"], table["boards"])
    np.testing.assert_array_equal(back["imps_lost"], table["imps_lost"])


BAD = [
    # (file, transform of the default text, expected message)
    ("sessions", lambda t: t.replace(",movement", ""), r"sessions.csv line 1: missing column\(s\) movement"),
    ("sessions", lambda t: t.replace("movement\n", "movement,colour\n").replace("mitchell\n", "mitchell,red\n")
     .replace("multiple_teams\n", "multiple_teams,blue\n"), r"unknown column\(s\) colour"),
    ("sessions", lambda t: "", r"sessions.csv: the file is empty"),
    ("sessions", lambda t: t.replace("2024-03-04", "04/03/2024"), r"sessions.csv line 2, column date: '04/03/2024' is not an ISO date"),
    ("sessions", lambda t: t.replace("2024-03-04", "2024-02-30"), r"line 2, column date: '2024-02-30' is not an ISO date"),
    ("sessions", lambda t: t.replace(",mp,", ",matchpoints,"), r"line 2, column scoring: 'matchpoints' is not one of mp"),
    ("sessions", lambda t: t.replace("North,club,", "North,gold,"), r"line 2, column event_type: 'gold' is not one of club"),
    ("sessions", lambda t: t.replace(",mp,2,", ",mp,3,"), r"line 2, column winners: '3' must be 1 or 2"),
    ("sessions", lambda t: t.replace(",mitchell", ",carousel"), r"line 2, column movement: unknown movement 'carousel'"),
    ("sessions", lambda t: t + "S1,2024-03-05,North,club,mp,2,mitchell\n", r"line 4, column session: session 'S1' appears twice"),
    ("sessions", lambda t: t + "S3,2024-03-05,North,club,mp,2,mitchell\n", r"sessions.csv line 4: session 'S3' has no travellers"),
    ("travellers", lambda t: t.replace("ann,bob,cat,dan,420", "ann,bob,cat,ann,420"), r"travellers.csv line 2: player 'ann' is seated twice at one table"),
    ("travellers", lambda t: t.replace("eve,fay,gus,hal,-50", "eve,fay,gus,ann,-50"), r"player 'ann' sits at tables 1 and 2 in round 1 of session 'S1'"),
    ("travellers", lambda t: t.replace("420", "420.5"), r"travellers.csv line 2, column ns_score: '420.5' is not an integer"),
    ("travellers", lambda t: t.replace("S1,1,1,2,eve", "S1,1,3,2,eve"), r"board 1 of session 'S1' has only one result"),
    ("travellers", lambda t: t.replace("S1,1,1,1", "S9,1,1,1"), r"travellers.csv line 2, column session: session 'S9' is not in sessions.csv"),
    ("travellers", lambda t: t + "S1,1,1,1,ann,bob,cat,dan,400\n", r"duplicate traveller \(session 'S1', round 1, board 1, table 1\)"),
    ("travellers", lambda t: t.replace("S1,2,2,1", "S1,0,2,1"), r"line 4, column round: '0' must be at least 1"),
    ("travellers", lambda t: t.replace(",ns_score", ""), r"missing column\(s\) ns_score"),
    ("teams", lambda t: t.replace("S2,Tigers,eve,fay,gus,hal\n", ""), r"travellers.csv line 6: pair 'gus' & 'hal' of team session 'S2' is in no team"),
    ("teams", lambda t: "session,team,player1,player2,player3,player4\n", r"team session 'S2' has no rows in teams.csv"),
    ("teams", lambda t: t.replace("S2,Lions", "S1,Lions"), r"teams.csv line 2, column session: session 'S1' is a mitchell session"),
]


@pytest.mark.parametrize("which,change,message", BAD)
def test_bad_input_is_named(tmp_path, which, change, message):
    texts = {"sessions": SESSIONS, "travellers": TRAVELLERS, "teams": TEAMS}
    texts[which] = change(texts[which])
    write(tmp_path, **texts)
    with pytest.raises(bundle.BundleError, match=message):
        bundle.read_bundle(tmp_path)


@pytest.mark.parametrize("players,message", [
    ("player,member\nann,maybe\n", r"players.csv line 2, column member: 'maybe' is not true or false"),
    ("player,initial_grade\nann,high\n", r"players.csv line 2, column initial_grade: 'high' is not a number"),
    ("player,member\nann,true\nann,false\n", r"players.csv line 3, column player: player 'ann' listed twice"),
    ("player,grade\nann,50\n", r"players.csv line 1: unknown column\(s\) grade"),
])
def test_bad_players_file_is_named(tmp_path, players, message):
    write(tmp_path, players=players)
    with pytest.raises(bundle.BundleError, match=message):
        bundle.read_bundle(tmp_path)


def test_players_file_sets_members_and_start(tmp_path):
    r = bundle.read_bundle(write(tmp_path, players="player,member,at_start,initial_grade\nzed,true,true,55\n"
                                                   "hal,false,false,\n"))
    assert r.player_names[0] == "zed" and r.player_at_start[0] and r.player_initial_grade[0] == 55
    hal = list(r.player_names).index("hal")
    assert not r.player_member[hal] and np.isnan(r.player_initial_grade[hal])


@pytest.mark.parametrize("card,message", [
    ("player,date,boards,imps_lost\nann,2024-01-01,-3,2\n", r"card_play.csv line 2, column boards: '-3' must be at least 0"),
    ("player,date,boards,imps_lost\nann,2024-13-01,3,2\n", r"column date: '2024-13-01' is not an ISO date"),
    ("player,date,boards,imps_lost\nann,2024-01-01,3,lots\n", r"column imps_lost: 'lots' is not a number"),
    ("player,date,boards\nann,2024-01-01,3\n", r"missing column\(s\) imps_lost"),
])
def test_bad_card_play_is_named(tmp_path, card, message):
    write(tmp_path, card=card)
    with pytest.raises(bundle.BundleError, match=message):
        bundle.read_card_play(tmp_path)


def test_chronology_columns(tmp_path):
    sessions = ("session,date,club,event_type,scoring,winners,movement,scored_on,replaces\n"
                "S1,2024-03-04,North,club,mp,2,mitchell,2024-03-20,\n"
                "S2,2024-03-09,County,black,teams_imps,2,multiple_teams,,\n")
    r = bundle.read_bundle(write(tmp_path, sessions=sessions))
    assert list(r.processing_order()) == [1, 0]  # S1 was scored late
    bad = sessions.replace("2024-03-20,", "2024-03-01,")
    with pytest.raises(bundle.BundleError, match=r"column scored_on: '2024-03-01' is before the date of play"):
        bundle.read_bundle(write(tmp_path, sessions=bad))
    bad = sessions.replace("2024-03-20,\n", "2024-03-20,S7\n")
    with pytest.raises(bundle.BundleError, match=r"column replaces: 'S7' names no session"):
        bundle.read_bundle(write(tmp_path, sessions=bad))
