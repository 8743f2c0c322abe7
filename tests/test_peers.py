"""Peer rating systems (simcore[peers]): a clear error without the extra, tiny runs with it."""
import sys

import numpy as np
import pytest

from simcore.schemes import PlayerTable, make_scheme, peers
from simcore.scoring import PartnershipTable, score_results
from results_factory import build, random_session

PEERS = {"openskill": "openskill", "trueskill": "trueskill", "ttt": "trueskillthroughtime", "whr": "whr"}


@pytest.mark.parametrize("name", sorted(PEERS))
def test_missing_package_names_the_extra(name, monkeypatch):
    monkeypatch.setitem(sys.modules, PEERS[name], None)  # import now raises ImportError
    monkeypatch.delitem(sys.modules, "openskill.models", raising=False)
    with pytest.raises(ValueError, match=r"needs the optional extra simcore\[peers\].*" + PEERS[name]):
        make_scheme(name)


def test_ranked_groups_rank_by_score_with_ties():
    rng = np.random.default_rng(0)
    sess = random_session(rng, "howell", "mp", n_players=24, full=True)
    sc = score_results(build([sess], 24), partnerships=PartnershipTable())
    (day, teams, ranks), = peers.ranked_groups(sc)
    scores = {tuple(sc.pair_players[e]): sc.pair_score[e] for e in range(sc.n_entries)}
    got = [scores[t] for t in teams]
    assert got == sorted(got, reverse=True) and ranks[0] == 0
    for i in range(1, len(ranks)):
        assert ranks[i] == (ranks[i - 1] if got[i] == got[i - 1] else i)


@pytest.mark.parametrize("name", sorted(PEERS))
def test_peer_rates_a_tiny_history(name):
    pytest.importorskip(PEERS[name])
    scheme = make_scheme(name)
    rng = np.random.default_rng(1)
    n = 24
    sessions = []
    for k in range(3):
        s = random_session(rng, "howell", "mp", n_players=n, full=True)
        s["day"] = 19000 + 7 * k
        sessions.append(s)
    sc = score_results(build(sessions, n), partnerships=PartnershipTable())
    state = scheme.new_state(PlayerTable(np.ones(n, bool), np.ones(n, bool), np.full(n, np.nan)))
    out = np.empty((sc.n_entries, 2))
    scheme.apply(state, sc, out)
    g = scheme.grades(state, 19030)
    played = np.unique(sc.pair_players)
    assert np.isfinite(g[played]).all() and np.isfinite(out).all()
    # over three sessions, the players with the best mean score are rated above those with the worst
    total = np.zeros(n)
    count = np.zeros(n)
    for e in range(sc.n_entries):
        for p in sc.pair_players[e]:
            total[p] += sc.pair_score[e]
            count[p] += 1
    mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    best, worst = np.nanargmax(mean), np.nanargmin(mean)
    assert g[best] > g[worst]


def test_online_peer_reports_each_session_as_it_was_rated():
    pytest.importorskip("openskill")
    from simcore.probes.decay import grade_path
    path = grade_path("openskill", [50.0] * 5 + [60.0] * 5)
    assert len(np.unique(np.round(path, 9))) > 2  # the grade moves session by session
    assert path[-1] > path[4]
