import json

import pytest

from simcore import scenario as sc_mod

BUILTINS = ["default", "isolated-clubs", "aces-eights", "national", "online", "acbl"]


def test_builtins_are_listed_and_load():
    listed = sc_mod.list_scenarios()
    assert sorted(listed) == sorted(BUILTINS)
    assert all(text for text in listed.values())


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_round_trips_through_json(name):
    sc = sc_mod.load_scenario(name)
    assert sc.name == name
    back = sc_mod.scenario_from_json(sc_mod.scenario_to_json(sc))
    assert back == sc
    json.loads(sc_mod.scenario_to_json(sc))  # plain JSON


def test_overrides_change_only_the_named_keys():
    sc = sc_mod.load_scenario("default")
    new = sc_mod.with_overrides(sc, {"mixing.travel_rate": 0.1, "clubs[0].members": 50})
    assert new.mixing.travel_rate == 0.1 and new.clubs[0].members == 50
    assert new.clubs[1] == sc.clubs[1] and new.calendar == sc.calendar
    with pytest.raises(ValueError, match="override 'mixing.nope': no key 'nope'"):
        sc_mod.with_overrides(sc, {"mixing.nope": 1})
    with pytest.raises(ValueError, match=r"mixing.travel_rate = 'high': expected a number"):
        sc_mod.with_overrides(sc, {"mixing.travel_rate": "high"})


def base_text():
    return ('name = "t"\n[[clubs]]\nname = "A"\nmembers = 40\n[[clubs.sessions]]\nweekday = "mon"\n'
            'movement = "mitchell"\n')


@pytest.mark.parametrize("extra,message", [
    ("colour = 3\n", r"colour: unknown key"),
    ("[calendar]\nyears = 'five'\n", r"calendar.years = 'five': expected a number"),
    ("[calendar]\nyears = 0\n", r"calendar.years = 0: must be at least 0.02"),
    ("[calendar]\nstart = '06/01/2020'\n", r"calendar.start = '06/01/2020': expected an ISO date"),
    ("[calendar]\nsnapshot = 'daily'\n", r"calendar.snapshot = 'daily': allowed values are weekly, monthly"),
    ("[mixing]\nisolation_ends = '2022-13-01'\n", r"mixing.isolation_ends = '2022-13-01': expected an ISO date"),
    ("[partnerships]\nnear_exclusive_rate = 0.5\n", r"partnerships.near_exclusive_rate = 0.5: must be at least 0.85"),
    ("[partnerships]\nregular_share = 0.7\nnear_exclusive_share = 0.5\n", r"must add up to at most 1"),
    ("[partnerships]\nregular_correlation = 1.5\n", r"partnerships.regular_correlation = 1.5: must be at most 1"),
    ("[partnerships]\npickup_correlation = -0.2\n", r"partnerships.pickup_correlation = -0.2: must be at least 0"),
    ("[players]\ncard_play_correlation = 1.2\n", r"players.card_play_correlation = 1.2: must be at most 1"),
    ("[players]\ncard_play_correlation = -0.1\n", r"players.card_play_correlation = -0.1: must be at least 0"),
    ("[online]\nmembers = 10\nstrength_skew = 'left'\n", r"online.strength_skew = 'left': expected a number"),
    ("[[clubs]]\nname = 'B'\nstrength_skew = 1.2\n[[clubs.sessions]]\n",
     r"clubs\[1\].strength_skew = 1.2: must be at most 0.95"),
    ("[[events]]\nmovement = 'carousel'\n", r"events\[0\].movement = 'carousel': allowed values"),
    ("[[events]]\nmovement = 'multiple_teams'\n", r"events\[0\].scoring = 'mp': team movements are scored teams_imps"),
    ("[[clubs]]\nname = 'B'\n", r"clubs\[1\].sessions: club 'B' has no weekly sessions"),
    ("[[clubs]]\nname = 'B'\n[[clubs.sessions]]\nweekday = 'funday'\n",
     r"clubs\[1\].sessions\[0\].weekday = 'funday': allowed values are mon"),
    ("[[clubs]]\nname = 'B'\nmembers = 2\n[[clubs.sessions]]\n", r"clubs\[1\].members = 2: must be at least 4"),
    ("[[clubs]]\nname = 'B'\nisolated = 'yes'\n[[clubs.sessions]]\n", r"clubs\[1\].isolated = 'yes': expected true or false"),
    ("[[clubs]]\nname = 'B'\n[[clubs.sessions]]\nscoring = 'aggregate'\nwinners = 1\n",
     r"clubs\[1\].sessions\[0\].winners = 1: aggregate scoring needs two winners"),
])
def test_bad_scenarios_name_key_and_value(tmp_path, extra, message):
    f = tmp_path / "s.toml"
    f.write_text(base_text() + extra)
    with pytest.raises(ValueError, match=message):
        sc_mod.load_scenario(f)


def test_unknown_scenario_and_bad_toml(tmp_path):
    with pytest.raises(ValueError, match="unknown scenario 'nowhere'"):
        sc_mod.load_scenario("nowhere")
    f = tmp_path / "bad.toml"
    f.write_text("name = ")
    with pytest.raises(ValueError, match="not valid TOML"):
        sc_mod.load_scenario(f)
