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

import numbers
import sys
from typing import Any, Dict, List, Optional, Sequence

from . import _native
from ._native import ConfigError

CODES = ("rs", "evenodd", "rdp")

#: Q = sum 2^i * D_i, and 2 has order 255 in GF(2^8): data column 255 would get column 0's
#: coefficient, and the two could not be recovered together. (Linux md allows fewer still:
#: mdadm refuses more than 256 devices at level 6, i.e. 254 data disks, indices 0..253.)
RS_MAX_DATA_COLUMNS = 255

#: The core takes counts, indices and p as unsigned machine words (usize).
_USIZE_MAX = 2 * sys.maxsize + 1


def encode(code: str, columns: Sequence[bytes], p: Optional[int] = None) -> List[bytes]:
    """``[row_parity, second_parity]`` of the data columns."""
    cols = [_column(c, i) for i, c in enumerate(columns)]
    _check_code(code, len(cols))
    return list(_native.codes_encode(code, cols, _prime(p)))


def decode(code: str, columns: Sequence[Optional[bytes]], p: Optional[int] = None) -> List[bytes]:
    """All columns (data..., row parity, second parity), the erased (``None``) ones recovered; at most two."""
    cols = [None if c is None else _column(c, i) for i, c in enumerate(columns)]
    _check_code(code, len(cols) - 2)
    # Checked here, not only in the core: its P+Q decoder indexes by the first column's length.
    lengths = sorted({len(c) for c in cols if c is not None})
    if len(lengths) > 1:
        raise ConfigError(f"columns must have equal lengths; got lengths {lengths}")
    return _native.codes_decode(code, cols, _prime(p))


def update(code: str, data_columns: int, parity: Sequence[bytes], index: int, old: bytes, new: bytes,
           p: Optional[int] = None) -> List[bytes]:
    """New ``[row_parity, second_parity]`` after data column ``index`` changes from ``old`` to ``new`` (from the delta alone)."""
    k = _count(data_columns, "data_columns")
    _check_code(code, k)
    row, second = _parity_pair(parity)
    args = (_count(index, "index"), _column(old, "old"), _column(new, "new"), _prime(p))
    return list(_native.codes_update(code, k, row, second, *args))


def structure(code: str, data_columns: int, p: Optional[int] = None) -> Dict[str, object]:
    """Which data cells each parity cell covers: ``{"rows": r, "cover": {(col, row): [(col, row), ...]}}``."""
    k = _count(data_columns, "data_columns")
    _check_code(code, k)
    rows, cover = _native.codes_structure(code, k, _prime(p))
    return {"rows": rows, "cover": {tuple(cell): [tuple(c) for c in cells] for cell, cells in cover}}


# Arguments are checked here so that a wrong one is a ConfigError naming it, as the core's own
# checks are, rather than a TypeError or OverflowError from the conversion to Rust integers.

def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _prime(p: Any) -> Optional[int]:
    if p is None:
        return None
    if not _is_int(p) or p < 3:
        raise ConfigError(f"p must be a prime >= 3 (an int), got {p!r}")
    if p > _USIZE_MAX:
        raise ConfigError(f"p must be a prime >= 3 below 2**{_USIZE_MAX.bit_length()}, got {p!r}")
    return int(p)


def _count(value: Any, name: str) -> int:
    if not _is_int(value) or value < 0:
        raise ConfigError(f"{name} must be a non-negative int, got {value!r}")
    if value > _USIZE_MAX:
        raise ConfigError(f"{name} must be below 2**{_USIZE_MAX.bit_length()}, got {value!r}")
    return int(value)


def _column(column: Any, name: Any) -> bytes:
    # bytes(5) would silently be five zero bytes: only bytes-like columns are columns.
    if not isinstance(column, (bytes, bytearray, memoryview)):
        raise ConfigError(f"column {name} must be bytes, got {type(column).__name__}")
    return bytes(column)


def _check_code(code: Any, k: int) -> None:
    if code not in CODES:
        raise ConfigError(f"unknown code {code!r}; valid: {', '.join(CODES)}")
    if code == "rs" and k > RS_MAX_DATA_COLUMNS:
        raise ConfigError(f"rs (P+Q) takes at most {RS_MAX_DATA_COLUMNS} data columns, got {k}: the Q coefficients "
                          "2^i repeat after 255 in GF(2^8). Linux md's own limit is lower: at most 256 devices "
                          "at level 6 (mdadm), i.e. 254 data disks, indices 0..253")


def _parity_pair(parity: Any) -> List[bytes]:
    if isinstance(parity, (str, bytes, bytearray, memoryview)) or not isinstance(parity, Sequence) or len(parity) != 2:
        got = f"{type(parity).__name__} of length {len(parity)}" if hasattr(parity, "__len__") else type(parity).__name__
        raise ConfigError(f"update needs both parity columns, [row_parity, second_parity]; got a {got}")
    return [_column(c, f"parity[{i}]") for i, c in enumerate(parity)]
