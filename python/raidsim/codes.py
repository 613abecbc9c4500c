"""RAID-6 codecs on real bytes: Reed–Solomon P+Q (Linux md), EVENODD, RDP.

Columns are equal-length byte strings: data 0..k-1, then the row parity, then
the second parity (Q or the diagonal parity). EVENODD and RDP take a prime
``p`` (default: the smallest that fits k); a column's length must then be a
multiple of p - 1 (symbol r is bytes [r*L, (r+1)*L)). Conventions are those
of the ``raidsim-codes`` crate docs.

>>> data = [bytes([i]) * 8 for i in range(1, 5)]
>>> p, q = encode("evenodd", data)
>>> cols = decode("evenodd", [data[0], None, data[2], None, p, q])
>>> cols[1] == data[1] and cols[3] == data[3]
True
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from . import _native

CODES = ("rs", "evenodd", "rdp")


def encode(code: str, columns: Sequence[bytes], p: Optional[int] = None) -> List[bytes]:
    """``[row_parity, second_parity]`` of the data columns."""
    return list(_native.codes_encode(code, [bytes(c) for c in columns], p))


def decode(code: str, columns: Sequence[Optional[bytes]], p: Optional[int] = None) -> List[bytes]:
    """All columns (data..., row parity, second parity), the erased (``None``) ones recovered; at most two."""
    return _native.codes_decode(code, [None if c is None else bytes(c) for c in columns], p)


def update(code: str, data_columns: int, parity: Sequence[bytes], index: int, old: bytes, new: bytes,
           p: Optional[int] = None) -> List[bytes]:
    """New ``[row_parity, second_parity]`` after data column ``index`` changes from ``old`` to ``new`` (from the delta alone)."""
    return list(_native.codes_update(code, data_columns, bytes(parity[0]), bytes(parity[1]), index, bytes(old), bytes(new), p))


def structure(code: str, data_columns: int, p: Optional[int] = None) -> Dict[str, object]:
    """Which data cells each parity cell covers: ``{"rows": r, "cover": {(col, row): [(col, row), ...]}}``."""
    rows, cover = _native.codes_structure(code, data_columns, p)
    return {"rows": rows, "cover": {tuple(cell): [tuple(c) for c in cells] for cell, cells in cover}}
