"""The bytes of FCP information units and of PRLI, as FCP-2 and FC-LS lay them
out, for captures (the simulation itself carries only their lengths)."""

from __future__ import annotations

import struct

from fcsim.fc4.fcp import (
    BLOCK,
    FCP_CMND_SIZE,
    FCP_RSP_SIZE,
    FCP_XFER_RDY_SIZE,
    PRLI_SIZE,
    Command,
    Response,
    TransferReady,
)

_RDDATA, _WRDATA = 0x02, 0x01  # FCP_CNTL byte 3
PRLI_COMMAND = 0x20
"""ELS command code of PRLI."""
LS_ACC_COMMAND = 0x02
"""ELS command code of LS_ACC."""
_FCP_TYPE = 0x08
_IMAGE_PAIR = 0x2000  # establish image pair (request) / established (accept)
_REQUEST_EXECUTED = 0x0100  # accept response code 1, in the flags word
_INITIATOR, _TARGET, _NO_READ_XFER_RDY = 0x20, 0x10, 0x02


def fcp_cmnd(command: Command) -> bytes:
    """FCP_CMND: the command's LUN (SAM-5 single-level LUN: peripheral device
    addressing below 256, flat space addressing from 256), simple task,
    READ(10) or WRITE(10) of the command's blocks (READ(16) or WRITE(16) past
    READ(10)'s 32-bit LBA or 16-bit count), FCP_DL."""
    if command.long:  # READ(16)/WRITE(16): 64-bit LBA, 32-bit count
        cdb = struct.pack(">BBQIBB", command.opcode, 0, command.offset // BLOCK,
                          command.length // BLOCK, 0, 0)
    else:
        cdb = struct.pack(">BBIBHB", command.opcode, 0, command.offset // BLOCK, 0,
                          command.length // BLOCK, 0).ljust(16, b"\0")
    cntl = bytes([0, 0, 0, _WRDATA if command.write else _RDDATA])
    lun = command.lun
    first = struct.pack(">BB", 0, lun) if lun < 256 else struct.pack(">H", 0x4000 | lun)
    out = first.ljust(8, b"\0") + cntl + cdb + struct.pack(">I", command.length)
    assert len(out) == FCP_CMND_SIZE
    return out


def fcp_xfer_rdy(ready: TransferReady) -> bytes:
    """FCP_XFER_RDY: relative offset and burst length."""
    return struct.pack(">III", ready.offset, ready.burst, 0)[:FCP_XFER_RDY_SIZE]


def fcp_rsp(response: Response) -> bytes:
    """FCP_RSP: status, and FCP_RESID with the under-run flag when data was short."""
    flags = 0x08 if response.residual else 0  # FCP_RESID_UNDER
    out = (bytes(10) + bytes([flags, response.status])
           + struct.pack(">III", response.residual, 0, 0))
    assert len(out) == FCP_RSP_SIZE
    return out


def prli(accept: bool, initiator: bool) -> bytes:
    """A PRLI request (or its LS_ACC) with one FCP service parameter page; the
    initiator sends it, the target answers."""
    flags = _IMAGE_PAIR | (_REQUEST_EXECUTED if accept else 0)
    function = (_INITIATOR | _NO_READ_XFER_RDY) if initiator else _TARGET | _NO_READ_XFER_RDY
    head = struct.pack(">BBH", LS_ACC_COMMAND if accept else PRLI_COMMAND, 0x10, PRLI_SIZE)
    page = struct.pack(">BBHIII", _FCP_TYPE, 0, flags, 0, 0, function)
    return head + page
