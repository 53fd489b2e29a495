"""Quantities with units at the edges: parse human text into SI, format SI for reports.

Inside :mod:`fcsim` every quantity is SI: seconds, bytes, bits/s, baud, metres.
Scenario files, the CLI and reports speak in human units; this module is the one
place that translates between the two.

A quantity is a decimal number (optional sign, fraction and exponent: ``5``,
``-1.5``, ``2e3``; no NaN, infinity or digit separators), optional blanks, then a
unit. Units are case-sensitive:

=======  ==================================================================  ===========
kind     units                                                               bare number
=======  ==================================================================  ===========
size     B, kB, MB, GB, TB (x1000); KiB, MiB, GiB, TiB (x1024);              bytes
         bit or b, with k, M, G, T (only if a whole number of bytes results)
time     ps, ns, us (or µs), ms, s, min, h                                   only 0
rate     bit/s, b/s or bps, with k, M, G, T; B/s, kB/s, MB/s, GB/s, TB/s;    only 0
         KiB/s, MiB/s, GiB/s, TiB/s (bytes/s count 8 bits per byte)
baud     baud, kbaud, Mbaud, Gbaud; or a catalog speed name (``1GFC``)       no
length   mm, cm, m, km                                                       only 0
=======  ==================================================================  ===========

``KB`` is refused on purpose: it means 1000 or 1024 depending on who wrote it;
write ``kB`` (1000) or ``KiB`` (1024). Parsers also take an ``int`` or ``float``,
read like the same number written without a unit (so only sizes accept
non-zero bare numbers). Sizes must be whole and non-negative, baud rates
positive; times, rates and lengths may carry a sign and their callers check the
range. Every refusal is a :class:`UnitError`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from fcsim.fc0.speed import CATALOG, CODING_8B10B, Speed, speed_named

Text = str | int | float
"""What the parsers accept: text with a unit, or a bare number (see above)."""


class UnitError(ValueError):
    """A quantity that cannot be read: bad number, unknown unit or out of range."""


_QUANTITY = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?)\s*(.*?)\s*")
_DECIMAL = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


@dataclass(frozen=True)
class _Kind:
    """One kind of quantity: its *units* (symbol -> SI scale) and how to explain it."""

    noun: str
    units: dict[str, Fraction]
    accepted: str
    example: str
    bare_any: bool = False

    def error(self, text: object, reason: str = "") -> UnitError:
        why = f" ({reason})" if reason else ""
        return UnitError(
            f"{text!r} is not a {self.noun}{why}; use a number and one of: "
            f"{self.accepted} (e.g. {self.example!r})"
        )


_SIZE = _Kind(
    "size",
    {
        **{p + "B": Fraction(s) for p, s in (_DECIMAL | _BINARY).items()},
        **{p + b: Fraction(s, 8) for p, s in _DECIMAL.items() for b in ("bit", "b")},
    },
    "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB, bit, kbit, Mbit, Gbit, Tbit",
    "2 MB",
    bare_any=True,
)
_TIME = _Kind(
    "time",
    {
        "ps": Fraction(1, 10**12),
        "ns": Fraction(1, 10**9),
        "us": Fraction(1, 10**6),
        "\u00b5s": Fraction(1, 10**6),  # MICRO SIGN
        "\u03bcs": Fraction(1, 10**6),  # GREEK SMALL LETTER MU
        "ms": Fraction(1, 10**3),
        "s": Fraction(1),
        "min": Fraction(60),
        "h": Fraction(3600),
    },
    "ps, ns, us, µs, ms, s, min, h",
    "5 us",
)
_RATE = _Kind(
    "rate",
    {
        **{p + u: Fraction(s) for p, s in _DECIMAL.items() for u in ("bit/s", "b/s", "bps")},
        **{p + "B/s": Fraction(8 * s) for p, s in (_DECIMAL | _BINARY).items()},
    },
    "bit/s, kbit/s, Mbit/s, Gbit/s, Tbit/s (or Mb/s, Mbps, ...), "
    "B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s",
    "82 Mbit/s",
)
_BAUD = _Kind(
    "baud rate",
    {p + "baud": Fraction(s) for p, s in _DECIMAL.items() if p != "T"},
    "baud, kbaud, Mbaud, Gbaud, or a speed name: " + ", ".join(CATALOG),
    "1.0625 Gbaud",
)
_LENGTH = _Kind(
    "length",
    {"mm": Fraction(1, 1000), "cm": Fraction(1, 100), "m": Fraction(1), "km": Fraction(1000)},
    "mm, cm, m, km",
    "10 km",
)


def _split(text: Text, kind: _Kind) -> tuple[str, str]:
    """The number and unit of *text* (unit "" if bare), checked against *kind*."""
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise kind.error(text)
    match = _QUANTITY.fullmatch(str(text))
    if match is None:
        raise kind.error(text)
    number, unit = match.groups()
    if not math.isfinite(float(number)):
        raise kind.error(text, "out of range")
    if unit and unit not in kind.units:
        raise kind.error(text)
    if not unit and not kind.bare_any and float(number) != 0:
        raise kind.error(text, "a unit is required")
    return number, unit


def _quantity(text: Text, kind: _Kind) -> Fraction:
    """The exact SI value of *text*."""
    number, unit = _split(text, kind)
    return Fraction(number) * kind.units.get(unit, 1)


def _si_float(text: Text, kind: _Kind) -> float:
    """The SI value of *text*, correctly rounded to a float."""
    try:
        return float(_quantity(text, kind))
    except OverflowError:
        raise kind.error(text, "out of range") from None


def parse_size(text: Text) -> int:
    """Bytes in *text* (``"2 MB"``, ``"64 KiB"``, ``"262143 B"``; bare number: bytes)."""
    value = _quantity(text, _SIZE)
    if value < 0:
        raise _SIZE.error(text, "sizes cannot be negative")
    if value.denominator != 1:
        raise _SIZE.error(text, "not a whole number of bytes")
    return int(value)


def parse_time(text: Text) -> float:
    """Seconds in *text* (``"5 us"``, ``"2 ms"``, ``"10 s"``); a unit is required except for 0."""
    return _si_float(text, _TIME)


def parse_rate(text: Text) -> float:
    """Bits/s in *text* (``"82 Mbit/s"``; ``"25 MB/s"`` is 200e6); unit required except for 0."""
    return _si_float(text, _RATE)


def parse_length(text: Text) -> float:
    """Metres in *text* (``"10 km"``, ``"5 m"``); a unit is required except for 0."""
    return _si_float(text, _LENGTH)


def parse_baud(text: Text) -> Speed:
    """The speed named by *text*: a catalog name (case-insensitive: ``"1gfc"``,
    ``"266M"``) or a positive baud rate (``"265.625 Mbaud"``), which gets 8b/10b coding
    and its normalised text as name."""
    if isinstance(text, str):
        try:
            return speed_named(text)
        except KeyError:
            pass
    number, unit = _split(text, _BAUD)
    baud = _si_float(text, _BAUD)
    if not baud > 0:
        raise _BAUD.error(text, "must be positive")
    return Speed(name=f"{number} {unit}", baud=baud, coding=CODING_8B10B)


_SIZE_STEPS = {0: "B", 3: "kB", 6: "MB", 9: "GB", 12: "TB"}
_TIME_STEPS = {-9: "ns", -6: "us", -3: "ms", 0: "s"}
_RATE_STEPS = {0: "bit/s", 3: "kbit/s", 6: "Mbit/s", 9: "Gbit/s", 12: "Tbit/s"}
_BYTES_RATE_STEPS = {0: "B/s", 3: "kB/s", 6: "MB/s", 9: "GB/s", 12: "TB/s"}


def _format(value: float, steps: dict[int, str]) -> str:
    """*value* to 4 significant digits in the largest unit of *steps* (power of ten ->
    symbol) not above it, the smallest unit if none is."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g} {steps[0]}"
    rounded = Decimal(f"{value:.4g}")
    exponent = max((e for e in steps if e <= rounded.adjusted()), default=min(steps))
    scaled = rounded.scaleb(-exponent)
    return f"{scaled:.{max(0, 3 - scaled.adjusted())}f} {steps[exponent]}"


def format_size(n_bytes: int) -> str:
    """``"512 B"``, ``"65.54 kB"``: exact below 1000 bytes, then decimal units."""
    return f"{n_bytes} B" if abs(n_bytes) < 1000 else _format(n_bytes, _SIZE_STEPS)


def format_time(seconds: float) -> str:
    """``"5.000 us"``, ``"1.234 ms"``: ns, us, ms or s, 4 significant digits."""
    return _format(seconds, _TIME_STEPS)


def format_rate(bits_per_s: float) -> str:
    """``"82.00 Mbit/s"``: bit/s with decimal prefixes, 4 significant digits."""
    return _format(bits_per_s, _RATE_STEPS)


def format_bytes_rate(bytes_per_s: float) -> str:
    """``"25.83 MB/s"``: bytes/s with decimal prefixes, 4 significant digits."""
    return _format(bytes_per_s, _BYTES_RATE_STEPS)
