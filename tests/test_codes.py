"""raidsim.codes against independent implementations (issue #4)."""

import itertools
import random

import pytest

from raidsim import codes


# An independent Linux RAID-6 syndrome: GF(2^8) by shift-and-reduce with
# 0x11d (no tables shared with the Rust code), P = xor, Q = sum 2^i * D_i
# (H. P. Anvin, "The mathematics of RAID-6"; md's raid6_gen_syndrome).
def gf_mul(a: int, b: int) -> int:
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11D
        b >>= 1
    return r


def linux_pq(data):
    n = len(data[0])
    p = bytearray(n)
    q = bytearray(n)
    for i, d in enumerate(data):
        g = 1
        for _ in range(i):
            g = gf_mul(g, 2)
        for j in range(n):
            p[j] ^= d[j]
            q[j] ^= gf_mul(g, d[j])
    return bytes(p), bytes(q)


@pytest.mark.parametrize("seed", range(6))
def test_pq_equals_independent_linux_raid6_byte_for_byte(seed):
    rng = random.Random(seed)
    k = rng.randint(1, 12)
    n = rng.choice([1, 7, 64, 100, 1000, 4096])
    data = [bytes(rng.getrandbits(8) for _ in range(n)) for _ in range(k)]
    assert codes.encode("rs", data) == list(linux_pq(data))


def test_pq_recovers_every_pair_against_the_oracle():
    rng = random.Random(9)
    data = [bytes(rng.getrandbits(8) for _ in range(33)) for _ in range(5)]
    full = data + list(linux_pq(data))
    for i, j in itertools.combinations(range(7), 2):
        cols = list(full)
        cols[i] = None
        cols[j] = None
        assert codes.decode("rs", cols) == full, (i, j)


def evenodd_reference(data, p):
    """EVENODD straight from Blaum et al. 1995, cell by cell."""
    rows = p - 1
    L = len(data[0]) // rows
    cell = lambda c, r: data[c][r * L:(r + 1) * L] if c < len(data) and r < rows else bytes(L)
    xor = lambda blocks: bytes(map(lambda *b: __import__("functools").reduce(int.__xor__, b, 0), *blocks))
    row = b"".join(xor([cell(c, r) for c in range(p)]) for r in range(rows))
    s = xor([cell((p - 1 - r) % p, r) for r in range(rows)])
    diag = b"".join(xor([s] + [cell((d - r) % p, r) for r in range(rows)]) for d in range(rows))
    return [row, diag]


def rdp_reference(data, p):
    """RDP straight from Corbett et al. 2004, cell by cell."""
    rows = p - 1
    L = len(data[0]) // rows
    k = len(data)
    xor = lambda blocks: bytes(map(lambda *b: __import__("functools").reduce(int.__xor__, b, 0), *blocks))
    dcell = lambda c, r: data[c][r * L:(r + 1) * L] if c < k else bytes(L)
    prow = [xor([dcell(c, r) for c in range(p - 1)]) for r in range(rows)]
    cell = lambda c, r: (prow[r] if c == p - 1 else dcell(c, r)) if r < rows else bytes(L)
    diag = b"".join(xor([cell((d - r) % p, r) for r in range(rows)]) for d in range(rows))
    return [b"".join(prow), diag]


@pytest.mark.parametrize("p", [3, 5, 7])
def test_evenodd_and_rdp_equal_cell_by_cell_references(p):
    rng = random.Random(p)
    for k in range(1, p + 1):
        data = [bytes(rng.getrandbits(8) for _ in range((p - 1) * 3)) for _ in range(k)]
        assert codes.encode("evenodd", data, p) == evenodd_reference(data, p)
        if k <= p - 1:
            assert codes.encode("rdp", data, p) == rdp_reference(data, p)


def test_update_and_errors():
    data = [bytes([i]) * 12 for i in range(1, 4)]
    for code in codes.CODES:
        par = codes.encode(code, data)
        new = bytes(range(12))
        got = codes.update(code, 3, par, 1, data[1], new)
        assert got == codes.encode(code, [data[0], new, data[2]])
    with pytest.raises(Exception, match="not divisible"):
        codes.encode("rdp", [b"12345"] * 2, 3)
    with pytest.raises(Exception, match="unknown code"):
        codes.encode("xor", data)
