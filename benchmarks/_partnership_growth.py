"""A national decade's partnership lookups, for the table's growth (issue 18).

    python3 benchmarks/_partnership_growth.py TREE   (TREE: a folder holding a ``simcore`` package, e.g. .)

120 calls of ``PartnershipTable.ids`` with 90 000 pairs each (a national month's pair entries), about half
of them new (players drawn from 51 000) and half seen before: ~5.4 M partnerships at the end, as a
national decade has.  Prints the process CPU of all the calls and of the calls' growths (new slot
tables and reinsertion), the partnerships and the final slots.  Run it for two trees in turn (each in
a fresh process: growth is mostly first touches of new memory) and compare.
"""
import sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from simcore.scoring.session import PartnershipTable
rng = np.random.default_rng(7)
P = 51000
t = PartnershipTable()
grow = PartnershipTable._reserve
g = [0.0, 0]
def reserve(self, extra):
    cap = len(self._slots); t0 = time.process_time(); grow(self, extra)
    if len(self._slots) != cap: g[0] += time.process_time() - t0; g[1] += 1
PartnershipTable._reserve = reserve
seen = np.zeros((0, 2), np.int32)
batches = []
for i in range(120):
    new = rng.integers(0, P, size=(45000, 2)).astype(np.int32)
    old = seen[rng.integers(0, len(seen), size=45000)] if len(seen) else new[:0]
    b = np.concatenate([new, old]); b = b[rng.permutation(len(b))]
    b = b[b[:, 0] != b[:, 1]]
    batches.append(b)
    seen = np.concatenate([seen, new])
t.ids(batches[0][:10])  # compile
tot = time.process_time()
for b in batches:
    t.ids(b)
tot = time.process_time() - tot
print(f'{sys.argv[1]}: total {tot:.3f} s, growths {g[1]} {g[0]:.3f} s, partnerships {len(t)}, slots {len(t._slots)}')
