"""NVMe over Fibre Channel (FC-NVMe, INCITS 540; FC-NVMe-2, INCITS 556): the
information units, the link services that create associations and
connections, and a command's record.

FC-NVMe is an FC-4 of frame TYPE 0x28 (``FC_TYPE_NVME`` in Linux
``include/uapi/scsi/fc/fc_fs.h``). Before its first command an initiator
logs in to the target's NVMe service with PRLI (the FCP PRLI's layout, its
service parameter page of TYPE 0x28 five words long: 24 bytes with the 4-byte
header; the first burst allowed, initiator, target and SLER flags in its word
3, the first burst size in 512-byte units in word 4: Linux lpfc ``struct
lpfc_nvme_prli``, qla2xxx ``nvme_first_burst_size``), then builds the NVMe over Fabrics queue model
with two FC-NVMe link services, each an exchange of one request and one
answer (R_CTL 0x32 / 0x33, FC-4 link data request and reply, TYPE 0x28):

- Create Association (the admin queue and the association): 1024-byte
  request (``struct fcnvme_ls_cr_assoc_rqst``: the 8-byte LS header and the
  Create Association command descriptor with ersp_ratio, sqsize, host ID,
  host NQN and subsystem NQN, padded to 1 KiB), answered by a 56-byte LS_ACC
  (``struct fcnvme_ls_cr_assoc_acc``: the 24-byte LS_ACC header, the
  association ID and the admin connection ID descriptors, 16 bytes each).
- Create I/O Connection, one per I/O queue: 48-byte request (``struct
  fcnvme_ls_cr_conn_rqst``: header, association ID descriptor, the connect
  command descriptor with ersp_ratio, qid and sqsize), answered by a 40-byte
  LS_ACC (``struct fcnvme_ls_cr_conn_acc``: header and connection ID).
- Disconnect Association, which ends the association and all its
  connections: 48-byte request (``struct fcnvme_ls_disconnect_assoc_rqst``:
  the 8-byte LS header, the association ID descriptor, 16 bytes, and the
  disconnect command descriptor, 24), answered by a 24-byte LS_ACC (``struct
  fcnvme_ls_disconnect_assoc_acc``: the LS_ACC header alone).

Sizes from Linux ``include/linux/nvme-fc.h`` (FC-NVMe-2 r1.08). Each NVMe
command is one exchange on its I/O connection:

- NVMe_CMND IU (R_CTL 0x06, as FCP_CMND): ``struct nvme_fc_cmd_iu``, 96
  bytes: format and FC ID, IU length, category and flags, the connection
  ID (8), the command sequence number (4), the data length (4) and the
  64-byte NVMe submission queue entry; sequence initiative to the target.
- NVMe_XFER_RDY IU (R_CTL 0x05): FCP_XFER_RDY's 12 bytes (offset, burst
  length), before write data the target has not taken as first burst.
- NVMe_DATA IU (R_CTL 0x01): the data, frames labelled with their offset.
- The response: an NVMe_ERSP IU (R_CTL 0x08, ``struct nvme_fc_ersp_iu``,
  32 bytes: the response sequence number, transferred length and the
  16-byte completion queue entry) every *ersp_ratio*-th response on a
  connection or when the completion is not a plain success; otherwise the
  shortened NVMe_RSP IU (R_CTL 0x07) of 12 zero bytes
  (``NVME_FC_SIZEOF_ZEROS_RSP``), from which the host rebuilds the
  completion (Linux ``nvmet_fc_prep_fcp_rsp``, ``drivers/nvme/target/fc.c``;
  the R_CTLs are ``FCNVME_RS_RCTL_ERSP`` and ``FCNVME_RS_RCTL_RSP`` of
  ``include/linux/nvme-fc.h``).

Error recovery in Class 3 (FC-NVMe-2, INCITS 556: sequence level error
recovery, SLER) is used on an association when both ends set the SLER bit
(bit 8 of word 3 of the PRLI service parameter page: ``NVME_PRLI_SP_SLER``,
BIT_8, in Linux ``drivers/scsi/qla2xxx/qla_def.h``; ``prli_nsler`` in lpfc
``lpfc_hw4.h``). Two more IUs serve it, each 8 bytes (``struct
nvme_fc_nvme_sr_iu`` and ``nvme_fc_nvme_sr_rsp_iu``, Linux
``include/linux/nvme-fc.h``):

- NVMe_SR (Sequence Retransmission Request, R_CTL 0x09,
  ``FCNVME_RS_RCTL_SR``): FC-4 TYPE 0x28, opcode 0x01 and the R_CTL of the IU
  to be sent again (its *retry R_CTL*), from the host in the command's own
  exchange;
- NVMe_SR_RSP (R_CTL 0x0A): opcode 0x02 and a status (0x00 accepted), the
  controller's answer, after which it sends that IU again.

:mod:`fcsim.fc4.nvme_recovery` holds the rules both ends follow.

Linux's host asks ersp_ratio = queue size / 5 on each connection
(``nvme_fc_connect_queue(..., qsize, qsize / 5)``, ``drivers/nvme/host/fc.c``)
and a queue size of 128 unless told otherwise (``NVMF_DEF_QUEUE_SIZE``,
``drivers/nvme/host/fabrics.h``); the target caps it at its MQES.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fcsim.fc2.sequence import Exchange

TYPE_NVME = 0x28
"""FC-4 TYPE of FC-NVMe (FC-NVMe 4.2; Linux ``FC_TYPE_NVME``)."""
R_CTL_LS_REQUEST = 0x32
"""R_CTL of an FC-NVMe link service request (FC-4 link data, unsolicited;
Linux ``FC_RCTL_ELS4_REQ``)."""
R_CTL_LS_REPLY = 0x33
"""R_CTL of an FC-NVMe link service answer (Linux ``FC_RCTL_ELS4_REP``)."""

CMD_IU_SIZE = 96
"""NVMe_CMND IU with its 64-byte submission queue entry, bytes."""
XFER_RDY_SIZE = 12
"""NVMe_XFER_RDY IU, bytes (FCP_XFER_RDY's layout)."""
ERSP_SIZE = 32
"""NVMe_ERSP IU with its 16-byte completion queue entry, bytes."""
RSP_SIZE = 12
"""Shortened NVMe_RSP IU, all zeros, bytes."""
PRLI_SIZE = 24
"""PRLI request (and its LS_ACC) with one NVMe service parameter page, bytes:
the 4-byte header and the 20-byte page (Linux lpfc ``ELS_CMD_NVMEPRLI``,
0x20140018: page length 0x14, payload length 0x18)."""
CREATE_ASSOCIATION_SIZE = 1024
"""Create Association LS request, bytes."""
CREATE_ASSOCIATION_ACC_SIZE = 56
"""Create Association LS_ACC, bytes."""
CREATE_CONNECTION_SIZE = 48
"""Create I/O Connection LS request, bytes."""
CREATE_CONNECTION_ACC_SIZE = 40
"""Create I/O Connection LS_ACC, bytes."""
DISCONNECT_ASSOCIATION_SIZE = 48
"""Disconnect Association LS request, bytes."""
DISCONNECT_ASSOCIATION_ACC_SIZE = 24
"""Disconnect Association LS_ACC, bytes."""
DEFAULT_QUEUE_SIZE = 128
"""I/O queue size a Linux host asks for, entries (NVMF_DEF_QUEUE_SIZE)."""
ADMIN_QUEUE_SIZE = 32
"""Admin queue size a Linux host asks for, entries (NVME_AQ_DEPTH)."""
R_CTL_ERSP = 0x08
"""R_CTL of an NVMe_ERSP IU (Linux ``FCNVME_RS_RCTL_ERSP``; the shortened
NVMe_RSP goes as 0x07, ``FCNVME_RS_RCTL_RSP``, FC-FS's command status)."""
R_CTL_SR = 0x09
"""R_CTL of an NVMe_SR IU (Linux ``FCNVME_RS_RCTL_SR``)."""
R_CTL_SR_RSP = 0x0A
"""R_CTL of an NVMe_SR_RSP IU (Linux ``FCNVME_RS_RCTL_SR_RSP``)."""
SR_SIZE = 8
"""NVMe_SR IU, bytes (``struct nvme_fc_nvme_sr_iu``)."""
SR_RSP_SIZE = 8
"""NVMe_SR_RSP IU, bytes (``struct nvme_fc_nvme_sr_rsp_iu``)."""
SR_OPCODE = 0x01
"""Opcode of the NVMe_SR IU (``FCNVME_NVME_SR_OPCODE``)."""
SR_RSP_OPCODE = 0x02
"""Opcode of the NVMe_SR_RSP IU (``FCNVME_NVME_SR_RSP_OPCODE``)."""
SR_ACCEPTED = 0x00
"""NVMe_SR_RSP status: accepted (``FCNVME_SRSTAT_ACC``)."""

SUCCESS = 0x00
"""NVMe status: successful completion."""
INVALID_NAMESPACE = 0x0B
"""NVMe status: Invalid Namespace or Format (NVMe Base Specification, generic
command status 0Bh)."""
HOST_ABORTED = 0x371
"""NVMe status the host gives a command whose exchange it aborted: Command
Aborted By Host (path related status 71h; Linux ``NVME_SC_HOST_ABORTED_CMD``,
which nvme-fc sets on an aborted operation). It has no Do Not Retry bit, so
the host's NVMe layer sends the command again while it may."""
STATUS_CODE_TYPE = 0x700
"""The Status Code Type bits of an NVMe status as the host keeps it (Linux
``NVME_SCT_MASK``: the type above the eight-bit status code)."""
PATH_RELATED = 0x300
"""Status Code Type 3h, Path Related Status (NVMe Base Specification 2.0, its
table of Path Related Status Values): ANA Persistent Loss 01h, ANA
Inaccessible 02h, ANA Transition 03h, Internal Path Error 70h, Command
Aborted By Host 71h, ..."""


def is_path_error(status: int) -> bool:
    """Whether NVMe *status* is a path error, which a multipath host sends on
    another path (Linux ``nvme_is_path_error``, read by
    ``nvme_decide_disposition``)."""
    return status & STATUS_CODE_TYPE == PATH_RELATED


def ersp_ratio(queue_size: int) -> int:
    """The ersp_ratio a Linux host asks for a connection of *queue_size*
    entries: a fifth of it, at least 1 (Create I/O Connection requires
    0 < ersp_ratio < sqsize where it can)."""
    return max(1, queue_size // 5)


@dataclass(frozen=True)
class PrliNvme:
    """A PRLI for the NVMe service (TYPE 0x28); *first_burst*: the size the
    sender offers or accepts, bytes (0: none); *sler*: whether the sender
    supports sequence level error recovery (FC-NVMe-2; in an LS_ACC, whether
    both do)."""

    first_burst: int = 0
    sler: bool = False


@dataclass(frozen=True)
class NvmeSr:
    """An NVMe_SR IU: send again the IU of R_CTL *retry_r_ctl* in this exchange."""

    retry_r_ctl: int


@dataclass(frozen=True)
class NvmeSrResponse:
    """An NVMe_SR_RSP IU with its *status* (:data:`SR_ACCEPTED`)."""

    status: int = SR_ACCEPTED


@dataclass(frozen=True)
class CreateAssociation:
    """The Create Association LS: the admin queue of *sqsize* entries."""

    sqsize: int
    ersp_ratio: int


@dataclass(frozen=True)
class CreateConnection:
    """The Create I/O Connection LS for queue *qid* of *sqsize* entries in
    association *association*."""

    association: int
    qid: int
    sqsize: int
    ersp_ratio: int


@dataclass(frozen=True)
class DisconnectAssociation:
    """The Disconnect Association LS: association *association* and its
    connections end."""

    association: int


@dataclass(frozen=True)
class DisconnectAccept:
    """The LS_ACC of a Disconnect Association."""

    association: int


@dataclass(frozen=True)
class LsAccept:
    """The LS_ACC of a Create Association or Create I/O Connection:
    *association* and *connection* IDs, and the *sqsize* granted."""

    association: int
    connection: int
    sqsize: int


@dataclass(eq=False)
class NvmeCommand:
    """One NVMe Read or Write (*write*) of *length* bytes at byte *offset* of
    namespace *nsid*, command ID *cid* on I/O connection *connection*; *csn*
    its command sequence number there, *qid* that connection's queue ID
    (compared and hashed by identity: the
    host's timers key on it). *issued*: when it was submitted, s;
    *sent*: when its NVMe_CMND IU went out; *first_burst*: write bytes sent
    unsolicited after the command; *status* the NVMe status once complete;
    *ersp*: whether its response was an ERSP; *done(command)* called once.
    *meter* counts its data frames as they arrive (None: none).
    *attempts*: the exchanges it was sent in (the host's NVMe layer sends it
    again after an abort); *recoveries*: the sequence level recoveries of
    its current exchange."""

    cid: int
    write: bool
    offset: int
    length: int
    issued: float
    done: Callable[[NvmeCommand], None]
    d_id: int = 0
    nsid: int = 1
    connection: int = 0
    qid: int = 1
    csn: int = 0
    sent: float = 0.0
    first_burst: int = 0
    exchange: Exchange | None = None
    status: int | None = None
    completed: float | None = None
    moved: int = 0
    ersp: bool = False
    device_s: float = 0.0
    meter: Any = None
    attempts: int = 0
    recoveries: int = 0


@dataclass(frozen=True)
class NvmeResponse:
    """The response of a command: NVMe *status*, and whether it went as an
    ERSP (else the shortened RSP)."""

    status: int
    ersp: bool


@dataclass(frozen=True)
class NvmeTransferReady:
    """An NVMe_XFER_RDY (or a data IU's label): *burst* bytes from *offset*."""

    offset: int
    burst: int
