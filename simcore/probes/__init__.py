"""Probes: a scheme fed hand-made results to measure one property (impulse, step, volatility).

* ``decay`` — impulse and step responses and stationary volatility of any scheme variant.
"""
