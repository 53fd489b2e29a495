"""What a frame carries for the upper layers, in a few words, for timelines
and ladder diagrams: the TCP segment an IP frame starts (over FC, Ethernet
or Myrinet), the Trapeze message a Myrinet packet carries a part of, the FCP
information unit or link service an FCP exchange's frame carries, the
FC-NVMe information unit or link service an NVMe exchange's carries, the
extended and generic link services of logins and the name server."""

from __future__ import annotations

from typing import Any

from fcsim.ethernet.frame import EthernetFrame
from fcsim.fabric.addressing import FABRIC_LOGIN
from fcsim.fc2 import els
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import CT_ACCEPT, CT_REJECT
from fcsim.fc2.fpin import ELS_EDC, ELS_FPIN, ELS_RDF
from fcsim.fc2.rec import Rec, RecAnswer
from fcsim.fc4.fcp import BLOCK, Command, Response, TransferReady
from fcsim.fc4.fcp_initiator import PRLI
from fcsim.fc4.nvme import (
    TYPE_NVME,
    CreateAssociation,
    CreateConnection,
    DisconnectAccept,
    DisconnectAssociation,
    LsAccept,
    NvmeCommand,
    NvmeResponse,
    NvmeSr,
    NvmeSrResponse,
    NvmeTransferReady,
    PrliNvme,
)
from fcsim.myrinet.packet import MyrinetPacket
from fcsim.transport.segment import Segment
from fcsim.trapeze.message import Fragment

_STATUS = {0x00: "GOOD", 0x02: "CHECK CONDITION", 0x08: "BUSY", 0x28: "TASK SET FULL"}
_ELS = {els.ELS_FLOGI: "FLOGI", els.ELS_PLOGI: "PLOGI", els.ELS_SCR: "SCR",
        els.ELS_RSCN: "RSCN", ELS_FPIN: "FPIN", ELS_EDC: "EDC", ELS_RDF: "RDF"}
_CT = {els.CT_GID_FT: "GID_FT", els.CT_RFT_ID: "RFT_ID", CT_ACCEPT: "CT accept",
       CT_REJECT: "CT reject"}


def _service(fc_type: int, payload: bytes, s_id: int) -> str:
    """A link service (ELS: its command code, the first byte) or a generic service
    (CT: its command or response code, bytes 8-9 of the CT_IU preamble) by name,
    as Wireshark names them. An LS_ACC does not say what it answers: one from the
    fabric login server answers FLOGI; one carrying service parameters answers a
    login (FLOGI or PLOGI)."""
    if fc_type == h.TYPE_CT:
        code = int.from_bytes(payload[8:10], "big")
        return _CT.get(code, f"CT 0x{code:04X}")
    command = payload[0]
    if command == els.ELS_ACC:
        if s_id == FABRIC_LOGIN:
            return "LS_ACC (FLOGI)"
        return "LS_ACC (login)" if len(payload) == els.LOGIN_PAYLOAD else "LS_ACC"
    return _ELS.get(command, f"ELS 0x{command:02X}")


