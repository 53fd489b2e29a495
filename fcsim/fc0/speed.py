"""Line rates and transmission codes of the FC-0 speed variants.

A :class:`Speed` turns a count of transmission characters into time on the
wire. It is the one place where bytes become seconds, so every model that asks
"how long does this take on the link" calls :meth:`Speed.char_time`.

A speed's line carries ``baud x bits_per_symbol x lanes`` bits a second; of
them the transmission code keeps ``data_bits / code_bits`` and the forward
error correction code ``k / n``, so a data byte costs
``8 x (code_bits / data_bits) x (n / k)`` line bits (:attr:`Speed.line_bits_per_byte`,
computed exactly as a fraction).

Sources: FC-PH (ANSI X3.230-1994) speed options 132.8125, 265.625, 531.25 and
1062.5 Mbaud with 8b/10b coding; FC-PI-4 for 2/4/8GFC (8b/10b); FC-PI-5 and
FC-FS-3 for 16GFC (14.025 GBd NRZ, 64b/66b; its optional FC-FEC, the
(2112,2080) code of IEEE 802.3 clause 74 on 64b/66b blocks transcoded to
64b/65b, negotiated per link, :func:`with_fc_fec`); FC-PI-6 and FC-FS-4
clause 5.4 for 32GFC (28.05 GBd NRZ, 64b/66b blocks transcoded to 256b/257b,
mandatory RS(528,514) FEC); FC-PI-6P and FC-FS-4 clause 5.6 for 128GFC (four
lanes of 28.05 GBd, 256b/257b, RS(528,514)); FC-PI-7 and FC-FS-5 for 64GFC
(28.9 GBd PAM4, that is 57.8 Gbit/s, 256b/257b, RS(544,514)). The FC-FS-4
clause numbers are those Intel's RS-FEC user guide cites (E-Tile Transceiver
PHY User Guide 683723, section 3.3); the 64GFC values are the FCIA roadmap's
and FC-PI-7's as summarised in ``docs/model.md``. Ethernet and Myrinet speeds
beside them: see the catalog's comments and ``docs/ethernet.md``,
``docs/myrinet.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


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
CODING_256B257B = Coding("256b/257b", 256, 257)
"""Four 64b/66b blocks transcoded into one 257-bit block: their eight sync-header
bits become one header bit (FC-FS-4 clause 5.4, IEEE 802.3 clause 91.5.2.5)."""
CODING_64B65B = Coding("64b/65b", 64, 65)
"""64b/66b blocks whose two-bit sync header is sent as one bit, 32 of them
(2080 bits) in each FC-FEC codeword, whose 32 parity bits take the place of
the bits saved: the line still carries 66 bits per 64 (IEEE 802.3 clause
74.7.4.3)."""
CODING_4B5B = Coding("4b/5b", 4, 5)
CODING_9BIT = Coding("9-bit characters", 8, 9)
"""Myrinet's byte-wide channel: each character is 8 data bits and a flag telling
data from a control symbol (GAP, STOP, GO, IDLE), so a data byte costs one
character and nothing else."""


@dataclass(frozen=True, slots=True)
class Fec:
    """A forward error correction code of *n*-symbol codewords carrying *k*
    message symbols of *symbol_bits* bits. With *burst_bits* 0 it is a
    Reed-Solomon code RS(*n*, *k*): it corrects up to ``t = (n - k) // 2``
    symbols in error. With *burst_bits* > 0 it is a binary burst-correcting
    code (one-bit symbols): it corrects the errors of a codeword that all lie
    within one span of *burst_bits* bits (FC-FEC's Fire code).
    """

    name: str
    n: int
    k: int
    symbol_bits: int = 10
    burst_bits: int = 0

    @property
    def t(self) -> int:
        """Symbols in error a Reed-Solomon codeword can carry and still be corrected."""
        return (self.n - self.k) // 2

    @property
    def codeword_bits(self) -> int:
        """Line bits of one codeword (5280 for RS(528,514), 5440 for RS(544,514))."""
        return self.n * self.symbol_bits


RS_528_514 = Fec("RS(528,514)", 528, 514)
"""The "KR4" code of IEEE 802.3 clause 91, 32GFC's and 128GFC's FEC (FC-FS-4 5.4, 5.6)."""
RS_544_514 = Fec("RS(544,514)", 544, 514)
"""The "KP4" code of IEEE 802.3 clause 91, 64GFC's FEC (FC-FS-5, FC-PI-7)."""
FC_FEC = Fec("FC-FEC (2112,2080)", 2112, 2080, symbol_bits=1, burst_bits=11)
"""16GFC's optional FEC (FC-FS-3, FC-PI-5): the shortened cyclic (Fire) code
(2112, 2080) of IEEE 802.3 clause 74 (10GBASE-KR's BASE-R FEC), 2080 bits of
32 transcoded 64b/66b blocks and 32 parity bits a codeword, "guaranteed to
correct an error burst of up to 11 bits per block" (Intel AN 846, Stratix 10
Forward Error Correction, 4.1)."""


@dataclass(frozen=True, slots=True)
class Speed:
    """A line rate: *baud* symbols per second on each of *lanes* lanes, each
    symbol carrying *bits_per_symbol* bits (1 for NRZ, 2 for PAM4), using
    *coding* and, if given, the forward error correction code *fec*.

    *name* is the catalog name ("1GFC") or a description of a directly given
    baud rate.
    """

    name: str
    baud: float
    coding: Coding = CODING_8B10B
    fec: Fec | None = None
    bits_per_symbol: int = 1
    lanes: int = 1
    fill_word: str | None = None
    """The primitive signal sent as fill word when it is not the technology's
    usual one (IDLE for Fibre Channel): "ARB(FF)" at 8GFC (:func:`with_arb_ff_fill`)."""

    def __post_init__(self) -> None:
        if not self.baud > 0:
            raise ValueError(f"baud must be positive, got {self.baud!r}")

    @property
    def line_rate(self) -> float:
        """Line bits per second over all lanes, bits/s."""
        return self.baud * self.bits_per_symbol * self.lanes

    @property
    def line_bits_per_byte(self) -> float:
        """Line bits one data byte costs: the coding's and the FEC's overheads
        (10 for 8b/10b, 8.25 for 64b/66b and for 256b/257b with RS(528,514),
        8 x 257/256 x 544/514 for 256b/257b with RS(544,514))."""
        bits = Fraction(8 * self.coding.code_bits, self.coding.data_bits)
        if self.fec is not None:
            bits *= Fraction(self.fec.n, self.fec.k)
        return float(bits)

    @property
    def char_time(self) -> float:
        """Time of one transmission character (one data byte) on the wire, s."""
        return self.line_bits_per_byte / self.line_rate

    @property
    def word_time(self) -> float:
        """Time of one transmission word (four characters), s.

        This is also the line time of one ordered set (a primitive signal, a
        fill word, a delimiter) at every speed: with 8b/10b an ordered set is
        four characters; from 16GFC on it travels in a 64b/66b control block
        that carries two ordered sets (block types 0x55, 0x4B, 0x2D of FC-FS-3
        clause 5), so it costs half of 66 bits, 33 bits, which is four
        characters at 8.25 bits each; at 32GFC and faster the block is
        transcoded and FEC-protected like data, so again four characters.
        """
        return 4 * self.char_time

    @property
    def char_rate(self) -> float:
        """Transmission characters per second (bytes/s of raw line capacity)."""
        return self.line_rate / self.line_bits_per_byte

    @property
    def codeword_time(self) -> float:
        """Line time of one FEC codeword (0 without FEC), s: the time a receiver
        waits for a whole codeword before it can decode it."""
        if self.fec is None:
            return 0.0
        return self.fec.codeword_bits / self.line_rate

    def __str__(self) -> str:
        parts = [f"{self.baud / 1e6:g} Mbaud"]
        if self.bits_per_symbol == 2:
            parts.append("PAM4")
        if self.lanes > 1:
            parts.append(f"{self.lanes} lanes")
        parts.append(self.coding.name)
        if self.fec is not None:
            parts.append(self.fec.name)
        return f"{self.name} ({', '.join(parts)})"


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
        Speed("32GFC", 28.05e9, CODING_256B257B, RS_528_514),
        Speed("64GFC", 28.9e9, CODING_256B257B, RS_544_514, bits_per_symbol=2),
        Speed("128GFC", 28.05e9, CODING_256B257B, RS_528_514, lanes=4),
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


def with_fc_fec(speed: Speed) -> Speed:
    """*speed*, a 64b/66b line without FEC (16GFC), with FC-FEC negotiated
    on: the same baud and line bits a byte (64/65 x 2112/2080 = 66/64), and
    a codeword of 2112 bits the receiver waits for before decoding (150.6 ns at
    14.025 GBd). ValueError for any other speed."""
    if speed.coding != CODING_64B66B or speed.fec is not None:
        raise ValueError(f"{speed.name}: FC-FEC is 16GFC's (64b/66b without FEC)")
    return Speed(f"{speed.name} with FC-FEC", speed.baud, CODING_64B65B, FC_FEC,
                 speed.bits_per_symbol, speed.lanes)


def with_arb_ff_fill(speed: Speed) -> Speed:
    """*speed*, 8GFC, with ARB(FF) as its fill word in place of IDLE (FC-PI-4,
    FC-FS-3: at 8GFC the ports may fill with ARB(FF), whose characters have a
    flatter spectrum than IDLE's, to lower emission; Brocade
    ``portcfgfillword`` modes 1 to 3, mode 0, IDLE, the default). The same
    characters a second: throughput does not change. ValueError for any other
    speed."""
    if speed.name != "8GFC" or speed.coding != CODING_8B10B:
        raise ValueError(f"{speed.name}: the ARB(FF) fill word is 8GFC's")
    return Speed(f"{speed.name} with ARB(FF) fill", speed.baud, speed.coding, speed.fec,
                 speed.bits_per_symbol, speed.lanes, "ARB(FF)")


FIBRE_CHANNEL_SPEEDS: tuple[str, ...] = (
    "133M", "266M", "531M", "1062M", "1GFC", "2GFC", "4GFC", "8GFC", "16GFC", "32GFC",
    "64GFC", "128GFC")
"""The catalog's Fibre Channel speeds (the rest are Ethernet's and Myrinet's)."""


def speed_named(name: str) -> Speed:
    """Return the catalog speed *name* (case-insensitive); KeyError if unknown."""
    for key, speed in CATALOG.items():
        if key.lower() == name.strip().lower():
            return speed
    raise KeyError(name)
