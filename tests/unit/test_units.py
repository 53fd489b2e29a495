"""Parsing human units into SI and formatting SI for reports (fcsim.units)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcsim.fc0.speed import CATALOG, CODING_8B10B, speed_named
from fcsim.units import (
    UnitError,
    format_bytes_rate,
    format_rate,
    format_size,
    format_time,
    parse_baud,
    parse_length,
    parse_rate,
    parse_size,
    parse_time,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("2 MB", 2_000_000),
    ("262143 B", 262143),
    ("64 KiB", 65536),
    ("1.5 kB", 1500),
    ("2 MiB", 2 * 1024**2),
    ("4 GiB", 4 * 1024**3),
    ("1 TB", 10**12),
    ("1 TiB", 1024**4),
    ("8 kbit", 1000),
    ("16 bit", 2),
    ("8 Mb", 1_000_000),
    ("1.1 kB", 1100),  # exact: no float rounding to 1100.0000000000002
    ("2e3 B", 2000),
    ("  64KiB  ", 65536),
    ("0 B", 0),
    ("2048", 2048),
    (2048, 2048),
    (2048.0, 2048),
])
def test_parse_size(text, expected):
    result = parse_size(text)
    assert result == expected
    assert type(result) is int


def test_decimal_and_binary_prefixes_are_kept_apart():
    assert parse_size("1 kB") == 1000
    assert parse_size("1 KiB") == 1024
    assert parse_size("1 MB") == 1000**2
    assert parse_size("1 MiB") == 1024**2
    assert parse_rate("1 kB/s") == 8000
    assert parse_rate("1 KiB/s") == 8192
    with pytest.raises(UnitError, match="kB.*KiB"):
        parse_size("64 KB")  # ambiguous: refused


@pytest.mark.parametrize(("text", "expected"), [
    ("5 us", 5e-6),
    ("5 µs", 5e-6),
    ("5 \u03bcs", 5e-6),
    ("5us", 5e-6),
    ("10 s", 10.0),
    ("2 ms", 2e-3),
    ("100 ns", 100e-9),
    ("1 ps", 1e-12),
    ("2 min", 120.0),
    ("1.5 h", 5400.0),
    ("-3 ms", -3e-3),
    ("0", 0.0),
    (0, 0.0),
    (0.0, 0.0),
])
def test_parse_time(text, expected):
    assert parse_time(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("82 Mbit/s", 82e6),
    ("82 Mb/s", 82e6),
    ("82 Mbps", 82e6),
    ("25 MB/s", 200e6),
    ("1 Gbit/s", 1e9),
    ("10 kbit/s", 10e3),
    ("64 KiB/s", 64 * 1024 * 8),
    ("1 bit/s", 1.0),
    ("0", 0.0),
])
def test_parse_rate(text, expected):
    assert parse_rate(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("10 km", 10_000.0),
    ("5 m", 5.0),
    ("300 cm", 3.0),
    ("2.5 mm", 2.5e-3),
    ("-1 m", -1.0),
    ("0", 0.0),
    (0, 0.0),
])
def test_parse_length(text, expected):
    assert parse_length(text) == expected


@pytest.mark.parametrize("name", ["1GFC", "1gfc", " 266m ", "16GFC", "32gfc"])
def test_parse_baud_catalog_name(name):
    assert parse_baud(name) is speed_named(name)


@pytest.mark.parametrize(("text", "baud", "name"), [
    ("265.625 Mbaud", 265.625e6, "265.625 Mbaud"),
    ("1.0625 Gbaud", 1.0625e9, "1.0625 Gbaud"),
    ("1062500000 baud", 1.0625e9, "1062500000 baud"),
    ("  531.25Mbaud ", 531.25e6, "531.25 Mbaud"),
])
def test_parse_baud_direct(text, baud, name):
    speed = parse_baud(text)
    assert speed.baud == baud
    assert speed.name == name
    assert speed.coding == CODING_8B10B


def test_direct_baud_matches_catalog_timing():
    assert parse_baud("1.0625 Gbaud").char_time == CATALOG["1GFC"].char_time


PARSERS = {
    "size": (parse_size, "KiB"),
    "time": (parse_time, "us"),
    "rate": (parse_rate, "Mbit/s"),
    "baud rate": (parse_baud, "Mbaud"),
    "length": (parse_length, "km"),
}


@pytest.mark.parametrize("noun", PARSERS)
@pytest.mark.parametrize("bad", [
    "10 parsecs", "", "   ", "km", "MB", "ten s", "nan s", "inf s", "1.2.3 s", "1 2 s",
    "1_000 s", "--1 s", True, False, None, [1], "5 KB",
])
def test_refusal_names_the_text_and_the_accepted_units(noun, bad):
    parse, unit = PARSERS[noun]
    with pytest.raises(UnitError) as caught:
        parse(bad)
    message = str(caught.value)
    assert repr(bad) in message
    assert f"is not a {noun}" in message
    assert unit in message


def test_length_message():
    with pytest.raises(UnitError) as caught:
        parse_length("10 parsecs")
    assert str(caught.value) == (
        "'10 parsecs' is not a length; use a number and one of: mm, cm, m, km (e.g. '10 km')"
    )


def test_unit_error_is_a_value_error():
    assert issubclass(UnitError, ValueError)


@pytest.mark.parametrize("parse", [parse_time, parse_rate, parse_length, parse_baud])
@pytest.mark.parametrize("bare", ["5", "1e3", 5, 2.5])
def test_nonzero_bare_number_needs_a_unit(parse, bare):
    with pytest.raises(UnitError, match="a unit is required"):
        parse(bare)


@pytest.mark.parametrize(("text", "reason"), [
    ("-5 B", "cannot be negative"),
    (-5, "cannot be negative"),
    ("1.5 B", "whole number of bytes"),
    ("1 bit", "whole number of bytes"),
    ("0.1 KiB", "whole number of bytes"),
    (2.5, "whole number of bytes"),
])
def test_size_must_be_whole_and_non_negative(text, reason):
    with pytest.raises(UnitError, match=reason):
        parse_size(text)


@pytest.mark.parametrize("text", ["0 baud", "-1 Gbaud"])
def test_baud_must_be_positive(text):
    with pytest.raises(UnitError, match="must be positive"):
        parse_baud(text)


@pytest.mark.parametrize("text", ["1e999 s", "1e306 h", "-1e999 s"])
def test_out_of_range(text):
    with pytest.raises(UnitError, match="out of range"):
        parse_time(text)


@pytest.mark.parametrize(("value", "expected"), [
    (0, "0 B"), (512, "512 B"), (999, "999 B"), (65536, "65.54 kB"),
    (2_000_000, "2.000 MB"), (999_999, "1.000 MB"), (4 * 1024**3, "4.295 GB"),
])
def test_format_size(value, expected):
    assert format_size(value) == expected


@pytest.mark.parametrize(("value", "expected"), [
    (0.0, "0 s"), (5e-6, "5.000 us"), (1.2345e-3, "1.234 ms"), (12.5, "12.50 s"),
    (100e-9, "100.0 ns"), (999.96e-6, "1.000 ms"), (1e-12, "0.001000 ns"),
    (-2e-3, "-2.000 ms"), (12345.0, "12340 s"),
])
def test_format_time(value, expected):
    assert format_time(value) == expected


def test_format_rates():
    assert format_rate(82e6) == "82.00 Mbit/s"
    assert format_rate(1.0625e9) == "1.062 Gbit/s"
    assert format_rate(999_960.0) == "1.000 Mbit/s"
    assert format_rate(0.0) == "0 bit/s"
    assert format_bytes_rate(25.83e6) == "25.83 MB/s"
    assert format_bytes_rate(100.0) == "100.0 B/s"


# --- properties -------------------------------------------------------------

# Subnormal floats are left out: x * scale loses their precision, exact parsing does not.
finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False,
                   allow_subnormal=False)
positive = st.floats(min_value=1e-15, max_value=1e15)

SCALES = {
    parse_time: {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0,
                 "min": 60.0, "h": 3600.0},
    parse_rate: {"bit/s": 1.0, "kbit/s": 1e3, "Mb/s": 1e6, "Gbps": 1e9, "B/s": 8.0,
                 "MB/s": 8e6, "KiB/s": 8192.0, "GiB/s": 8 * 1024.0**3},
    parse_length: {"mm": 1e-3, "cm": 1e-2, "m": 1.0, "km": 1e3},
}
CASES = [(parse, unit, scale) for parse, units in SCALES.items() for unit, scale in units.items()]


@given(x=finite, case=st.sampled_from(CASES), space=st.sampled_from(["", " ", "  "]))
def test_parse_float_round_trip(x, case, space):
    parse, unit, scale = case
    assert parse(f"{x}{space}{unit}") == pytest.approx(x * scale, rel=1e-15, abs=0)


@given(n=st.integers(min_value=0, max_value=10**9),
       unit=st.sampled_from([("B", 1), ("kB", 1000), ("MB", 10**6), ("KiB", 1024),
                             ("MiB", 1024**2), ("GiB", 1024**3)]))
def test_parse_size_round_trip(n, unit):
    symbol, scale = unit
    assert parse_size(f"{n} {symbol}") == n * scale


@given(n=st.integers(min_value=0, max_value=10**15))
def test_format_size_then_parse(n):
    assert parse_size(format_size(n)) == pytest.approx(n, rel=5e-4)


@given(x=positive)
def test_format_time_then_parse(x):
    text = format_time(x)
    assert parse_time(text) == pytest.approx(x, rel=5e-4)


@given(x=positive)
def test_format_rates_then_parse(x):
    assert parse_rate(format_rate(x)) == pytest.approx(x, rel=5e-4)
    assert parse_rate(format_bytes_rate(x)) == pytest.approx(8 * x, rel=5e-4)


@given(x=st.floats(min_value=1e-6, max_value=1e15))
def test_format_gives_four_significant_digits(x):
    number = format_rate(x).split()[0]
    assert len(number.replace(".", "").lstrip("0")) == 4