def upper_layer(frame: Any) -> str:
    """A short description of what *frame* carries above FC-2 ("" if nothing to say)."""
    seq = frame.sequence
    if isinstance(frame, EthernetFrame | MyrinetPacket):
        ulp, first = frame.ulp, True
    elif seq is None or frame.is_link_control:
        return ""
    else:
        ulp, first = seq.ulp, frame.parameter == 0
    if isinstance(ulp, Fragment):
        return ulp.label()
    if isinstance(ulp, Segment):
        return (f"TCP {ulp.flag_names} seq {ulp.seq} ack {ulp.ack} len {ulp.length} "
                f"win {ulp.window}" if first else "")
    if seq is None:
        return ""
    if seq.type in (h.TYPE_ELS, h.TYPE_CT) and isinstance(ulp, bytes) and ulp and first:
        return _service(seq.type, ulp, frame.s_id)
    r_ctl = seq.r_ctl
    if r_ctl == h.R_CTL_ABTS:
        return "ABTS"
    if r_ctl == h.R_CTL_BA_ACC:
        return "BA_ACC"
    if isinstance(ulp, Rec):
        return f"REC OX_ID {ulp.exchange.ox_id:04X}" if first else ""
    if isinstance(ulp, RecAnswer):
        if not first:
            return ""
        if not ulp.known:
            return "LS_RJT (REC)"
        return (f"LS_ACC (REC) count {ulp.count}" + (" initiative" if ulp.initiative else "")
                + (" complete" if ulp.complete else ""))
    if ulp == PRLI:
        return "PRLI" if r_ctl == h.R_CTL_ELS_REQUEST else "LS_ACC (PRLI)"
    if isinstance(ulp, Command) and r_ctl == h.R_CTL_UNSOLICITED_COMMAND:
        return (f"FCP_CMND {'WRITE' if ulp.write else 'READ'}({16 if ulp.long else 10}) "
                f"LBA {ulp.offset // BLOCK} "
                f"blocks {ulp.length // BLOCK}" + (f" LUN {ulp.lun}" if ulp.lun else ""))
    if isinstance(ulp, TransferReady) and r_ctl == h.R_CTL_DATA_DESCRIPTOR:
        return f"FCP_XFER_RDY offset {ulp.offset} burst {ulp.burst}"
    if isinstance(ulp, Response):
        return f"FCP_RSP {_STATUS.get(ulp.status, hex(ulp.status))}"
    if seq.type == h.TYPE_FCP and r_ctl == h.R_CTL_SOLICITED_DATA:
        burst = ulp.offset if isinstance(ulp, TransferReady) else 0
        return f"FCP_DATA offset {burst + frame.parameter}"
    if seq.type == TYPE_NVME or isinstance(ulp, PrliNvme):
        return _nvme(ulp, r_ctl, frame.parameter, first)
    return ""


def _nvme(ulp: object, r_ctl: int, parameter: int, first: bool) -> str:
    """An FC-NVMe information unit or link service (its first frame's, but
    for data, whose every frame gives its offset)."""
    if isinstance(ulp, NvmeTransferReady) and r_ctl == h.R_CTL_SOLICITED_DATA:
        return f"NVMe_DATA offset {ulp.offset + parameter}"
    if not first:
        return ""
    if isinstance(ulp, PrliNvme):
        return "PRLI (NVMe)" if r_ctl == h.R_CTL_ELS_REQUEST else "LS_ACC (PRLI NVMe)"
    if isinstance(ulp, CreateAssociation):
        return f"Create Association sqsize {ulp.sqsize}"
    if isinstance(ulp, CreateConnection):
        return f"Create I/O Connection qid {ulp.qid} sqsize {ulp.sqsize}"
    if isinstance(ulp, LsAccept):
        return f"LS_ACC association {ulp.association} connection {ulp.connection}"
    if isinstance(ulp, DisconnectAssociation):
        return f"Disconnect Association {ulp.association}"
    if isinstance(ulp, DisconnectAccept):
        return f"LS_ACC (Disconnect Association {ulp.association})"
    if isinstance(ulp, NvmeCommand):
        return (f"NVMe_CMND {'Write' if ulp.write else 'Read'} offset {ulp.offset} "
                f"length {ulp.length}" + (f" nsid {ulp.nsid}" if ulp.nsid != 1 else ""))
    if isinstance(ulp, NvmeTransferReady):
        return f"NVMe_XFER_RDY offset {ulp.offset} burst {ulp.burst}"
    if isinstance(ulp, NvmeResponse):
        return "NVMe_ERSP" if ulp.ersp else "NVMe_RSP"
    if isinstance(ulp, NvmeSr):
        return f"NVMe_SR retry R_CTL 0x{ulp.retry_r_ctl:02X}"
    if isinstance(ulp, NvmeSrResponse):
        return "NVMe_SR_RSP accepted" if ulp.status == 0 else f"NVMe_SR_RSP 0x{ulp.status:02X}"
    return ""
