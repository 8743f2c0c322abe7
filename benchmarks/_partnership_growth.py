"""A national decade's partnership lookups, for the table's growth (issue 18).

    python3 benchmarks/_partnership_growth.py TREE   (TREE: a folder holding a ``simcore`` package, e.g. .)

120 calls of ``PartnershipTable.ids`` with 90 000 pairs each (a national month's pair entries), about half
of them new (players drawn from 51 000) and half seen before: ~5.4 M partnerships at the end, as a
national decade has.  Prints the process CPU of all the calls and of the calls' growths (new slot
tables and reinsertion), the partnerships and the final slots.  Run it for two trees in turn (each in
a fresh process: growth is mostly first touches of new memory) and compare.
"""
import sys
import time


def main(tree):
    sys.path.insert(0, tree)
    import numpy as np
    from simcore.scoring.session import PartnershipTable

    rng = np.random.default_rng(7)
    grown = [0.0, 0]
    reserve = PartnershipTable._reserve

    def timed_reserve(self, extra):
        cap = len(self._slots)
        t0 = time.process_time()
        reserve(self, extra)
        if len(self._slots) != cap:
            grown[0] += time.process_time() - t0
            grown[1] += 1

    PartnershipTable._reserve = timed_reserve
    seen = np.zeros((0, 2), np.int32)
    batches = []
    for _ in range(120):
        new = rng.integers(0, 51_000, size=(45_000, 2)).astype(np.int32)
        again = seen[rng.integers(0, len(seen), size=45_000)] if len(seen) else new[:0]
        batch = np.concatenate([new, again])[rng.permutation(len(new) + len(again))]
        batches.append(batch[batch[:, 0] != batch[:, 1]])
        seen = np.concatenate([seen, new])
    table = PartnershipTable()
    table.ids(batches[0][:10])  # compiled (or loaded) before the clock starts
    t0 = time.process_time()
    for batch in batches:
        table.ids(batch)
    total = time.process_time() - t0
    print(f"{tree}: all calls {total:.3f} s CPU, {grown[1]} growths {grown[0]:.3f} s, "
          f"{len(table)} partnerships, {len(table._slots)} slots")


if __name__ == "__main__":
    main(sys.argv[1])
