"""Benchmarks behind ``simcore bench`` (the asv suite in ``benchmarks/`` times the stages).

* ``pipeline`` — whole-pipeline throughput on a fixed workload, thread scaling, linearity.
"""
