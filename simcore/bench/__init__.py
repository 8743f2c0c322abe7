"""Benchmarks behind ``simcore bench`` (the asv suite in ``benchmarks/`` times the stages).

* ``pipeline`` — whole-pipeline throughput on a fixed workload, thread scaling, linearity.
* ``schemes`` — every scheme on the same simulated county results (``python -m simcore.bench.schemes``).
* ``floor`` — the fused floor of ``simcore bench``.
* ``bridge_model`` — the bridge model's kernels: table draws, deals, the pool, card play (``python -m simcore.bench.bridge_model``).
* ``synthetic`` — NGS, PPI and Elo pairs ``apply`` on synthetic sessions (``python -m simcore.bench.synthetic``).
"""
