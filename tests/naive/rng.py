"""Reference SplitMix64 streams (simcore.rng)."""

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def derive(key: int, a: int) -> int:
    return mix64(key ^ mix64((a * GOLDEN + GOLDEN) & MASK64))


class SplitMix64:
    """Reference stream: same sequence as ``simcore.rng.new_stream``."""

    def __init__(self, key: int, a: int, b: int):
        self.state = derive(derive(key, a), b)

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def uniform(self) -> float:
        return ((self.next_u64() >> 11) + 0.5) / 2.0**53



    def skip(self, n: int) -> None:
        """Draw and drop ``n`` numbers (``simcore.rng.skip`` steps the state instead)."""
        for _ in range(n):
            self.next_u64()
