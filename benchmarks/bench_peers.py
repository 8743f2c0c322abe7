"""Grading cost beside the peer libraries: ``simcore bench --peers`` (``simcore.bench.peers``).

One measurement (``setup_cache``): NGS, PPI, Elo pairs and kalman per
player-session, and openskill and trueskill rating the same sessions.
``PeerCost`` reports each one's ns per player-session; ``PeerRatio`` each
peer's cost over each scheme's (how many times faster simcore's scheme is),
both from that one run.  Needs the optional extra ``simcore[peers]``.
"""
from simcore.bench import peers  # the module: asv would take a time_* name for a benchmark

OURS, PEERS = peers.OURS, peers.PEERS


def _measure():
    return peers.time_peers(repeats=3)


class PeerCost:
    timeout = 1800
    number = 1
    repeat = 1
    params = [list(OURS + PEERS)]
    param_names = ["scheme"]

    def setup_cache(self):
        return _measure()

    def track_ns_per_player_session(self, m, scheme):
        return m["ns_per_player_session"][scheme]
    track_ns_per_player_session.unit = "ns per player-session"


class PeerRatio:
    timeout = 1800
    number = 1
    repeat = 1
    params = [list(PEERS), list(OURS)]
    param_names = ["peer", "scheme"]

    def setup_cache(self):
        return _measure()

    def track_peer_over_scheme(self, m, peer, scheme):
        return m["ratio"][peer][scheme]
    track_peer_over_scheme.unit = "x"
