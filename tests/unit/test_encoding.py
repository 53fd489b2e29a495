"""Tests for the 8b/10b codec in fcsim.fc1.encoding."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.fc1.encoding import (
    VALID_SPECIAL,
    char_name,
    code_for,
    decode,
    encode,
    find_commas,
    from_bits,
    is_comma,
    to_bits,
)

K28_5 = 0xBC
SPECIAL = sorted(VALID_SPECIAL)


def b(x: int, y: int) -> int:
    return (y << 5) | x


def all_codes() -> list[tuple[int, bool, int, int]]:
    """(byte, special, rd, code) for every character at both disparities."""
    chars = [(v, False) for v in range(256)] + [(v, True) for v in SPECIAL]
    return [(v, k, rd, code_for(v, k, rd)) for v, k in chars for rd in (-1, 1)]


def stream(data: list[int], k_at: list[bool]) -> tuple[np.ndarray, np.ndarray]:
    """Bytes and K mask, with the bytes marked K replaced by valid K characters."""
    mask = np.array(k_at[: len(data)] + [False] * (len(data) - len(k_at)), bool)
    arr = np.array(data, np.uint8)
    arr[mask] = np.array(SPECIAL, np.uint8)[arr[mask] % len(SPECIAL)]
    return arr, mask


def test_k28_5() -> None:
    assert code_for(K28_5, special=True, rd=-1) == 0b0011111010 == 0x0FA
    assert code_for(K28_5, special=True, rd=1) == 0b1100000101 == 0x305


@pytest.mark.parametrize(
    ("byte", "special", "minus", "plus"),
    [
        (b(0, 0), False, 0b100111_0100, 0b011000_1011),
        (b(21, 5), False, 0b101010_1010, 0b101010_1010),
        (b(10, 2), False, 0b010101_0101, 0b010101_0101),
        (b(7, 0), False, 0b111000_1011, 0b000111_0100),
        (b(7, 3), False, 0b111000_1100, 0b000111_0011),
        (b(15, 0), False, 0b010111_0100, 0b101000_1011),
        (b(17, 7), False, 0b100011_0111, 0b100011_0001),  # A7 at RD-
        (b(11, 7), False, 0b110100_1110, 0b110100_1000),  # A7 at RD+
        (b(31, 7), False, 0b101011_0001, 0b010100_1110),
        (b(28, 1), True, 0b001111_1001, 0b110000_0110),
        (b(28, 7), True, 0b001111_1000, 0b110000_0111),
        (b(23, 7), True, 0b111010_1000, 0b000101_0111),
        (b(30, 7), True, 0b011110_1000, 0b100001_0111),
    ],
)
def test_known_codes(byte: int, special: bool, minus: int, plus: int) -> None:
    assert code_for(byte, special, -1) == minus
    assert code_for(byte, special, 1) == plus


def test_every_character_round_trips() -> None:
    for byte, special, rd, code in all_codes():
        out = decode(np.array([code]), rd)
        assert (int(out.data[0]), bool(out.special[0])) == (byte, special), char_name(byte)
        assert not out.code_violation[0] and not out.disparity_error[0]


def test_code_table_shape() -> None:
    codes = {code for *_, code in all_codes()}
    assert len(VALID_SPECIAL) == 12
    assert len(codes) == 464  # 2 * 268, less the 72 identical at both disparities
    ones = [bin(c).count("1") for c in codes]
    assert set(ones) == {4, 5, 6}


def test_invalid_special_names_the_byte() -> None:
    with pytest.raises(ValueError, match=r"0x00 \(K0\.0\)"):
        encode(np.array([0xBC, 0x00]), np.array([True, True]))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        encode(b"\x00", rd=0)
    with pytest.raises(ValueError):
        encode(np.array([256]))
    with pytest.raises(ValueError):
        decode(np.array([1024]))
    with pytest.raises(ValueError):
        from_bits(np.zeros(9, np.uint8))


def test_commas_only_in_k28_1_5_7() -> None:
    with_comma = {
        char_name(byte, special)
        for byte, special, _, code in all_codes()
        if find_commas(to_bits(code)).size
    }
    assert with_comma == {"K28.1", "K28.5", "K28.7"}
    codes = np.array([c for *_, c in all_codes()])
    assert {char_name(v, k) for v, k, _, c in all_codes() if is_comma(c)} == with_comma
    assert is_comma(codes).sum() == 6


def test_code_violation_and_disparity_error() -> None:
    d215 = b(21, 5)  # neutral and the same at both disparities
    codes, _ = encode(np.array([d215, K28_5, d215, d215]), np.array([0, 1, 0, 0], bool))
    bad = codes.copy()
    bad[1] = 0b1111111111
    out = decode(bad)
    assert out.code_violation.tolist() == [False, True, False, False]
    assert not out.disparity_error.any()

    wrong = codes.copy()
    wrong[1] = code_for(K28_5, True, rd=1)  # RD+ form sent at RD-
    out = decode(wrong)
    assert out.disparity_error.tolist() == [False, True, False, False]
    assert not out.code_violation.any()
    assert out.special[1] and out.data[1] == K28_5
    assert out.rd == -1  # continues with the disparity the received K28.5 implies


def test_decode_continues_from_received_disparity() -> None:
    # K28.5 RD+ form at RD- leaves RD negative, so D0.0 RD- form next is not an error.
    codes = np.array([code_for(K28_5, True, 1), code_for(0, False, -1)])
    out = decode(codes, rd=-1)
    assert out.disparity_error.tolist() == [True, False]
    assert out.rd == -1
    # D7.1 RD- form (111000 1001) at RD+: 111000 counts as negative, so RD turns negative.
    codes = np.array([code_for(b(7, 1), False, -1), code_for(0, False, -1)])
    out = decode(codes, rd=1)
    assert out.disparity_error.tolist() == [True, False]
    assert out.rd == -1


def test_bits_round_trip() -> None:
    codes = np.array([0x0FA, 0x305, 0])
    bits = to_bits(codes)
    assert bits.dtype == np.uint8
    assert bits[:10].tolist() == [0, 0, 1, 1, 1, 1, 1, 0, 1, 0]  # a first
    assert from_bits(bits).tolist() == codes.tolist()


def test_empty() -> None:
    codes, rd = encode(b"", rd=1)
    assert codes.size == 0 and rd == 1
    assert decode(codes, rd=1).rd == 1


bytes_and_k = st.lists(st.integers(0, 255), max_size=300).flatmap(
    lambda data: st.tuples(st.just(data), st.lists(st.booleans(), max_size=len(data)))
)


@settings(max_examples=200, deadline=None)
@given(bytes_and_k, st.sampled_from([-1, 1]))
def test_encode_decode_round_trip(case: tuple[list[int], list[bool]], rd: int) -> None:
    data, mask = stream(*case)
    codes, final = encode(data, mask, rd)
    assert codes.dtype == np.uint16
    out = decode(codes, rd)
    assert out.data.tolist() == data.tolist()
    assert out.special.tolist() == mask.tolist()
    assert not out.code_violation.any() and not out.disparity_error.any()
    assert out.rd == final


@settings(max_examples=200, deadline=None)
@given(bytes_and_k, st.sampled_from([-1, 1]))
def test_run_length_and_digital_sum(case: tuple[list[int], list[bool]], rd: int) -> None:
    data, mask = stream(*case)
    codes, final = encode(data, mask, rd)
    bits = to_bits(codes).astype(int)
    if bits.size:
        edges = np.flatnonzero(np.diff(bits))
        assert np.diff(np.r_[-1, edges, bits.size - 1]).max() <= 5
    # Running digital sum, starting from the disparity: within +-3 anywhere,
    # and equal to the running disparity (+-1) at every character boundary.
    rds = rd + np.cumsum(2 * bits - 1)
    assert np.all(np.abs(rds) <= 3)
    assert set(rds[9::10].tolist()) <= {-1, 1}
    assert (rds[-1] if rds.size else rd) == final


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200), st.lists(st.integers(0, 199), max_size=20))
def test_comma_only_at_k28_5(data: bytes, at: list[int]) -> None:
    arr = np.frombuffer(data, np.uint8).copy()
    mask = np.zeros(arr.size, bool)
    where = sorted({i for i in at if i < arr.size})
    arr[where], mask[where] = K28_5, True
    codes, _ = encode(arr, mask)
    assert find_commas(to_bits(codes)).tolist() == [10 * i for i in where]
