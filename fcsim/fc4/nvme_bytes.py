"""The bytes of an NVMe PRLI, as FC-LS lays out PRLI and FC-NVMe its service
parameter page, for captures (the simulation itself carries only their
lengths). The FC-NVMe IUs and link services themselves are not rebuilt yet:
their data fields are zeros in a capture."""

from __future__ import annotations

import struct

from fcsim.fc4.fcp_bytes import LS_ACC_COMMAND, PRLI_COMMAND
from fcsim.fc4.nvme import PRLI_SIZE, TYPE_NVME

_REQUEST_EXECUTED = 0x0100  # accept response code 1, in the flags word
_INITIATOR, _TARGET = 0x20, 0x10  # service parameter page word 3 (FC-NVMe 6.3)


def prli_nvme(accept: bool, initiator: bool) -> bytes:
    """A PRLI request (or its LS_ACC) with one service parameter page of TYPE
    0x28, no image pair (FC-NVMe does not establish one); the host sends it,
    the NVM subsystem answers."""
    flags = _REQUEST_EXECUTED if accept else 0
    head = struct.pack(">BBH", LS_ACC_COMMAND if accept else PRLI_COMMAND, 0x10, PRLI_SIZE)
    page = struct.pack(">BBHIII", TYPE_NVME, 0, flags, 0, 0,
                       _INITIATOR if initiator else _TARGET)
    return head + page
