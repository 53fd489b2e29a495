"""Arbitrated-loop physical addresses (AL_PA): the valid values, priority, assignment.

An AL_PA is carried twice in ARBx and OPNyx words, so only bytes whose 8b/10b
codes are neutral in disparity can be used: then those words never change the
running disparity. Of the 134 such bytes, the 127 up to 0xEF are AL_PAs
(0xF0..0xFF are reserved: ARB(F0), LIP(F7), LIP(F8), ...): 0x00 for the
FL_Port and 126 for NL_Ports (fact sheet 5.1; Seagate FC interface manual
table 12). :data:`AL_PAS` is that list in ascending order; the Linux lpfc
driver's ``lpfcAlpaArray`` (``drivers/scsi/lpfc/lpfc_hbadisc.c``) holds the
same 126 NL_Port values in descending order, and a unit test derives the set
again from :mod:`fcsim.fc1.encoding`.

Priority: the lower the AL_PA, the higher the priority in arbitration; 0x00
(the FL_Port) is the highest. The loop-initialisation bitmaps (LIFA..LISA)
have one bit per AL_PA in this priority order, so a port taking a soft
address in LISA takes the highest-priority free one.
"""

from __future__ import annotations

from collections.abc import Sequence

AL_PA_FL_PORT = 0x00
"""The AL_PA of the participating FL_Port (the loop's attachment to a fabric)."""

AL_PAS: tuple[int, ...] = (
    0x00, 0x01, 0x02, 0x04, 0x08, 0x0F, 0x10, 0x17, 0x18, 0x1B, 0x1D, 0x1E, 0x1F, 0x23,
    0x25, 0x26, 0x27, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x31, 0x32, 0x33, 0x34, 0x35,
    0x36, 0x39, 0x3A, 0x3C, 0x43, 0x45, 0x46, 0x47, 0x49, 0x4A, 0x4B, 0x4C, 0x4D, 0x4E,
    0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x59, 0x5A, 0x5C, 0x63, 0x65, 0x66, 0x67, 0x69,
    0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x79, 0x7A, 0x7C,
    0x80, 0x81, 0x82, 0x84, 0x88, 0x8F, 0x90, 0x97, 0x98, 0x9B, 0x9D, 0x9E, 0x9F, 0xA3,
    0xA5, 0xA6, 0xA7, 0xA9, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5,
    0xB6, 0xB9, 0xBA, 0xBC, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE,
    0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD9, 0xDA, 0xDC, 0xE0, 0xE1, 0xE2, 0xE4, 0xE8,
    0xEF,
)
"""The 127 valid AL_PAs, highest priority (lowest value) first."""

NL_AL_PAS: tuple[int, ...] = AL_PAS[1:]
"""The 126 AL_PAs an NL_Port may hold."""

MAX_NL_PORTS = len(NL_AL_PAS)
"""Most NL_Ports one loop can address: 126."""

_VALID = frozenset(AL_PAS)


def is_nl_al_pa(value: int) -> bool:
    """True if *value* is an AL_PA an NL_Port may hold (0x01..0xEF, neutral disparity)."""
    return value in _VALID and value != AL_PA_FL_PORT


def assign(hard: Sequence[int | None], claim_order: Sequence[int]) -> list[int]:
    """AL_PAs for NL_Ports with the *hard* addresses requested (None: soft).

    Hard addresses are taken in LIHA; the other ports take soft addresses in
    LISA, one after another in *claim_order* (indices into *hard*: the loop
    master first, then the ports downstream of it), each the highest-priority
    AL_PA still free. (LIFA and LIPA claim fabric-assigned and previously
    acquired addresses; a loop re-initialised keeps its addresses through LIPA,
    so assigning once gives the same result.) Raises ValueError for an invalid
    or duplicated hard address or more than 126 ports.
    """
    if len(hard) > MAX_NL_PORTS:
        raise ValueError(f"a loop holds at most {MAX_NL_PORTS} NL_Ports, got {len(hard)}")
    taken: set[int] = set()
    for value in hard:
        if value is None:
            continue
        if not is_nl_al_pa(value):
            raise ValueError(f"{value:#04x} is not an NL_Port AL_PA")
        if value in taken:
            raise ValueError(f"hard AL_PA {value:#04x} requested twice")
        taken.add(value)
    free = iter(v for v in NL_AL_PAS if v not in taken)
    result = list(hard)
    for index in claim_order:
        if result[index] is None:
            result[index] = next(free)
    return result  # type: ignore[return-value]
