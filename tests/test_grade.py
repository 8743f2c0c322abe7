"""``simcore grade`` and its Python API (grade_bundle, grade_results, grade_card_play)."""

import csv
import importlib

import numpy as np
import pytest

import naive
from handmade import day, handmade
from simcore import cli
from simcore.cli import grade as grade_cli
from simcore.engine import replay as grade
from simcore.schemes import SCHEMES, params_help
from simcore.schemes import imps_lost as il
from simcore.schemes import ppi

GAME_OVER = [(93, 73), (95, 93), (284, 149), (86, 83), (110, 115), (183, 116), (115, 145), (244, 214),
             (83, 53), (12, 2), (61, 62), (16, 20), (20, 7), (30, 39), (34, 21), (165, 122), (148, 96),
             (50, 42), (85, 80), (208, 181), (32, 10), (24, 5), (13, 1), (36, 42), (52, 18), (13, 14),
             (23, 7), (32, 23), (23, 15)]


def two_clubs():
    """Three sessions: MP on 5 March, Butler on 6 March (not rated by PPI), MP on 2 April."""
    mp1 = {"day": day("2024-03-05"), "tables": [(1, 1, 1, (0, 1), (2, 3), 75.0), (1, 1, 2, (4, 5), (6, 7), 25.0),
                                                (2, 2, 1, (0, 1), (6, 7), 50.0), (2, 2, 2, (4, 5), (2, 3), 100.0)]}
    butler = {"day": day("2024-03-06"), "scoring": "butler", "tables": [(1, 1, 1, (0, 2), (1, 3), 60.0)]}
    mp2 = {"day": day("2024-04-02"), "tables": [(1, 1, 1, (3, 0), (5, 6), 40.0)]}
    names = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"]
    return handmade([mp2, butler, mp1], 8, names=names)  # listed out of date order on purpose


