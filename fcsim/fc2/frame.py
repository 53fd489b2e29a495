"""The FC-2 frame: delimiters, header, data field, CRC.

A :class:`Frame` is what crosses a link. It keeps the header fields as
integers and the length of the data field, not its bytes: a simulated payload
has a size but no content. :meth:`Frame.to_bytes` renders the frame (with a
zero-filled or given data field and the real CRC-32) for traces.

Layout (FC-FS; fact sheet section 3.1)::

    SOF 4 | header 24 | data field 0..2112 | CRC 4 | EOF 4      = 36..2148 bytes

The data field is padded to a whole number of words (F_CTL fill bytes).
"""

from __future__ import annotations

import zlib
from typing import Any

from fcsim.fc1 import ordered_sets as osets
from fcsim.fc1.ordered_sets import OrderedSet
from fcsim.fc2.header import HEADER_BYTES, LINK_CONTROL_NAMES, pack_header

SOF_FIRST = {1: osets.SOFi1, 2: osets.SOFi2, 3: osets.SOFi3}
"""The SOF of a sequence's first frame, by class (Class 1's connect request,
SOFc1, is chosen where a connection is asked for)."""
SOF_NEXT = {1: osets.SOFn1, 2: osets.SOFn2, 3: osets.SOFn3}
"""The SOF of every later frame of a sequence, by class."""
MAX_DATA_FIELD = 2112
"""Largest data field of a frame, bytes (FC-FS)."""

FRAMING_BYTES = 4 + HEADER_BYTES + 4 + 4
"""SOF, header, CRC and EOF around the data field: 36 bytes."""


def frame_chars(data_len: int) -> int:
    """Transmission characters of a frame with a *data_len*-byte data field."""
    return FRAMING_BYTES + ((data_len + 3) & ~3)


class Frame:
    """One Fibre Channel frame.

    Header fields use their FC-FS names. *data_len* is the data-field length in
    bytes (optional headers included), *payload_len* the part of it that is
    upper-layer payload. *cls* is the class of service (1, 2 or 3). *sequence*
    links a data frame to the :class:`~fcsim.fc2.sequence.Sequence` it belongs
    to (the frame only carries it: sequences are made into frames, so the
    frame, below them, names no type of theirs); *answers* links a
    link-control frame (ACK, busy, reject) to the data frame it responds to.
    *corrupt* is set by a link's error model; the
    receiver finds it as a CRC error.
    """

    __slots__ = (
        "sof", "eof", "r_ctl", "d_id", "cs_ctl", "s_id", "type", "f_ctl", "seq_id",
        "df_ctl", "seq_cnt", "ox_id", "rx_id", "parameter", "data_len", "payload_len",
        "chars", "cls", "sequence", "answers", "corrupt", "payload", "attempt",
        "is_link_control", "uses_bb_credit",
    )

    def __init__(
        self,
        sof: OrderedSet,
        eof: OrderedSet,
        r_ctl: int,
        d_id: int,
        s_id: int,
        type_: int,
        f_ctl: int,
        seq_id: int,
        seq_cnt: int,
        ox_id: int,
        rx_id: int,
        data_len: int,
        cls: int,
        payload_len: int | None = None,
        parameter: int = 0,
        df_ctl: int = 0,
        cs_ctl: int = 0,
        sequence: Any = None,
        answers: Frame | None = None,
        payload: bytes | None = None,
    ) -> None:
        if not 0 <= data_len <= MAX_DATA_FIELD:
            raise ValueError(f"data field must be 0..{MAX_DATA_FIELD} bytes, got {data_len}")
        self.sof = sof
        self.eof = eof
        self.r_ctl = r_ctl
        self.d_id = d_id
        self.cs_ctl = cs_ctl
        self.s_id = s_id
        self.type = type_
        self.f_ctl = f_ctl
        self.seq_id = seq_id
        self.df_ctl = df_ctl
        self.seq_cnt = seq_cnt
        self.ox_id = ox_id
        self.rx_id = rx_id
        self.parameter = parameter
        self.data_len = data_len
        self.payload_len = data_len if payload_len is None else payload_len
        self.chars = FRAMING_BYTES + ((data_len + 3) & ~3)
        self.cls = cls
        self.sequence = sequence
        self.answers = answers
        self.corrupt = False
        self.payload = payload
        self.attempt = 0
        self.is_link_control = r_ctl & 0xF0 == 0xC0
        """True for ACK, busy and reject frames (R_CTL routing 0xC): the one
        definition of the link-control test, computed once per frame."""
        self.uses_bb_credit = cls != 1 or sof is osets.SOFc1
        """True if the frame takes a buffer-to-buffer credit: every frame but
        the Class 1 frames after the connect request (FC-PH 26.4: a Class 1
        connection is end-to-end flow-controlled only; the connect frame, SOFc1,
        uses BB credit). The one definition of the credit rule, computed once
        per frame."""

    @property
    def kind(self) -> str:
        """Short name: "data" or the link-control name ("ACK_1", "P_BSY", ...)."""
        return LINK_CONTROL_NAMES.get(self.r_ctl, "data")

    def header_bytes(self) -> bytes:
        """The 24 header bytes."""
        return pack_header(
            self.r_ctl, self.d_id, self.cs_ctl, self.s_id, self.type, self.f_ctl,
            self.seq_id, self.df_ctl, self.seq_cnt, self.ox_id, self.rx_id, self.parameter,
        )

    def data_field(self, content: bytes | None = None) -> bytes:
        """The data field padded to a whole word: *content* (default: the frame's
        own payload bytes), zeros where none is set."""
        padded = (self.data_len + 3) & ~3
        content = (content if content is not None else self.payload) or b""
        return content[:padded] + bytes(padded - min(len(content), padded))

    def crc(self) -> int:
        """The frame CRC over header and data field: the IEEE 802.3 CRC-32 value.

        Same algorithm and value as :func:`zlib.crc32` (reflected, initial and
        final XOR 0xFFFFFFFF; check value 0xCBF43926). :meth:`to_bytes` writes
        it least-significant byte first, as the Ethernet FCS and the FCoE
        trailer do; that is the byte order Wireshark's ``fcsof`` dissector
        verifies, and it displays the CRC word read big-endian, i.e. this value
        byte-swapped.
        """
        return zlib.crc32(self.header_bytes() + self.data_field())

    def to_bytes(self, delimiters: bool = True, content: bytes | None = None) -> bytes:
        """The frame as transmitted: SOF, header, data, CRC, EOF.

        The CRC (:meth:`crc`) is written least-significant byte first, the
        byte order Wireshark checks for LINKTYPE_FC_2_WITH_FRAME_DELIMS.
        With *delimiters* False only header and data field are returned (the
        libpcap LINKTYPE_FC_2 layout). *content*: the data field's bytes when
        the frame itself carries none (see :meth:`data_field`).
        """
        body = self.header_bytes() + self.data_field(content)
        if not delimiters:
            return body
        return self.sof.chars + body + zlib.crc32(body).to_bytes(4, "little") + self.eof.chars
