"""SCSI over Fibre Channel (FCP-2): the information units and a command's record.

Each SCSI command is one exchange, opened by the initiator:

- FCP_CMND (R_CTL 0x06, unsolicited command): FCP_LUN (8 bytes), FCP_CNTL (4:
  task attribute, task management flags, read/write data flags), the CDB (16)
  and FCP_DL (4), the bytes to transfer: 32 bytes; sequence initiative passes
  to the target.
- FCP_XFER_RDY (R_CTL 0x05, data descriptor), before write data: FCP_DATA_RO,
  the relative offset of the burst, FCP_BURST_LEN and 4 reserved bytes: 12
  bytes; the initiative passes back to the initiator.
- FCP_DATA (R_CTL 0x01, solicited data): the data, in one sequence per burst,
  frames carrying their relative offset.
- FCP_RSP (R_CTL 0x07, command status), the last sequence of the exchange: the
  SCSI status, FCP_RESID and the sense and response lengths: 24 bytes without
  sense data.

Before its first command an initiator logs in to each target's FCP service
with PRLI (an ELS, 4-byte header and one 16-byte service parameter page,
answered by LS_ACC of the same size), as FCP-2 requires after PLOGI.
A command lost in Class 3 is ended by the initiator's command timeout: it
aborts the exchange with ABTS (a basic link service, answered BA_ACC) and
issues the command again as a new exchange, at most :data:`SD_MAX_RETRIES`
times (:mod:`fcsim.fc4.fcp_initiator` says which failures use a retry).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fcsim.fc2.sequence import Exchange

FCP_CMND_SIZE = 32
"""FCP_CMND payload without additional CDB bytes, bytes."""
FCP_XFER_RDY_SIZE = 12
"""FCP_XFER_RDY payload, bytes."""
FCP_RSP_SIZE = 24
"""FCP_RSP payload without sense or response information, bytes."""
PRLI_SIZE = 20
"""PRLI request (and its LS_ACC) with one service parameter page, bytes."""


GOOD = 0x00
"""SCSI status GOOD."""
CHECK_CONDITION = 0x02
"""SCSI status CHECK CONDITION."""
TASK_SET_FULL = 0x28
"""SCSI status TASK SET FULL: the logical unit's task set has no room."""
DID_NO_CONNECT = 0x01 << 16
"""A command failed by the FC transport because its remote port is gone
(dev_loss_tmo expired): Linux's host byte DID_NO_CONNECT."""
DID_TIME_OUT = 0x03 << 16
"""A command failed by the host for want of an answer, after its abort: Linux's
host byte DID_TIME_OUT (``include/scsi/scsi_status.h``) above the SCSI status,
so that it ranks worse than any status a target returns."""
DID_ERROR = 0x07 << 16
"""A command the HBA driver failed as in error: here a read answered GOOD
with its data short (a data frame lost; lpfc's residual check turns the
underrun into DID_ERROR): Linux's host byte DID_ERROR."""
DID_TRANSPORT_FAILFAST = 0x0F << 16
"""A command failed by the FC transport once its remote port has been blocked
for fast_io_fail_tmo (or lost): Linux's host byte DID_TRANSPORT_FAILFAST."""
DID_TRANSPORT_MARGINAL = 0x14 << 16
"""A command of a multipath path (REQ_FAILFAST_TRANSPORT) timed out and
aborted while its remote port is marginal, not retried: Linux's host byte
DID_TRANSPORT_MARGINAL, set by ``fc_eh_should_retry_cmd``
(``drivers/scsi/scsi_transport_fc.c``)."""
QUEUE_FULL_DELAY = 3e-3
"""Delay before a command answered TASK SET FULL is sent again when the
initiator has no other command outstanding to wake it, s (Linux
``scsi_lib.c``: SCSI_QUEUE_DELAY, 3 ms)."""
SD_MAX_RETRIES = 5
"""Times Linux's SCSI disk driver lets the midlayer send a read or write
again after a failure that uses a retry (``drivers/scsi/sd.h``:
SD_MAX_RETRIES, the command's ``allowed``)."""
TEST_UNIT_READY = 0x00
"""SCSI TEST UNIT READY operation code (SPC-4): no data, the logical unit
answers GOOD when it is ready; multipathd's ``tur`` path checker sends it."""
BLK_STS_OK = "ok"
BLK_STS_TRANSPORT = "transport"
BLK_STS_IOERR = "ioerr"
"""The block layer's status of a request (Linux ``blk_status_t``) as the
SCSI midlayer ends it, of those the statuses here give."""
READ_10 = 0x28
"""SCSI READ(10) operation code."""
WRITE_10 = 0x2A
"""SCSI WRITE(10) operation code."""
READ_16 = 0x88
"""SCSI READ(16) operation code: a 64-bit LBA and a 32-bit block count, for
what READ(10)'s 32-bit LBA or 16-bit count cannot address (SBC-3; Linux sd
uses it past 2 TiB of 512-byte blocks)."""
WRITE_16 = 0x8A
"""SCSI WRITE(16) operation code."""
BLOCK = 512
"""Logical block size of the targets, bytes (READ(10)/WRITE(10) count blocks)."""