def test_help_lists_every_parameter_of_every_scheme(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["grade", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for name, module in SCHEMES.items():
        try:
            importlib.import_module(module)
        except ImportError:
            assert f"{name}: not available in this build" in text
            continue
        for param, default, helptext in params_help(name):
            assert f"    {param} (default {default}): {helptext}" in text


def test_help_lists_ppi_and_imps_lost_parameters():
    text = grade_cli.parameters_text()
    assert "m_frequent (default 600.0)" in text and "carry (default script)" in text
    assert "one of: script, fixed" in text


@pytest.mark.parametrize("argv,message", [
    (["--set", "nope=1"], "ppi: unknown parameter 'nope'"),
    (["--set", "m_frequent=lots"], "ppi: parameter m_frequent='lots' is not a valid float"),
    (["--set", "m_frequent"], "--set 'm_frequent' is not NAME=VALUE"),
    (["--set", "w_low=1", "--set", "w_low=2"], "--set w_low given twice"),
])
def test_set_errors_are_clear(tmp_path, capsys, argv, message):
    rc = cli.main(["grade", str(tmp_path), "--scheme", "ppi", "--out", str(tmp_path / "g.csv"), *argv])
    assert rc == 2
    assert message in capsys.readouterr().err


def test_missing_bundle_and_missing_card_play(tmp_path, capsys):
    assert cli.main(["grade", str(tmp_path / "nope"), "--scheme", "ppi", "--out", str(tmp_path / "g.csv")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert cli.main(["grade", str(tmp_path), "--scheme", "imps-lost", "--out", str(tmp_path / "g.csv")]) == 2
    assert "has no card_play.csv; imps-lost grades card-play records" in capsys.readouterr().err


def test_ppi_rows_one_per_player_per_rated_session():
    results, scored = two_clubs()
    table, state = grade.grade_results(results, scored, "ppi")
    # sessions in date order; the Butler session is not rated, so has no rows
    assert list(dict.fromkeys(table["session"])) == ["s2", "s0"]
    assert list(dict.fromkeys(table["date"])) == ["2024-03-05", "2024-04-02"]
    assert len(table["player"]) == 8 + 4
    assert sorted(table["player"][:8]) == ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"]
    # the grades are the reference PPIs after each session
    params = ppi.Params()
    first = dict(zip(table["player"][:8], table["grade"][:8]))
    order = scored.order
    out_ref = naive.ppi_rate(scored, [True] * 8, [50.0] * 8, [0] * 8, [0] * 8, params)[-1]
    names = results.player_names
    for e in range(scored.pair_start[order[0]], scored.pair_start[order[0] + 1]):
        for j in (0, 1):
            assert first[names[scored.pair_players[e, j]]] == out_ref[e][j]
    last = dict(zip(table["player"][8:], table["grade"][8:]))
    assert last == {names[q]: state.ppi[q] for q in (0, 3, 5, 6)}


def test_a_bundle_ppi_cannot_grade():
    results, scored = handmade([{"day": day("2024-03-06"), "scoring": "cross_imps",
                                 "tables": [(1, 1, 1, (0, 1), (2, 3), 50.0)]}], 4)
    with pytest.raises(ValueError, match=r"ppi graded no session of the results \(sessions scored as: "
                                         r"cross_imps\); PPI rates match-pointed \(mp\) sessions only"):
        grade.grade_results(results, scored, "ppi")


def test_variants_reach_the_scheme():
    results, scored = two_clubs()
    base, _ = grade.grade_results(results, scored, "ppi")
    other, _ = grade.grade_results(results, scored, "ppi(k_newcomer=60, k_established=600)")
    assert not np.array_equal(base["grade"], other["grade"])


def test_imps_lost_card_play_table_reproduces_the_seed():
    n = len(GAME_OVER)
    months = np.arange("2020-09", "2023-09", dtype="datetime64[M]")[:n].astype("datetime64[D]").astype(str)
    table = {"player": ["game over"] * n + ["other"], "date": list(months) + ["2023-08-31"],
             "boards": [h for h, _ in GAME_OVER] + [12], "imps_lost": [i for _, i in GAME_OVER] + [6.0]}
    out = grade.grade_bundle(table, "imps-lost")
    assert list(out) == list(grade.CARD_PLAY_COLUMNS)
    last = n - 1
    assert out["rating"][last] == pytest.approx(2659.65157376, abs=1e-8)
    assert (out["boards_left"][last], out["k"][last], out["batches"][last]) == (5, 16, 198)
    assert out["imps_left"][last] == pytest.approx(3.26086956522, abs=1e-11)
    assert out["date"][0] == "2020-09-01" and out["player"][-1] == "other"
    assert out["rating"][-1] == 2200 + 48 * (1.2 - 0.5) and out["batches"][-1] == 1


def test_imps_lost_bad_date():
    with pytest.raises(ValueError, match="card-play dates must be ISO dates"):
        grade.grade_card_play({"player": ["a"], "date": ["31/08/2023"], "boards": [12], "imps_lost": [1.0]},
                              il.ImpsLostScheme())


def test_csv_keeps_full_precision(tmp_path):
    results, scored = two_clubs()
    table, _ = grade.grade_results(results, scored, "ppi")
    path = tmp_path / "g.csv"
    grade.write_csv(path, table)
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["session", "date", "player", "grade"]
    assert [float(r[3]) for r in rows[1:]] == table["grade"].tolist()
    assert rows[1][:2] == ["s2", "2024-03-05"]


def test_partnerships_need_a_scheme_that_has_them(tmp_path, capsys):
    results, scored = two_clubs()
    table, state = grade.grade_results(results, scored, "ppi")
    with pytest.raises(ValueError, match="ppi has no partnership-level grades; drop --partnerships"):
        grade.partnership_table(results, scored, ppi.PPIScheme(), state)
    rc = cli.main(["grade", str(tmp_path), "--scheme", "ppi", "--out", str(tmp_path / "g.csv"),
                   "--partnerships", str(tmp_path / "p.csv")])
    assert rc == 2 and "ppi has no partnership-level grades" in capsys.readouterr().err


class PairMeanPPI(ppi.PPIScheme):
    """PPI plus a made-up partnership grade (mean of the two PPIs) through the protocol's hook."""

    partnership_switch = {}

    def __init__(self, partnership_players):
        super().__init__()
        self.pp = partnership_players

    def partnership_grades(self, state, day):
        g = state.ppi[self.pp].mean(axis=1)
        g[0] = np.nan  # a partnership without a grade gets no row
        return {"grade": g, "sessions": np.arange(len(g)), "players": self.pp}


def test_partnership_table_from_the_partnership_grades_hook():
    results, scored = two_clubs()
    E = len(scored.pair_players)
    scored.pair_partnership = np.arange(E, dtype=np.int32)
    scored.partnership_players = scored.pair_players.copy()
    scheme = PairMeanPPI(scored.partnership_players)
    _, state = grade.grade_results(results, scored, scheme)
    table = grade.partnership_table(results, scored, scheme, state)
    assert list(table) == ["partnership", "player1", "player2", "grade", "sessions"]
    assert table["partnership"].tolist() == list(range(1, E))
    names = results.player_names
    q0, q1 = scored.partnership_players[1]
    assert (table["player1"][0], table["player2"][0]) == (names[q0], names[q1])
    assert table["grade"][0] == (state.ppi[q0] + state.ppi[q1]) / 2
