"""FC-2 frames: sizes, header layout and delimiters against FC-FS."""

from __future__ import annotations

import zlib

import pytest

from fcsim.fc1 import ordered_sets as osets
from fcsim.fc2 import header as h
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD, Frame, frame_chars


def _frame(data_len: int = 100) -> Frame:
    return Frame(osets.SOFi3, osets.EOFt, h.R_CTL_UNSOLICITED_DATA, 0x010200, 0x010100,
                 h.TYPE_VENDOR, h.F_CTL_END_SEQUENCE, 7, 3, 0x1234, 0xFFFF, data_len, 3,
                 parameter=0xABCD)


def test_frame_sizes_in_words() -> None:
    assert FRAMING_BYTES == 36
    assert frame_chars(0) == 36 == 9 * 4  # 9 words minimum
    assert frame_chars(MAX_DATA_FIELD) == 2148 == 537 * 4  # 537 words maximum
    assert frame_chars(1) == 40  # padded to a whole word


def test_data_field_limits() -> None:
    with pytest.raises(ValueError):
        _frame(MAX_DATA_FIELD + 1)
    with pytest.raises(ValueError):
        _frame(-1)


def test_header_layout_round_trips() -> None:
    frame = _frame()
    raw = frame.header_bytes()
    assert len(raw) == 24
    assert raw[0] == 0x04 and raw[1:4] == bytes.fromhex("010200")
    assert raw[5:8] == bytes.fromhex("010100") and raw[8] == 0xE0
    assert raw[12] == 7 and raw[14:16] == b"\x00\x03" and raw[16:18] == b"\x12\x34"
    fields = h.unpack_header(raw)
    assert fields["seq_cnt"] == 3 and fields["ox_id"] == 0x1234 and fields["rx_id"] == 0xFFFF
    assert fields["parameter"] == 0xABCD and fields["f_ctl"] == h.F_CTL_END_SEQUENCE


def test_wire_bytes_carry_delimiters_and_crc() -> None:
    frame = _frame(10)
    wire = frame.to_bytes()
    assert len(wire) == frame.chars == 36 + 12
    assert wire[:4] == bytes.fromhex("BCB55656")  # SOFi3
    assert wire[-4:] == bytes.fromhex("BC957575")  # EOFt, negative disparity
    body = wire[4:-8]
    assert body == frame.to_bytes(delimiters=False)
    assert int.from_bytes(wire[-8:-4], "little") == zlib.crc32(body) == frame.crc()


def test_link_control_kind() -> None:
    ack = Frame(osets.SOFn2, osets.EOFt, h.R_CTL_ACK_1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 2)
    assert ack.is_link_control and ack.kind == "ACK_1"
    assert not _frame().is_link_control and _frame().kind == "data"
