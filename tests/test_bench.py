"""simcore bench: the JSON keys and their consistency (timings are not asserted)."""

import json

from simcore.bench import pipeline as bench
from simcore.cli import main


def test_bench_json_keys_and_ratios(capsys, monkeypatch):
    monkeypatch.setattr(bench, "WORKLOAD", dict(bench.WORKLOAD, years=8 / 52, replicates=2))
    from simcore.bench import floor
    from simcore.cli import bench as bench_cli
    monkeypatch.setattr(bench_cli, "time_floor", lambda repeats: floor.time_floor(sessions=50, repeats=repeats))
    assert main(["bench", "--json", "--repeats", "1", "--threads", "2", "--scaling"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("player_boards_per_s", "ns_per_player_board", "threads", "schemes", "ratio_vs_python",
                "python_ns_per_player_board", "ns_per_player_board_1_thread", "speedup",
                "floor_ns_per_player_board", "ratio_to_floor"):
        assert key in out, key
    assert out["threads"] == 2 and out["schemes"] == ["ngs", "ppi", "elo-pairs", "imps-lost"]
    assert out["workload"]["years"] == 8 / 52 and out["worker_processes"] == 2  # a replicate a process
    assert out["player_boards"] > 100_000 and out["python_player_boards"] > 10_000
    assert abs(out["player_boards_per_s"] * out["ns_per_player_board"] / 1e9 - 1) < 1e-9
    assert abs(out["ratio_vs_python"] - out["python_ns_per_player_board"] / out["ns_per_player_board"]) < 1e-6
    assert out["ratio_vs_python"] > 1  # the interpreted kernels cannot beat the compiled ones
    assert abs(out["ratio_to_floor"] - out["ns_per_player_board_1_thread"] / out["floor_ns_per_player_board"]) < 1e-9
    assert out["floor_ns_per_player_board"] > 0


def test_bench_rejects_bad_counts(capsys):
    assert main(["bench", "--threads", "0"]) == 2
    assert "--threads and --repeats must be at least 1" in capsys.readouterr().err


def test_bench_peers_json_keys_and_ratios(capsys, monkeypatch):
    from simcore.bench import peers
    monkeypatch.setattr(peers, "PEERS_WORKLOAD", dict(peers.PEERS_WORKLOAD, years=3 / 52))
    assert main(["bench", "--peers", "--json", "--repeats", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"player_sessions", "peer_player_sessions", "sessions", "ns_per_player_session", "ratio",
                        "workload"}
    assert out["workload"]["years"] == 3 / 52 and out["sessions"] > 10
    # the peers rate the very same sessions: every pair entry is one team of a ranked match
    assert out["peer_player_sessions"] == out["player_sessions"] > 1000
    ns = out["ns_per_player_session"]
    assert set(ns) == {"ngs", "ppi", "elo-pairs", "kalman", "openskill", "trueskill"}
    assert all(v > 0 for v in ns.values())
    for peer in ("openskill", "trueskill"):
        for scheme in ("ngs", "ppi", "elo-pairs", "kalman"):
            assert abs(out["ratio"][peer][scheme] - ns[peer] / ns[scheme]) < 1e-9 * out["ratio"][peer][scheme]


def test_bench_peers_without_the_extra_names_it(capsys, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "trueskill", None)  # as if not installed: import raises ImportError
    assert main(["bench", "--peers"]) == 2
    err = capsys.readouterr().err
    assert "--peers" in err and "simcore[peers]" in err and "trueskill" in err
