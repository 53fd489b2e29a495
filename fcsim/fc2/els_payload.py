"""The bytes of login and name-server payloads, for captures.

Simulated sequences carry sizes, not bytes; these functions write what a real
port would have sent, from the values the simulation uses, so that a capture
decodes as the exchange that took place.

- FLOGI, PLOGI and their LS_ACC (116 bytes, FC-LS / FC-PH login payload):
  word 0 the command code; common service parameters (FC-PH version 0x20,
  BB_Credit, common features, BB_SC_N and BB receive data field size, total concurrent
  sequences, relative offset by category, E_D_TOV in ms); N_Port_Name and
  Node_Name; one 16-byte block per class 1, 2, 3 (service options with the
  "class valid" bit, receive data field size, concurrent sequences, EE
  credit, open sequences per exchange); reserved and vendor version words.
  Layout as Linux ``fc_els.h`` (``struct fc_els_flogi``) and Wireshark's
  ``packet-fcels.c`` read it.
- CT_IU (FC-GS): the 16-byte preamble (revision 1, GS_TYPE 0xFC directory
  service, GS_SUBTYPE 0x02 name server, command/response code, maximum or
  residual size in words), then GID_FT's FC-4 type word, RFT_ID's port
  identifier word and 32-byte FC-4 TYPE bitmap, or the accept's port list:
  one word per port, the last flagged 0x80 (Linux ``fc_ns.h``).
- SCR (8 bytes: command and registration function), RSCN (a 4-byte header,
  then one 4-byte page per N_Port ID) and the bare LS_ACC that answers them
  (Linux ``fc_els.h``).

Names: fcsim ports have no burnt-in World Wide Names; :func:`port_name` and
:func:`node_name` derive stable ones from the node name (NAA 2 with a
CRC-32 of the name); loop ports use the same Port_Name in LISM.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable

from fcsim.fc2 import els
from fcsim.fc2.login import ServiceParameters

CT_ACCEPT = 0x8002
"""CT response code: FS_ACC."""
CT_REJECT = 0x8001
"""CT response code: FS_RJT."""
_COMMON_FEATURES = 0x8000
"""Continuously increasing relative offset (FC-PH 23.6.2.3), the only feature set."""
_CLASS_VALID = 0x8000


def port_name(node: str) -> int:
    """The 64-bit N_Port_Name of *node* (NAA 2, port 1, CRC-32 of the name)."""
    return 0x2100_0000_0000_0000 | zlib.crc32(node.encode())


def port_wwn(node: str) -> str:
    """The port World Wide Name of *node* as administrators write it:
    ``21:00:00:00:9e:eb:a5:e1``."""
    return ":".join(f"{byte:02x}" for byte in port_name(node).to_bytes(8, "big"))


def node_name(node: str) -> int:
    """The 64-bit Node_Name of *node* (NAA 2, CRC-32 of the name)."""
    return 0x2000_0000_0000_0000 | zlib.crc32(node.encode())


def login_payload(command: int, node: str, bb_credit: int, rx_data_field: int,
                  classes: frozenset[int], concurrent_sequences: int, ee_credit: int,
                  e_d_tov: float, bb_sc_n: int = 0) -> bytes:
    """FLOGI, PLOGI or LS_ACC (*command*: ``els.ELS_*``) from *node* offering these
    values (sizes in bytes, *e_d_tov* in s); *bb_sc_n* goes in word 1, bits 15-12,
    above the 12 bits of the receive data field size (Linux ``fc_els.h``:
    ``sp_bb_data``, ``FC_SP_BB_DATA_MASK`` 0xfff; Cisco CISCO-FC-FE-MIB fcIfBbScn)."""
    common = struct.pack(">BBHHHHHI", 0x20, 0x20, bb_credit, _COMMON_FEATURES,
                         (bb_sc_n & 0xF) << 12 | rx_data_field & 0x0FFF,
                         min(concurrent_sequences, 0xFFFF), 0x00FF, round(e_d_tov * 1000))
    blocks = b"".join(
        struct.pack(">HHHHHHBBH", _CLASS_VALID if cls in classes else 0, 0, 0,
                    rx_data_field if cls in classes else 0,
                    min(concurrent_sequences, 0xFF) if cls in classes else 0,
                    ee_credit if cls in classes and cls != 3 else 0, 0,
                    1 if cls in classes else 0, 0)
        for cls in (1, 2, 3))
    payload = (struct.pack(">B3x", command) + common
               + struct.pack(">QQ", port_name(node), node_name(node)) + blocks + bytes(32))
    assert len(payload) == els.LOGIN_PAYLOAD
    return payload


def login_bb_credit(payload: bytes) -> int:
    """The BB_Credit a FLOGI, PLOGI or LS_ACC *payload* offers (its common
    service parameters' second word, after the command word and FC-PH version)."""
    return int(struct.unpack_from(">H", payload, 6)[0])


def login_bb_sc_n(payload: bytes) -> int:
    """The BB_SC_N a FLOGI, PLOGI or LS_ACC *payload* offers (word 1 of its
    common service parameters, bits 15-12)."""
    return int(struct.unpack_from(">H", payload, 10)[0]) >> 12


def login_of(command: int, node: str, params: ServiceParameters) -> bytes:
    """FLOGI, PLOGI or LS_ACC (*command*) from the N_Port of *node* offering
    its service parameters *params*."""
    return login_payload(command, node, params.bb_credit, params.rx_data_field, params.classes,
                         params.concurrent_sequences, params.ee_credit, params.e_d_tov,
                         params.bb_sc_n)


def ct_preamble(code: int, size_words: int) -> bytes:
    """A name-server CT_IU preamble with command/response *code*."""
    return struct.pack(">B3sBBBBHHxBBB", 1, b"\0\0\0", 0xFC, 0x02, 0, 0, code,
                       size_words & 0xFFFF, 0, 0, 0)


def gid_ft_request(fc4_type: int) -> bytes:
    """GID_FT for N_Ports registered for FC-4 *fc4_type*."""
    return ct_preamble(els.CT_GID_FT, 0) + struct.pack(">xxxB", fc4_type)


def gid_ft_type(request: bytes) -> int:
    """The FC-4 TYPE a GID_FT request (:func:`gid_ft_request`) asks for."""
    return request[els.CT_PREAMBLE + 3]


def rft_id_request(port_id: int, fc4_types: Iterable[int]) -> bytes:
    """RFT_ID: port *port_id* registers for *fc4_types* (the CT preamble, the
    port identifier word and the 32-byte TYPE bitmap: 52 bytes)."""
    words = [0] * (els.FC4_TYPES_SIZE // 4)
    for t in fc4_types:
        words[t // 32] |= 1 << (t % 32)
    return (ct_preamble(els.CT_RFT_ID, 0) + struct.pack(">I", port_id & 0xFFFFFF)
            + struct.pack(">8I", *words))


def rft_id_types(request: bytes) -> tuple[int, frozenset[int]]:
    """The port and the FC-4 TYPEs an RFT_ID request registers."""
    at = els.CT_PREAMBLE
    port = int.from_bytes(request[at + 1:at + 4], "big")
    words = struct.unpack(">8I", request[at + 4:at + 4 + els.FC4_TYPES_SIZE])
    return port, frozenset(32 * w + b for w, word in enumerate(words) for b in range(32)
                           if word >> b & 1)


def ct_command(payload: bytes) -> int:
    """The command or response code of a CT_IU."""
    return int.from_bytes(payload[8:10], "big")


def gid_ft_accept(port_ids: list[int]) -> bytes:
    """The accept of GID_FT listing *port_ids*, the last flagged as last."""
    words = list(port_ids)
    if words:
        words[-1] |= 0x80 << 24
    return ct_preamble(CT_ACCEPT, 0) + struct.pack(f">{len(words)}I", *words)


def gid_ft_ports(accept: bytes) -> list[int]:
    """The N_Port IDs a GID_FT accept (:func:`gid_ft_accept`) lists."""
    return [int.from_bytes(accept[i + 1:i + 4], "big") for i in range(16, len(accept), 4)]


def scr_request() -> bytes:
    """SCR asking for every state change (8 bytes: command, reserved, function)."""
    return struct.pack(">B3xI", els.ELS_SCR, els.SCR_FULL)


def ls_rjt(reason: int, explanation: int) -> bytes:
    """An LS_RJT (4 bytes of command, 4 of reserved, reason, explanation, vendor)."""
    return struct.pack(">B3xxBBx", els.ELS_LS_RJT, reason, explanation)


def ls_acc() -> bytes:
    """A bare LS_ACC (4 bytes), the answer to an SCR or an RSCN."""
    return struct.pack(">B3x", els.ELS_ACC)


def rscn(port_ids: list[int]) -> bytes:
    """RSCN naming *port_ids*, one 4-byte page each (port address format)."""
    return struct.pack(">BBH", els.ELS_RSCN, 4, 4 + 4 * len(port_ids)) + b"".join(
        struct.pack(">I", pid) for pid in port_ids)


def rscn_ports(payload: bytes) -> list[int]:
    """The N_Port IDs the pages of an RSCN (:func:`rscn`) name."""
    return [int.from_bytes(payload[i + 1:i + 4], "big") for i in range(4, len(payload), 4)]
