"""Ordered sets: four transmission characters, the first always K28.5.

Each ordered set is defined by its characters, written as (is_special, byte)
pairs. The byte value of a character Dxx.y is ``y << 5 | xx``; K28.5 is 0xBC.
End-of-frame delimiters have two forms: the second character is D21.4 when the
running disparity before the EOF is negative and D21.5 when it is positive, so
that the disparity is negative after it (FC-PH 11.4; Seagate FC interface
manual tables 4-7). ``chars`` holds the form begun at negative disparity.

Sources: Seagate *Fibre Channel Interface Manual* 77767496 tables 4-7;
Wireshark ``packet-fc.h`` (SOF/EOF values); Linux ``fc-al.h`` (loop sets).
"""

from __future__ import annotations

from dataclasses import dataclass

K28_5 = 0xBC
"""Byte value of the comma character K28.5 that begins every ordered set."""


def d(x: int, y: int) -> int:
    """Byte value of data character Dx.y."""
    return (y << 5) | x


@dataclass(frozen=True, slots=True)
class OrderedSet:
    """An ordered set: *name*, its three data characters after K28.5, its kind.

    *kind* is ``"frame_delimiter"``, ``"primitive_signal"`` or
    ``"primitive_sequence"``. *eof* marks end-of-frame delimiters, whose second
    character depends on the running disparity.
    """

    name: str
    data: tuple[int, int, int]
    kind: str
    eof: bool = False

    @property
    def chars(self) -> bytes:
        """The four characters' byte values (negative-disparity form)."""
        return bytes((K28_5, *self.data))

    @property
    def chars_positive(self) -> bytes:
        """For an EOF begun at positive disparity, the four byte values."""
        if not self.eof:
            return self.chars
        second = self.data[0] + (1 << 5)  # Dxx.4 -> Dxx.5
        return bytes((K28_5, second, *self.data[1:]))

    @property
    def value(self) -> int:
        """The set as a 32-bit big-endian integer (as Wireshark shows it)."""
        return int.from_bytes(self.chars, "big")


def _sof(name: str, x: int, y: int) -> OrderedSet:
    return OrderedSet(name, (d(21, 5), d(x, y), d(x, y)), "frame_delimiter")


def _eof(name: str, first: int, x: int, y: int) -> OrderedSet:
    return OrderedSet(name, (first, d(x, y), d(x, y)), "frame_delimiter", eof=True)


def _signal(name: str, *data: int) -> OrderedSet:
    return OrderedSet(name, (data[0], data[1], data[2]), "primitive_signal")


def _sequence(name: str, *data: int) -> OrderedSet:
    return OrderedSet(name, (data[0], data[1], data[2]), "primitive_sequence")


_D21_4 = d(21, 4)
_D10_4 = d(10, 4)

SOFc1 = _sof("SOFc1", 23, 0)
SOFi1 = _sof("SOFi1", 23, 2)
SOFn1 = _sof("SOFn1", 23, 1)
SOFi2 = _sof("SOFi2", 21, 2)
SOFn2 = _sof("SOFn2", 21, 1)
SOFi3 = _sof("SOFi3", 22, 2)
SOFn3 = _sof("SOFn3", 22, 1)
SOFf = _sof("SOFf", 24, 2)

EOFt = _eof("EOFt", _D21_4, 21, 3)
EOFn = _eof("EOFn", _D21_4, 21, 6)
EOFdt = _eof("EOFdt", _D21_4, 21, 4)
EOFa = _eof("EOFa", _D21_4, 21, 7)
EOFni = _eof("EOFni", _D10_4, 21, 6)
EOFdti = _eof("EOFdti", _D10_4, 21, 4)

INVALID_EOFS = frozenset((EOFni, EOFdti))
"""The EOFs of a frame a fabric element found bad and forwarded (FC-FS-5: a
cut-through switch that detects a CRC error ends the frame with EOFni in place
of EOFn or EOFt, EOFdti in place of EOFdt)."""


def invalidated(eof: OrderedSet) -> OrderedSet:
    """The EOF a fabric element puts on a bad frame that ended in *eof*."""
    if eof is EOFdt or eof is EOFdti:
        return EOFdti
    return EOFni

IDLE = _signal("IDLE", d(21, 4), d(21, 5), d(21, 5))
R_RDY = _signal("R_RDY", d(21, 4), d(10, 2), d(10, 2))
ARB_F0 = _signal("ARB(F0)", d(20, 4), 0xF0, 0xF0)
ARB_FF = _signal("ARB(FF)", d(20, 4), 0xFF, 0xFF)
OPN_BROADCAST = _signal("OPNfr", d(17, 4), 0xFF, 0xFF)
CLS = _signal("CLS", d(5, 4), d(21, 5), d(21, 5))

NOS = _sequence("NOS", d(21, 2), d(31, 5), d(5, 2))
OLS = _sequence("OLS", d(21, 1), d(10, 4), d(21, 2))
LR = _sequence("LR", d(9, 2), d(31, 5), d(9, 2))
LRR = _sequence("LRR", d(21, 1), d(31, 5), d(9, 2))
LIP_F7F7 = _sequence("LIP(F7,F7)", d(21, 0), 0xF7, 0xF7)
LIP_F8F7 = _sequence("LIP(F8,F7)", d(21, 0), 0xF8, 0xF7)


def arb(al_pa: int) -> OrderedSet:
    """ARBx: arbitrate for the loop with arbitrated-loop physical address *al_pa*."""
    return _signal(f"ARB({al_pa:02X})", d(20, 4), al_pa, al_pa)


def opn(al_pd: int, al_ps: int | None = None) -> OrderedSet:
    """OPNyx (full duplex, *al_ps* given) or OPNyy (half duplex) to *al_pd*."""
    source = al_pd if al_ps is None else al_ps
    return _signal(f"OPN({al_pd:02X},{source:02X})", d(17, 4), al_pd, source)


def lip(al_pd: int, al_ps: int) -> OrderedSet:
    """LIP(y,x): loop initialisation primitive sequence."""
    return _sequence(f"LIP({al_pd:02X},{al_ps:02X})", d(21, 0), al_pd, al_ps)


FRAME_DELIMITERS: dict[str, OrderedSet] = {
    s.name: s
    for s in (SOFc1, SOFi1, SOFn1, SOFi2, SOFn2, SOFi3, SOFn3, SOFf,
              EOFt, EOFn, EOFdt, EOFa, EOFni, EOFdti)
}
"""Start- and end-of-frame delimiters by name."""

PRIMITIVES: dict[str, OrderedSet] = {
    s.name: s
    for s in (IDLE, R_RDY, ARB_F0, ARB_FF, OPN_BROADCAST, CLS,
              NOS, OLS, LR, LRR, LIP_F7F7, LIP_F8F7)
}
"""Primitive signals and sequences with fixed characters, by name."""

FILL_WORDS: dict[str, OrderedSet] = {s.name: s for s in (IDLE, ARB_FF)}
"""The fill words of a link (FC-FS-3 clause 5): IDLE at every speed, or ARB(FF)
at 8GFC, where FC-PI-4 and FC-FS-3 let the ports fill with it in place of
IDLE to lower emission: IDLE's D21.5 characters are 1010101010 on the line,
so a stream of IDLEs puts most of its power in one spectral line, which
ARB(FF)'s D31.7 characters spread (``tests/unit/test_fill_word.py`` measures
it with the 8b/10b codec). A link whose speed names a fill word
(``Speed.fill_word``) reports, per direction, that word and how many it sent
(``fcsim.topology.network.fill_words``); the fill word takes one
transmission word either way, so no rate changes."""
