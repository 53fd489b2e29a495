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
)

_REQUEST_EXECUTED = 0x0100  # accept response code 1, in the flags word
_INITIATOR, _TARGET = 0x20, 0x10  # service parameter page word 3 (FC-NVMe 6.3)
SLER = 0x100
"""Service parameter page word 3, bit 8: sequence level error recovery
supported (FC-NVMe-2; Linux qla2xxx ``NVME_PRLI_SP_SLER``, lpfc ``prli_nsler``)."""


def prli_nvme(accept: bool, initiator: bool, sler: bool = False) -> bytes:
    """A PRLI request (or its LS_ACC) with one service parameter page of TYPE
    0x28, no image pair (FC-NVMe does not establish one); the host sends it,
    the NVM subsystem answers; *sler*: the SLER bit set."""
    flags = _REQUEST_EXECUTED if accept else 0
    head = struct.pack(">BBH", LS_ACC_COMMAND if accept else PRLI_COMMAND, 0x10, PRLI_SIZE)
    page = struct.pack(">BBHIII", TYPE_NVME, 0, flags, 0, 0,
                       (_INITIATOR if initiator else _TARGET) | (SLER if sler else 0))
    return head + page


def nvme_sr(request: NvmeSr) -> bytes:
    """An NVMe_SR IU: FC-4 TYPE, opcode, reserved, the retry R_CTL, 4 reserved
    bytes (``struct nvme_fc_nvme_sr_iu``)."""
    return struct.pack(">BBxBxxxx", TYPE_NVME, SR_OPCODE, request.retry_r_ctl)


def nvme_sr_rsp(response: NvmeSrResponse) -> bytes:
    """An NVMe_SR_RSP IU: FC-4 TYPE, opcode, reserved, status, 4 reserved bytes
    (``struct nvme_fc_nvme_sr_rsp_iu``)."""
    return struct.pack(">BBxBxxxx", TYPE_NVME, SR_RSP_OPCODE, response.status)
