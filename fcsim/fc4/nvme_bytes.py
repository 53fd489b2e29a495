"""The bytes of an NVMe PRLI, as FC-LS lays out PRLI and FC-NVMe its service
parameter page, and of the FC-NVMe-2 NVMe_SR and NVMe_SR_RSP IUs, for
captures (the simulation itself carries only their lengths). The other
FC-NVMe IUs and link services are not rebuilt yet: their data fields are
zeros in a capture."""

from __future__ import annotations

import struct

from fcsim.fc4.fcp_bytes import LS_ACC_COMMAND, PRLI_COMMAND
from fcsim.fc4.nvme import (
    PRLI_SIZE,
    SR_OPCODE,
    SR_RSP_OPCODE,
    TYPE_NVME,
    NvmeSr,
    NvmeSrResponse,
    PrliNvme,
)

_REQUEST_EXECUTED = 0x0100  # accept response code 1, in the flags word
_INITIATOR, _TARGET = 0x20, 0x10  # service parameter page word 3 (FC-NVMe 6.3)
FIRST_BURST_ALLOWED = 0x01
"""Service parameter page word 3, bit 0: first burst allowed (Linux qla2xxx
``NVME_PRLI_SP_FIRST_BURST``, lpfc ``prli_fba``)."""
SLER = 0x100
"""Service parameter page word 3, bit 8: sequence level error recovery
supported (FC-NVMe-2; Linux qla2xxx ``NVME_PRLI_SP_SLER``, lpfc ``prli_nsler``)."""
FIRST_BURST_UNIT = 512
"""The unit of the page's first burst size (word 4, 16 bits), bytes (Linux
qla2xxx: ``nvme_first_burst_size = (iop[1] & 0xffff) * 512``)."""
PAGE_SIZE = PRLI_SIZE - 4
"""The NVMe service parameter page, bytes (0x14)."""


def prli_nvme(accept: bool, initiator: bool, prli: PrliNvme | None = None) -> bytes:
    """A PRLI request (or its LS_ACC) with one service parameter page of TYPE
    0x28, no image pair (FC-NVMe does not establish one); the host sends it,
    the NVM subsystem answers; *prli* gives the first burst (offered or
    accepted) and the SLER bit."""
    prli = prli or PrliNvme()
    flags = _REQUEST_EXECUTED if accept else 0
    head = struct.pack(">BBH", LS_ACC_COMMAND if accept else PRLI_COMMAND, PAGE_SIZE,
                       PRLI_SIZE)
    word3 = ((_INITIATOR if initiator else _TARGET) | (SLER if prli.sler else 0)
             | (FIRST_BURST_ALLOWED if prli.first_burst else 0))
    page = struct.pack(">BBHIIII", TYPE_NVME, 0, flags, 0, 0, word3,
                       min(prli.first_burst // FIRST_BURST_UNIT, 0xFFFF))
    return head + page


def nvme_sr(request: NvmeSr) -> bytes:
    """An NVMe_SR IU: FC-4 TYPE, opcode, reserved, the retry R_CTL, 4 reserved
    bytes (``struct nvme_fc_nvme_sr_iu``)."""
    return struct.pack(">BBxBxxxx", TYPE_NVME, SR_OPCODE, request.retry_r_ctl)


def nvme_sr_rsp(response: NvmeSrResponse) -> bytes:
    """An NVMe_SR_RSP IU: FC-4 TYPE, opcode, reserved, status, 4 reserved bytes
    (``struct nvme_fc_nvme_sr_rsp_iu``)."""
    return struct.pack(">BBxBxxxx", TYPE_NVME, SR_RSP_OPCODE, response.status)
