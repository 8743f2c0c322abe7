"""simcore bench: the JSON keys and their consistency (timings are not asserted)."""

import json

from simcore.bench import pipeline as bench
from simcore.cli import main


def test_bench_json_keys_and_ratios(capsys, monkeypatch):
    monkeypatch.setattr(bench, "WORKLOAD", dict(bench.WORKLOAD, years=8 / 52, replicates=1))
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
    assert out["player_boards"] > 100_000 and out["python_player_boards"] > 10_000
    assert abs(out["player_boards_per_s"] * out["ns_per_player_board"] / 1e9 - 1) < 1e-9
    assert abs(out["ratio_vs_python"] - out["python_ns_per_player_board"] / out["ns_per_player_board"]) < 1e-6
    assert out["ratio_vs_python"] > 1  # the interpreted kernels cannot beat the compiled ones
    assert abs(out["ratio_to_floor"] - out["ns_per_player_board_1_thread"] / out["floor_ns_per_player_board"]) < 1e-9
    assert out["floor_ns_per_player_board"] > 0


def test_bench_rejects_bad_counts(capsys):
    assert main(["bench", "--threads", "0"]) == 2
    assert "--threads and --repeats must be at least 1" in capsys.readouterr().err
