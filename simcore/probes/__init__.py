"""Probes: a scheme fed hand-made results to measure one property (impulse, step, volatility).

* ``decay`` — impulse and step responses and stationary volatility of any scheme variant.
* ``elo_k`` — seed 004's claims about K and √n: sd of Elo adjustments and ratings from the Elo model.
"""