@dataclass
class Command:
    """One SCSI command: READ(10) or WRITE(10) (*write*) of *length* bytes at
    byte *offset* of the logical unit, *tag* its task tag. *issued* is when the
    initiator first sent it, s; *attempts* how often it was sent; *status* its
    final SCSI status (None while outstanding); *moved* the data bytes that
    reached their destination in the current attempt; *done(command)* is
    called once, when it completes. *sent*: when its current attempt was
    sent, s; *device_s*: how long the target's device took over it (from
    the target handing it over to the device's answer), s, a figure of the
    measurement only. *meter*: counts its data frames as their recipient
    accepts them (a :class:`~fcsim.fc2.sequence.Sequence` meter; None: none).
    *lun*: the logical unit addressed (FCP_LUN). *retries*: the failures
    that used one of its retries (Linux's ``scmd->retries``; a resend after
    TASK SET FULL uses none); *first_sent*: when it was first sent, s
    (None: not yet; Linux's ``jiffies_at_alloc``). *test_unit_ready*: it is
    a TEST UNIT READY sent through SG_IO (no data, *length* 0; a passthrough
    command, whose timeout is final: :mod:`fcsim.fc4.fcp_initiator`).
    *timeout*: its own command timeout, s (None: the initiator's; an SG_IO
    request carries the timeout its sender gives)."""

    tag: int
    write: bool
    offset: int
    length: int
    issued: float
    done: Callable[[Command], None]
    d_id: int = 0
    exchange: Exchange | None = None
    attempts: int = 0
    status: int | None = None
    completed: float | None = None
    moved: int = 0
    sent: float = 0.0
    device_s: float = 0.0
    meter: Any = None
    lun: int = 0
    retries: int = 0
    first_sent: float | None = None
    test_unit_ready: bool = False
    timeout: float | None = None

    @property
    def long(self) -> bool:
        """Whether it needs READ(16)/WRITE(16): its LBA or block count does not
        fit READ(10)'s 32 or 16 bits."""
        return (self.offset // BLOCK > 0xFFFFFFFF
                or -(-(self.offset % BLOCK + self.length) // BLOCK) > 0xFFFF)

    @property
    def opcode(self) -> int:
        """The CDB's operation code."""
        if self.test_unit_ready:
            return TEST_UNIT_READY
        if self.long:
            return WRITE_16 if self.write else READ_16
        return WRITE_10 if self.write else READ_10


@dataclass(frozen=True)
class Response:
    """The FCP_RSP of a command: SCSI *status* and FCP_RESID (*residual* bytes
    not transferred)."""

    status: int
    residual: int = 0


@dataclass(frozen=True)
class TransferReady:
    """An FCP_XFER_RDY: send *burst* bytes from relative *offset*."""

    offset: int
    burst: int


def blk_status(status: int) -> str:
    """The block layer's status of a read or write whose command completed
    with *status* (its host byte above the SCSI status), as Linux's
    ``scsi_io_completion`` ends the request: GOOD is BLK_STS_OK;
    DID_TRANSPORT_FAILFAST and DID_TRANSPORT_MARGINAL are BLK_STS_TRANSPORT;
    every other host byte, and a SCSI status other than GOOD, BLK_STS_IOERR
    (``scsi_result_to_blk_status``). A status without sense data, as TASK SET
    FULL when sd gives the command up, is failed with that
    (``scsi_io_completion_action``: ACTION_FAIL); so is CHECK CONDITION with
    LOGICAL UNIT NOT SUPPORTED (ILLEGAL REQUEST, ASC 25h), the only sense
    data a target here returns (only ASC 20h and 24h make BLK_STS_TARGET)."""
    if status == GOOD:
        return BLK_STS_OK
    if status in (DID_TRANSPORT_FAILFAST, DID_TRANSPORT_MARGINAL):
        return BLK_STS_TRANSPORT
    return BLK_STS_IOERR
