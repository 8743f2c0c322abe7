"""Shared setup data: one quarter of the default county, simulated once per process.

``quarter()`` returns (engine, replicate, chunk): a real chunk of pass A
(13 weeks, ~1 300 players, every movement and scoring of the default
scenario) so the scheme benchmarks time the schemes on real results.
"""
from functools import lru_cache

from simcore.engine import Engine
from simcore.rng import replicate_keys


@lru_cache(maxsize=None)
def quarter(schemes=None):
    engine = Engine("default", schemes, 1, 1.0, 2026, threads=1)
    rep = engine._new_replicate(0, replicate_keys(2026, 1)[0])
    chunk = engine._pass_a(rep, 0, 13)
    return engine, rep, chunk


def player_boards(chunk) -> int:
    return int(chunk.player_boards)
