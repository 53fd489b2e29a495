"""Frame-header field values (FC-FS): R_CTL, TYPE, F_CTL bits, DF_CTL.

Source: Linux ``include/uapi/scsi/fc/fc_fs.h`` and Wireshark ``packet-fc.h``,
as summarised in the fact sheet section 3.2.
"""

from __future__ import annotations

import struct

HEADER_BYTES = 24
"""Length of the frame header, bytes."""

# R_CTL: routing bits (high nibble) and information category (low nibble).
R_CTL_SOLICITED_DATA = 0x01
R_CTL_UNSOLICITED_CONTROL = 0x02
R_CTL_SOLICITED_CONTROL = 0x03
R_CTL_UNSOLICITED_DATA = 0x04
R_CTL_DATA_DESCRIPTOR = 0x05
R_CTL_UNSOLICITED_COMMAND = 0x06
R_CTL_COMMAND_STATUS = 0x07
R_CTL_ELS_REQUEST = 0x22
R_CTL_ELS_REPLY = 0x23
R_CTL_ACK_1 = 0xC0
R_CTL_ACK_0 = 0xC1
R_CTL_P_RJT = 0xC2
R_CTL_F_RJT = 0xC3
R_CTL_P_BSY = 0xC4
R_CTL_F_BSY = 0xC5
R_CTL_ABTS = 0x81
"""Basic link service ABTS (abort sequence) R_CTL."""
R_CTL_BA_ACC = 0x84
"""Basic link service BA_ACC R_CTL."""
BA_ACC_SIZE = 12
"""BA_ACC payload: SEQ_ID validity and SEQ_ID, OX_ID, RX_ID, SEQ_CNT range, bytes."""

LINK_CONTROL_NAMES: dict[int, str] = {
    R_CTL_ACK_1: "ACK_1",
    R_CTL_ACK_0: "ACK_0",
    R_CTL_P_RJT: "P_RJT",
    R_CTL_F_RJT: "F_RJT",
    R_CTL_P_BSY: "P_BSY",
    R_CTL_F_BSY: "F_BSY",
}
"""Names of the link-control R_CTL values."""

# TYPE: the FC-4 that the payload belongs to.
TYPE_BLS = 0x00
TYPE_ELS = 0x01
TYPE_LLC_SNAP = 0x04
TYPE_IP = 0x05
TYPE_FCP = 0x08
TYPE_CT = 0x20
TYPE_VENDOR = 0xE0
"""Vendor-unique FC-4 type, used for raw FC-2 workloads without an FC-4."""

# F_CTL bits.
F_CTL_EXCHANGE_CONTEXT = 1 << 23
F_CTL_SEQUENCE_CONTEXT = 1 << 22
F_CTL_FIRST_SEQUENCE = 1 << 21
F_CTL_LAST_SEQUENCE = 1 << 20
F_CTL_END_SEQUENCE = 1 << 19
F_CTL_END_CONNECTION = 1 << 18
F_CTL_SEQ_INITIATIVE = 1 << 16
F_CTL_ACK_1 = 1 << 12
F_CTL_ABORT_SEQUENCE = 1 << 4
"""Abort Sequence Condition 01 in an ACK (F_CTL bits 5-4): the recipient asks
the initiator to abort the sequence with ABTS (FC-FS)."""
F_CTL_RELATIVE_OFFSET = 1 << 3

# DF_CTL: optional headers present in the data field.
DF_CTL_ESP = 0x40
DF_CTL_NETWORK = 0x20
DF_CTL_ASSOCIATION = 0x10

UNASSIGNED_ID = 0xFFFF
"""OX_ID / RX_ID value meaning "not assigned"."""

# P_RJT reason codes (FC-PH; as in Linux fc_fs.h enum fc_pf_rjt_reason).
P_RJT_CLASS_NOT_SUPPORTED = 0x05
P_RJT_DELIMITER_USAGE = 0x06
P_RJT_INCORRECT_LENGTH = 0x13
P_BSY_PORT_BUSY = 0x01
P_BSY_NO_RESOURCES = 0x03

_HEADER = struct.Struct(">B3sB3sB3sBBHHHI")


def pack_header(
    r_ctl: int,
    d_id: int,
    cs_ctl: int,
    s_id: int,
    type_: int,
    f_ctl: int,
    seq_id: int,
    df_ctl: int,
    seq_cnt: int,
    ox_id: int,
    rx_id: int,
    parameter: int,
) -> bytes:
    """Serialise a frame header to its 24 big-endian bytes."""
    return _HEADER.pack(
        r_ctl, d_id.to_bytes(3, "big"), cs_ctl, s_id.to_bytes(3, "big"), type_,
        f_ctl.to_bytes(3, "big"), seq_id, df_ctl, seq_cnt, ox_id, rx_id, parameter,
    )


def unpack_header(data: bytes) -> dict[str, int]:
    """Parse 24 header bytes back into named fields (inverse of :func:`pack_header`)."""
    (r_ctl, d_id, cs_ctl, s_id, type_, f_ctl, seq_id, df_ctl, seq_cnt, ox_id, rx_id,
     parameter) = _HEADER.unpack(data[:HEADER_BYTES])
    return {
        "r_ctl": r_ctl, "d_id": int.from_bytes(d_id, "big"), "cs_ctl": cs_ctl,
        "s_id": int.from_bytes(s_id, "big"), "type": type_,
        "f_ctl": int.from_bytes(f_ctl, "big"), "seq_id": seq_id, "df_ctl": df_ctl,
        "seq_cnt": seq_cnt, "ox_id": ox_id, "rx_id": rx_id, "parameter": parameter,
    }
