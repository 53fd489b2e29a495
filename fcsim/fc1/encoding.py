"""The 8b/10b transmission code of FC-1, vectorised with NumPy.

A byte ``HGF EDCBA`` is named Dxx.y (data) or Kxx.y (special) with xx = EDCBA
and y = HGF. Bits EDCBA are coded as the 6-bit sub-block ``abcdei`` and HGF as
the 4-bit sub-block ``fghj``; bit ``a`` is transmitted first. A 10-bit code is
held as an int whose most significant of its 10 bits is ``a``: K28.5 is
``0b0011111010`` (0x0FA) at negative running disparity (RD-), 0x305 at RD+.

Running disparity (RD) is -1 or +1. After each sub-block it becomes positive
if the sub-block has more ones than zeros or is 000111 / 0011, negative if it
has more zeros or is 111000 / 1100, and is otherwise unchanged. Every code has
4, 5 or 6 ones, runs of at most 5 equal bits, and the comma ``0011111`` or
``1100000`` occurs only in K28.1, K28.5 and K28.7.

Sources: A. X. Widmer and P. A. Franaszek, "A DC-balanced, partitioned-block,
8B/10B transmission code", IBM J. Res. Dev. 27(5):440-451, 1983; ANSI
X3.230-1994 FC-PH clause 11; the project fact sheet (FC-1, 8b/10b).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fcsim.fc1.ordered_sets import OrderedSet

# 5b/6b sub-block (abcdei) for EDCBA = 0..31 at RD-; the RD+ form is the
# complement where the RD- form is unbalanced, and for D.07 (111000 / 000111).
_6B = (
    "100111", "011101", "101101", "110001", "110101", "101001", "011001", "111000",
    "111001", "100101", "010101", "110100", "001101", "101100", "011100", "010111",
    "011011", "100011", "010011", "110010", "001011", "101010", "011010", "111010",
    "110011", "100110", "010110", "110110", "001110", "101110", "011110", "101011",
)
_K28_6B = "001111"
# 3b/4b sub-block (fghj) for HGF = 0..7 at RD- (index 8: alternate D.x.A7);
# the RD+ form is the complement where unbalanced, and for x.3 (1100 / 0011).
_4B_DATA = ("1011", "1001", "0101", "1100", "1101", "1010", "0110", "1110", "0111")
# K.x.y 4b sub-block at RD-; unlike D.x.y, every one (balanced or not) is
# complemented at RD+, which puts the comma in K28.1, K28.5 and K28.7.
_4B_SPECIAL = ("1011", "0110", "1010", "1100", "1101", "0101", "1001", "0111")
_A7_AT = {-1: (17, 18, 20), 1: (11, 13, 14)}
"""EDCBA values whose D.x.7 takes the alternate form A7 at the given RD."""

VALID_SPECIAL: frozenset[int] = frozenset(
    [(y << 5) | 28 for y in range(8)] + [(7 << 5) | x for x in (23, 27, 29, 30)]
)
"""Byte values of the 12 valid special characters K28.0-K28.7, K23/27/29/30.7."""


def _disparity(bits: str) -> int:
    return bits.count("1") - bits.count("0")


def _at(bits: str, rd: int, flip: bool = False) -> str:
    """Sub-block *bits* (in its RD- form) as sent at RD *rd*; *flip*: always complement."""
    keep = not flip and _disparity(bits) == 0 and bits not in ("111000", "1100")
    return bits if rd < 0 or keep else bits.translate(str.maketrans("01", "10"))


def _after(bits: str, rd: int) -> int:
    """Running disparity after sending sub-block *bits* at running disparity *rd*."""
    if bits in ("000111", "0011", "111000", "1100"):
        return 1 if bits[0] == "0" else -1
    return rd if _disparity(bits) == 0 else (1 if _disparity(bits) > 0 else -1)


def _build() -> tuple[np.ndarray, ...]:
    enc = np.zeros((2, 2, 256), np.uint16)  # [special, rd > 0, byte] -> code
    neutral = np.zeros((2, 256), bool)  # [special, byte] -> RD unchanged
    dec = np.zeros(1024, np.uint16)  # code -> byte | 0x100 special
    valid = np.zeros((2, 1024), bool)  # [rd > 0, code] -> code is valid at rd
    for special in (0, 1):
        for byte in range(256):
            x, y = byte & 31, byte >> 5
            if special and byte not in VALID_SPECIAL:
                continue
            for rd in (-1, 1):
                six = _at(_K28_6B if special and x == 28 else _6B[x], rd)
                mid = _after(six, rd)
                if special:
                    four = _at(_4B_SPECIAL[y], mid, flip=True)
                else:
                    four = _at(_4B_DATA[8 if y == 7 and x in _A7_AT[mid] else y], mid)
                code = int(six + four, 2)
                enc[special, int(rd > 0), byte] = code
                neutral[special, byte] = _after(four, mid) == rd
                dec[code] = byte | special << 8
                valid[int(rd > 0), code] = True
    return enc, neutral, dec, valid


_ENC, _NEUTRAL, _DEC, _VALID = _build()
_SPECIAL_OK = np.isin(np.arange(256), sorted(VALID_SPECIAL))
_COMMAS = (0b0011111, 0b1100000)


def char_name(byte: int, special: bool = False) -> str:
    """The name Dxx.y or Kxx.y of *byte* (0..255)."""
    return f"{'K' if special else 'D'}{byte & 31}.{byte >> 5}"


def _check_rd(rd: int) -> None:
    if rd not in (-1, 1):
        raise ValueError(f"running disparity must be -1 or +1, not {rd!r}")


def encode(
    data: bytes | np.ndarray, special: np.ndarray | None = None, rd: int = -1
) -> tuple[np.ndarray, int]:
    """Encode bytes into 10-bit codes, starting at running disparity *rd* (-1 or +1).

    *special* is a bool mask (same length as *data*) marking K characters.
    Returns the uint16 codes and the running disparity after the last one.
    Raises ValueError if a special byte is not one of the 12 valid K codes.
    """
    _check_rd(rd)
    raw = np.frombuffer(data, np.uint8) if isinstance(data, bytes | bytearray) else data
    arr = np.asarray(raw)
    if arr.ndim != 1 or arr.size and (arr.min() < 0 or arr.max() > 255):
        raise ValueError("data must be a 1-D sequence of byte values 0..255")
    byte = arr.astype(np.intp)
    k = np.zeros(byte.shape, bool) if special is None else np.asarray(special, bool)
    if k.shape != byte.shape:
        raise ValueError("special mask must have the same length as data")
    bad = k & ~_SPECIAL_OK[byte]
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"byte 0x{byte[i]:02X} ({char_name(int(byte[i]), True)}) at index {i} "
            "is not a valid special character"
        )
    flips = (~_NEUTRAL[k.astype(np.intp), byte]).astype(np.intp)
    before = np.cumsum(flips) - flips  # flips before each character
    positive = (before % 2 == 1) ^ (rd > 0)
    codes = _ENC[k.astype(np.intp), positive.astype(np.intp), byte]
    return codes, rd * (-1) ** int(flips.sum())


@dataclass(frozen=True)
class Decoded:
    """Result of :func:`decode`; arrays have one entry per 10-bit code."""

    data: np.ndarray
    """Decoded byte values (uint8; 0 where ``code_violation``)."""
    special: np.ndarray
    """True where the code is a K character."""
    code_violation: np.ndarray
    """True where the pattern is not a valid code at either disparity."""
    disparity_error: np.ndarray
    """True where the code is valid, but only at the other running disparity."""
    rd: int
    """Running disparity after the last code (-1 or +1)."""


def _sub_block_rd(bits: np.ndarray) -> np.ndarray:
    """Per sub-block (rows of *bits*): +1 positive, -1 negative, 0 leaves RD unchanged."""
    width = bits.shape[1]
    ones = bits.sum(axis=1, dtype=np.intp)
    sign = np.sign(2 * ones - width)
    value = bits @ (1 << np.arange(width - 1, -1, -1))
    low, high = (0b000111, 0b111000) if width == 6 else (0b0011, 0b1100)
    return np.where(value == low, 1, np.where(value == high, -1, sign))


def decode(codes: np.ndarray, rd: int = -1) -> Decoded:
    """Decode 10-bit *codes*, starting at running disparity *rd* (-1 or +1).

    The running disparity is tracked per sub-block from the codes received.
    After a disparity error, decoding continues with the disparity that the
    received character implies.
    """
    _check_rd(rd)
    arr = np.asarray(codes)
    if arr.ndim != 1 or arr.size and (arr.min() < 0 or arr.max() > 1023):
        raise ValueError("codes must be a 1-D sequence of 10-bit values 0..1023")
    code = arr.astype(np.intp)
    bits = to_bits(code).reshape(-1, 10)
    states = np.empty(2 * code.size + 1, np.intp)
    states[0] = rd
    states[1::2] = _sub_block_rd(bits[:, :6])
    states[2::2] = _sub_block_rd(bits[:, 6:])
    last = np.maximum.accumulate(np.where(states != 0, np.arange(states.size), 0))
    running = states[last]
    before = running[:-1:2] > 0
    violation = ~(_VALID[0, code] | _VALID[1, code])
    value = _DEC[code]
    return Decoded(
        data=(value & 0xFF).astype(np.uint8),
        special=(value >> 8).astype(bool),
        code_violation=violation,
        disparity_error=~violation & ~_VALID[before.astype(np.intp), code],
        rd=int(running[-1]),
    )


def code_for(byte: int, special: bool = False, rd: int = -1) -> int:
    """The 10-bit code of one character *byte* sent at running disparity *rd*."""
    codes, _ = encode(np.array([byte]), np.array([special]), rd)
    return int(codes[0])


def encode_ordered_set(os: OrderedSet, rd: int = -1) -> tuple[np.ndarray, int]:
    """Encode an ordered set (K28.5 then three data characters) from *rd*.

    For an EOF begun at RD+ the form with Dxx.5 second is chosen.
    Returns the four codes and the running disparity after them.
    """
    chars = os.chars_positive if rd > 0 else os.chars
    return encode(chars, np.array([True, False, False, False]), rd)


def to_bits(codes: np.ndarray | int) -> np.ndarray:
    """The bits (uint8 0/1) of 10-bit *codes* in transmission order, ``a`` first."""
    arr = np.atleast_1d(np.asarray(codes, np.intp))
    return ((arr[:, None] >> np.arange(9, -1, -1)) & 1).astype(np.uint8).ravel()


def from_bits(bits: np.ndarray) -> np.ndarray:
    """The uint16 10-bit codes of a bit stream (length a multiple of 10), ``a`` first."""
    arr = np.asarray(bits, np.intp)
    if arr.ndim != 1 or arr.size % 10:
        raise ValueError("bit stream length must be a multiple of 10")
    return (arr.reshape(-1, 10) @ (1 << np.arange(9, -1, -1))).astype(np.uint16)


def is_comma(codes: np.ndarray | int) -> np.ndarray:
    """Whether each 10-bit code begins with a comma (``abcdefg`` = 0011111 or 1100000)."""
    head = np.asarray(codes, np.intp) >> 3
    return (head == _COMMAS[0]) | (head == _COMMAS[1])


def find_commas(bits: np.ndarray) -> np.ndarray:
    """Bit offsets in the stream *bits* (0/1) at which a 7-bit comma begins."""
    arr = np.asarray(bits, np.intp)
    if arr.size < 7:
        return np.zeros(0, np.intp)
    window = np.lib.stride_tricks.sliding_window_view(arr, 7) @ (1 << np.arange(6, -1, -1))
    return np.flatnonzero((window == _COMMAS[0]) | (window == _COMMAS[1]))
