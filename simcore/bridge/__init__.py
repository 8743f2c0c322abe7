"""The bridge model: how a board played at a table becomes a bridge score.

* ``model``       — the deal pool, a table's NS score from the pairs' strengths, card-play records;
* ``mitchell``    — a simple full Mitchell on the model (matchpointed), for calibration and tests;
* ``calibration`` — the model measured against the EBU variability study (FR18): ``simcore calibrate``.
"""
