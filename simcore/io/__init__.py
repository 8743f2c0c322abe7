"""Files in and out: results bundles (CSV).

* ``bundle`` — read and write ``sessions.csv``, ``travellers.csv``, ``teams.csv``, ``card_play.csv``.
"""
