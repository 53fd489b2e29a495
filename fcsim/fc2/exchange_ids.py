"""An N_Port's exchange IDs: the OX_IDs it gives the exchanges it originates.

An OX_ID names an open exchange at its originator, so two open exchanges of
one N_Port never share one; 0xFFFF means "unassigned" and is never given
(FC-FS frame header; RFC 4338 forbids it to IP over FC as well). Once an
exchange has ended its OX_ID may be given again; after an exchange that
ended abnormally (aborted with ABTS, or given up) the originator holds its
OX_ID for R_A_TOV before it reuses it (R_A_TOV, FC-FS: the hold-off before
an OX_ID is reused after an error, a frame's lifetime in the fabric bound;
the Recovery Qualifier RRQ releases may end it sooner, which is not
modelled).

Free OX_IDs are given in turn, from the one after the last given, skipping
those held: Linux libfc searches its exchange pool from ``next_index``
upwards in the same way (``fc_exch_em_alloc``, drivers/scsi/libfc/fc_exch.c),
and Emulex lpfc takes its I/O buffers, each with its exchange (XRI), from
the head of a free list and puts them back at its tail
(``lpfc_release_scsi_buf_s3``/``_s4``, drivers/scsi/lpfc/lpfc_scsi.c; one
whose exchange was aborted waits on another list until the adapter releases
it), so a freed ID comes back only after the others. (libfc also caches the last two IDs freed
and gives them first; a hardware initiator's order is not published. The
round-robin order here is an assumption that follows lpfc and libfc's
search.)
"""

from __future__ import annotations

from fcsim.fc2.header import UNASSIGNED_ID


class ExchangeIds:
    """The OX_IDs 0 .. *size* - 1 of one N_Port (default: every ID but 0xFFFF)."""

    __slots__ = ("size", "_held", "_next")

    def __init__(self, size: int = UNASSIGNED_ID) -> None:
        if not 0 < size <= UNASSIGNED_ID:
            raise ValueError(f"exchange IDs: size must be 1..{UNASSIGNED_ID}, got {size}")
        self.size = size
        self._held: set[int] = set()
        self._next = 0

    @property
    def held(self) -> int:
        """How many OX_IDs are held (exchanges open, or in their R_A_TOV hold)."""
        return len(self._held)

    def take(self) -> int:
        """The next free OX_ID in turn, now held; RuntimeError if none is free."""
        held = self._held
        if len(held) >= self.size:
            raise RuntimeError(f"all {self.size:,} exchange IDs are in use")
        ox_id = self._next
        while ox_id in held:
            ox_id = (ox_id + 1) % self.size
        held.add(ox_id)
        self._next = (ox_id + 1) % self.size
        return ox_id

    def give_back(self, ox_id: int) -> None:
        """Free *ox_id*, which must be held, for a later exchange."""
        self._held.remove(ox_id)
