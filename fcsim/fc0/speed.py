"""Line rates and transmission codes of the FC-0 speed variants.

A :class:`Speed` turns a count of transmission characters into time on the
wire. It is the one place where bytes become seconds, so every model that asks
"how long does this take on the link" calls :meth:`Speed.char_time`.

Sources: FC-PH (ANSI X3.230-1994) speed options 132.8125, 265.625, 531.25 and
1062.5 Mbaud with 8b/10b coding; FC-PI for 2/4/8GFC (8b/10b) and 16/32GFC
(14.025 / 28.05 Gbaud, 64b/66b). Ethernet and Myrinet speeds beside them:
see the catalog's comments and ``docs/ethernet.md``, ``docs/myrinet.md``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Coding:
    """A block transmission code: *data_bits* carried in *code_bits* on the line."""

    name: str
    data_bits: int
    code_bits: int

    @property
    def line_bits_per_byte(self) -> float:
        """Line bits spent per data byte (10 for 8b/10b, 8.25 for 64b/66b)."""
        return 8 * self.code_bits / self.data_bits


CODING_8B10B = Coding("8b/10b", 8, 10)
CODING_64B66B = Coding("64b/66b", 64, 66)
CODING_4B5B = Coding("4b/5b", 4, 5)
CODING_9BIT = Coding("9-bit characters", 8, 9)
"""Myrinet's byte-wide channel: each character is 8 data bits and a flag telling
data from a control symbol (GAP, STOP, GO, IDLE), so a data byte costs one
character and nothing else."""


@dataclass(frozen=True, slots=True)
class Speed:
    """A line rate: *baud* symbols per second using *coding*.

    *name* is the catalog name ("1GFC") or a description of a directly given
    baud rate.
    """

    name: str
    baud: float
    coding: Coding = CODING_8B10B

    def __post_init__(self) -> None:
        if not self.baud > 0:
            raise ValueError(f"baud must be positive, got {self.baud!r}")

    @property
    def char_time(self) -> float:
        """Time of one transmission character (one data byte) on the wire, s."""
        return self.coding.line_bits_per_byte / self.baud

    @property
    def word_time(self) -> float:
        """Time of one transmission word (four characters), s."""
        return 4 * self.char_time

    @property
    def char_rate(self) -> float:
        """Transmission characters per second (bytes/s of raw line capacity)."""
        return self.baud / self.coding.line_bits_per_byte

    def __str__(self) -> str:
        return f"{self.name} ({self.baud / 1e6:g} Mbaud, {self.coding.name})"


def _catalog() -> dict[str, Speed]:
    entries = [
        Speed("133M", 132.8125e6),
        Speed("266M", 265.625e6),
        Speed("531M", 531.25e6),
        Speed("1062M", 1062.5e6),
        Speed("1GFC", 1.0625e9),
        Speed("2GFC", 2.125e9),
        Speed("4GFC", 4.25e9),
        Speed("8GFC", 8.5e9),
        Speed("16GFC", 14.025e9, CODING_64B66B),
        Speed("32GFC", 28.05e9, CODING_64B66B),
        # Ethernet on the same link machinery (IEEE 802.3): Fast Ethernet's 4B/5B
        # at 125 Mbaud (100BASE-TX, -FX), 1000BASE-X's 8b/10b at 1.25 Gbaud (the
        # FC-1 code), 10GBASE-R's 64b/66b at 10.3125 Gbaud
        Speed("100BASE-TX", 125e6, CODING_4B5B),
        Speed("1000BASE-X", 1.25e9),
        Speed("10GBASE-R", 10.3125e9, CODING_64B66B),
        # Myrinet: the LANai 4 to 7 generation's 1.28 Gbit/s per direction is 160
        # million 9-bit characters a second (6.25 ns a byte), written as 1.44 Gbaud of
        # 9-bit code; Myrinet-2000's serial links are 8b/10b at 2.5 Gbaud: 2 Gbit/s
        # (storage-and-lan fact sheet 1.1; docs/myrinet.md)
        Speed("Myrinet-1280", 1.44e9, CODING_9BIT),
        Speed("Myrinet-2000", 2.5e9),
    ]
    return {speed.name: speed for speed in entries}


CATALOG: dict[str, Speed] = _catalog()
"""The named speeds of every technology, by catalog name. Lookup with
:func:`speed_named`."""


def speed_named(name: str) -> Speed:
    """Return the catalog speed *name* (case-insensitive); KeyError if unknown."""
    for key, speed in CATALOG.items():
        if key.lower() == name.strip().lower():
            return speed
    raise KeyError(name)
