"""FC-0: the speed catalog and cables against the standard's numbers."""

from __future__ import annotations

import pytest

from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import (
    CATALOG,
    CODING_8B10B,
    CODING_64B66B,
    CODING_256B257B,
    RS_528_514,
    RS_544_514,
    Speed,
    speed_named,
)
from fcsim.fc2.frame import frame_chars

FULL_FRAME_AND_IDLES = frame_chars(2112) + 24  # 2148 + six fill words


@pytest.mark.parametrize(("name", "baud", "coding"), [
    ("133M", 132.8125e6, CODING_8B10B), ("266M", 265.625e6, CODING_8B10B),
    ("531M", 531.25e6, CODING_8B10B), ("1062M", 1062.5e6, CODING_8B10B),
    ("1GFC", 1.0625e9, CODING_8B10B), ("2GFC", 2.125e9, CODING_8B10B),
    ("4GFC", 4.25e9, CODING_8B10B), ("8GFC", 8.5e9, CODING_8B10B),
    ("16GFC", 14.025e9, CODING_64B66B), ("32GFC", 28.05e9, CODING_256B257B),
    ("64GFC", 28.9e9, CODING_256B257B), ("128GFC", 28.05e9, CODING_256B257B),
])
def test_catalog(name: str, baud: float, coding) -> None:
    speed = CATALOG[name]
    assert speed.baud == baud and speed.coding is coding
    assert speed_named(name.lower()) is speed


@pytest.mark.parametrize(("name", "fec", "bits", "lanes"), [
    ("16GFC", None, 1, 1), ("32GFC", RS_528_514, 1, 1), ("64GFC", RS_544_514, 2, 1),
    ("128GFC", RS_528_514, 1, 4)])
def test_fec_modulation_and_lanes(name: str, fec, bits: int, lanes: int) -> None:
    speed = CATALOG[name]
    assert (speed.fec, speed.bits_per_symbol, speed.lanes) == (fec, bits, lanes)


def test_fec_codes() -> None:
    """IEEE 802.3 clause 91: ten-bit symbols; t = 7 for RS(528,514), 15 for RS(544,514)."""
    assert (RS_528_514.t, RS_528_514.codeword_bits) == (7, 5280)
    assert (RS_544_514.t, RS_544_514.codeword_bits) == (15, 5440)
    # a whole codeword's line time: 5280 bits at 28.05 Gbit/s, 5440 at 57.8 Gbit/s
    assert CATALOG["32GFC"].codeword_time == pytest.approx(5280 / 28.05e9)
    assert CATALOG["64GFC"].codeword_time == pytest.approx(5440 / 57.8e9)
    assert CATALOG["128GFC"].codeword_time == pytest.approx(5280 / (4 * 28.05e9))
    assert CATALOG["16GFC"].codeword_time == 0.0


@pytest.mark.parametrize("name", ["16GFC", "32GFC", "64GFC", "128GFC"])
def test_ordered_set_is_half_a_control_block(name: str) -> None:
    """From 16GFC on an ordered set rides in a 64b/66b control block that carries
    two: 33 block bits, to which transcoding and FEC add their share."""
    speed = CATALOG[name]
    block_bits = 66 / 2
    if speed.coding is CODING_256B257B:
        block_bits = 257 / 4 / 2 * speed.fec.n / speed.fec.k
    assert speed.word_time == pytest.approx(block_bits / speed.line_rate)


def test_byte_times_from_fact_sheet() -> None:
    assert CATALOG["266M"].char_time == pytest.approx(37.65e-9, rel=1e-3)
    assert CATALOG["1GFC"].char_time == pytest.approx(9.41e-9, rel=1e-3)
    assert CATALOG["266M"].word_time == pytest.approx(150.6e-9, rel=1e-3)


@pytest.mark.parametrize(("name", "micros"), [
    ("266M", 81.77), ("1GFC", 20.44), ("2GFC", 10.22), ("4GFC", 5.11), ("8GFC", 2.56)])
def test_full_frame_plus_idles(name: str, micros: float) -> None:
    """Fact sheet section 1: one 2148-byte frame and six idles."""
    assert FULL_FRAME_AND_IDLES * CATALOG[name].char_time == pytest.approx(micros * 1e-6,
                                                                            abs=0.006e-6)


def test_64b66b_char_rate() -> None:
    assert CATALOG["16GFC"].char_rate == pytest.approx(14.025e9 * 64 / 66 / 8)


def test_minimum_frame_at_1gfc() -> None:
    assert (frame_chars(0) + 24) * CATALOG["1GFC"].char_time == pytest.approx(0.565e-6, abs=1e-9)


def test_speed_refuses_non_positive_baud() -> None:
    with pytest.raises(ValueError):
        Speed("x", 0.0)


def test_cable_delay_and_limits() -> None:
    assert Cable(100_000.0).delay == pytest.approx(0.5e-3)  # Brocade: 100 km, 1 ms round trip
    assert Cable(1000.0, 4.9e-9).delay == pytest.approx(4.9e-6)
    with pytest.raises(ValueError):
        Cable(-1.0)
