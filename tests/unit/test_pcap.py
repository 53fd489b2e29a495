"""libpcap writer: file layout parsed back with struct, and decoding by tshark."""

from __future__ import annotations

import io
import os
import struct
import subprocess
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path

import pytest

from fcsim.fc1.ordered_sets import EOFn, EOFt, SOFi3, SOFn2, SOFn3
from fcsim.fc2.frame import Frame
from fcsim.fc2.header import (
    F_CTL_END_SEQUENCE,
    F_CTL_EXCHANGE_CONTEXT,
    F_CTL_FIRST_SEQUENCE,
    F_CTL_LAST_SEQUENCE,
    F_CTL_SEQ_INITIATIVE,
    R_CTL_ACK_1,
    R_CTL_SOLICITED_DATA,
    TYPE_BLS,
    TYPE_VENDOR,
)
from fcsim.trace.pcap import (
    LINKTYPE_FC_2,
    LINKTYPE_FC_2_WITH_FRAME_DELIMS,
    PCAP_MAGIC_NS,
    PcapWriter,
    split_time,
)
from tests.tshark import needs_tshark

FILE_HEADER = struct.Struct("<IHHiIII")
RECORD_HEADER = struct.Struct("<IIII")

INITIATOR = 0x010200
TARGET = 0x01EF00  # hex letters, to check how Wireshark prints the address
OX_ID = 0x1234
SEQ_ID = 0x05


def _data(sof, eof, seq_cnt, f_ctl, data_len):
    payload = bytes((seq_cnt * 7 + i) & 0xFF for i in range(data_len))
    return Frame(sof, eof, R_CTL_SOLICITED_DATA, TARGET, INITIATOR, TYPE_VENDOR, f_ctl,
                 SEQ_ID, seq_cnt, OX_ID, 0xFFFF, data_len, 3, payload=payload)


def sample_frames() -> list[Frame]:
    """A three-frame class-3 sequence and a class-2 ACK_1."""
    first = F_CTL_FIRST_SEQUENCE
    last = F_CTL_FIRST_SEQUENCE | F_CTL_END_SEQUENCE | F_CTL_SEQ_INITIATIVE
    ack = Frame(SOFn2, EOFt, R_CTL_ACK_1, INITIATOR, TARGET, TYPE_BLS,
                F_CTL_EXCHANGE_CONTEXT | F_CTL_LAST_SEQUENCE | F_CTL_END_SEQUENCE,
                0x11, 3, OX_ID, 0x0042, 0, 2, parameter=1)
    return [
        _data(SOFi3, EOFn, 0, first, 64),
        _data(SOFn3, EOFn, 1, first, 2048),
        _data(SOFn3, EOFt, 2, last, 30),
        ack,
    ]


TIMES = [1.000000001, 2.5, 12345.678901234, 12345.678901235]


def read_pcap(data: bytes) -> tuple[tuple[int, ...], list[tuple[int, int, int, int, bytes]]]:
    header = FILE_HEADER.unpack_from(data, 0)
    records = []
    pos = FILE_HEADER.size
    while pos < len(data):
        sec, nsec, incl, orig = RECORD_HEADER.unpack_from(data, pos)
        pos += RECORD_HEADER.size
        records.append((sec, nsec, incl, orig, data[pos:pos + incl]))
        pos += incl
    assert pos == len(data)
    return header, records


# ---------------------------------------------------------------- without tshark


@pytest.mark.parametrize(
    ("time_s", "expected"),
    [
        (0.0, (0, 0)),
        (1.000000001, (1, 1)),
        (12345.678901234, (12345, 678901234)),
        (0.9999999999, (1, 0)),
        (86400.000000002, (86400, 2)),
        (3e-9, (0, 3)),
    ],
)
def test_split_time_rounds_to_nearest_ns(time_s, expected):
    assert split_time(time_s) == expected


def test_file_and_record_headers_parse_back(tmp_path: Path):
    frames = sample_frames()
    path = tmp_path / "t.pcap"
    with PcapWriter(path) as w:
        for t, f in zip(TIMES, frames, strict=True):
            w.write(t, f)
    assert w.frames == len(frames)
    header, records = read_pcap(path.read_bytes())
    magic, major, minor, zone, sigfigs, snaplen, linktype = header
    assert magic == PCAP_MAGIC_NS == 0xA1B23C4D
    assert (major, minor, zone, sigfigs, snaplen) == (2, 4, 0, 0, 65535)
    assert linktype == LINKTYPE_FC_2_WITH_FRAME_DELIMS == 225
    assert [(r[0], r[1]) for r in records] == [
        (1, 1), (2, 500_000_000), (12345, 678901234), (12345, 678901235)]
    for (_, _, incl, orig, data), f in zip(records, frames, strict=True):
        assert data == f.to_bytes()
        assert incl == orig == len(data) == f.chars
        assert data[:4] == f.sof.chars and data[-4:] == f.eof.chars
        assert data[-8:-4] == f.crc().to_bytes(4, "little")


def test_linktype_224_and_file_object():
    frames = sample_frames()
    buf = io.BytesIO()
    w = PcapWriter(buf, linktype=LINKTYPE_FC_2)
    w.write(3.0, frames[0])
    w.close()
    assert not buf.closed  # the caller's file object stays open
    header, records = read_pcap(buf.getvalue())
    assert header[6] == 224
    assert records[0][:2] == (3, 0)
    assert records[0][4] == frames[0].to_bytes(delimiters=False)


def test_rejects_other_linktypes():
    with pytest.raises(ValueError):
        PcapWriter(io.BytesIO(), linktype=105)  # IEEE 802.11: no frames of that kind


class _Port:
    """A transmitter as trace sinks see it: a name and a peer."""

    def __init__(self, name: str, peer: _Port | None = None) -> None:
        self.name, self.peer = name, peer


def test_one_file_per_cable_more_cables_than_open_files(tmp_path: Path):
    """Each cable (both directions of a link) gets a file of its own, named by
    its two ports, with every frame sent on it in order, though only
    OPEN_FILES files are open at once; one cable alone is the file asked for."""
    from fcsim.trace.capture import OPEN_FILES, CableCaptures

    cables = OPEN_FILES + 5
    ends = []
    for i in range(cables):
        a, b = _Port(f"h{i}"), _Port(f"sw:{i}")
        a.peer, b.peer = b, a
        ends.append((a, b))
    capture = CableCaptures(tmp_path / "fab.pcap", False, LINKTYPE_FC_2_WITH_FRAME_DELIMS, None)
    frames = sample_frames()
    for t, frame in zip(TIMES, frames, strict=True):
        for a, b in ends:  # every cable in turn: files close and open again
            capture.frame(t, a, frame, t, t)
            capture.frame(t, b, frame, t, t)
    files = capture.close()
    assert len(files) == cables and not (tmp_path / "fab.pcap").exists()
    assert (tmp_path / "fab.h3--sw-3.pcap") in files
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary files became the cable files
    for path in files:
        _, records = read_pcap(path.read_bytes())
        assert [r[4] for r in records] == [f.to_bytes() for f in frames for _ in (0, 1)]
    one = CableCaptures(tmp_path / "one.pcap", False, LINKTYPE_FC_2_WITH_FRAME_DELIMS, None)
    one.frame(1.0, ends[0][0], frames[0], 1.0, 1.0)
    assert one.close() == [tmp_path / "one.pcap"] and (tmp_path / "one.pcap").exists()


# ---------------------------------------------------------------- with tshark


FIELDS = ["frame.time_epoch", "fc.s_id", "fc.d_id", "fc.r_ctl", "fc.type", "fc.f_ctl",
          "fc.seq_id", "fc.seq_cnt", "fc.ox_id", "fc.rx_id", "fc.parameter",
          "fc.crc.status", "_ws.expert.message"]


def _tshark(path: Path, home: Path, *args: str) -> str:
    env = {**os.environ, "HOME": str(home)}
    result = subprocess.run(["tshark", "-n", "-r", str(path), *args], env=env,
                            capture_output=True, text=True, check=True, timeout=60)
    return result.stdout


def tshark_fields(path: Path, home: Path) -> list[dict[str, str]]:
    args = ["-T", "fields", "-E", "separator=/t", "-E", "quote=n", "-E", "occurrence=a",
            "-E", "aggregator=|"]
    for f in FIELDS:
        args += ["-e", f]
    rows = []
    for line in _tshark(path, home, *args).splitlines():
        if not line.strip():
            continue
        values = line.split("\t")
        assert len(values) == len(FIELDS), line
        rows.append(dict(zip(FIELDS, (v.strip() for v in values), strict=True)))
    return rows


def tshark_delimiters(path: Path, home: Path) -> list[tuple[str, str]]:
    """(SOF name, EOF name) per packet, from the PDML 'showname' of fc.sof / fc.eof."""
    root = ET.fromstring(_tshark(path, home, "-T", "pdml"))
    names = []
    for packet in root.iter("packet"):
        found = {}
        for field in packet.iter("field"):
            if field.get("name") in ("fc.sof", "fc.eof"):
                # showname: "SOF: SOFi3 - SOF Initiate Class 3 (0xbcb55656)"
                label = field.get("showname", "").split(":", 1)[1].strip()
                found[field.get("name")] = label.split(" ", 1)[0].rstrip("-+")
        names.append((found.get("fc.sof", ""), found.get("fc.eof", "")))
    return names


def ws_id(fc_id: int) -> str:
    """An FC address as Wireshark prints it: "01.ef.00"."""
    return ".".join(f"{b:02x}" for b in fc_id.to_bytes(3, "big"))


@needs_tshark
def test_tshark_decodes_frames(tmp_path: Path):
    frames = sample_frames()
    path = tmp_path / "t.pcap"
    with PcapWriter(path) as w:
        for t, f in zip(TIMES, frames, strict=True):
            w.write(t, f)
    rows = tshark_fields(path, tmp_path)
    assert len(rows) == len(frames)
    for row, f, t in zip(rows, frames, TIMES, strict=True):
        sec, nsec = split_time(t)
        assert Decimal(row["frame.time_epoch"]) == Decimal(f"{sec}.{nsec:09d}")
        assert row["fc.s_id"].lower() == ws_id(f.s_id)
        assert row["fc.d_id"].lower() == ws_id(f.d_id)
        assert int(row["fc.r_ctl"], 0) == f.r_ctl
        assert int(row["fc.type"], 0) == f.type
        assert int(row["fc.f_ctl"], 0) == f.f_ctl
        assert int(row["fc.seq_id"], 0) == f.seq_id
        assert int(row["fc.seq_cnt"], 0) == f.seq_cnt
        assert int(row["fc.ox_id"], 0) == f.ox_id
        assert int(row["fc.rx_id"], 0) == f.rx_id
        assert int(row["fc.parameter"], 0) == f.parameter
        assert row["fc.crc.status"] == "1"  # PROTO_CHECKSUM_E_GOOD
        assert row["_ws.expert.message"] == ""  # no malformed/checksum warnings
    assert tshark_delimiters(path, tmp_path) == [(f.sof.name, f.eof.name) for f in frames]


@needs_tshark
def test_tshark_flags_a_corrupted_crc(tmp_path: Path):
    """The CRC check is not vacuous: one flipped data bit makes it bad."""
    buf = io.BytesIO()
    with PcapWriter(buf) as w:
        w.write(1.0, sample_frames()[0])
    data = bytearray(buf.getvalue())
    data[FILE_HEADER.size + RECORD_HEADER.size + 4 + 24] ^= 0x01  # first data byte
    path = tmp_path / "bad.pcap"
    path.write_bytes(bytes(data))
    (row,) = tshark_fields(path, tmp_path)
    assert row["fc.crc.status"] == "0"  # PROTO_CHECKSUM_E_BAD


@needs_tshark
def test_tshark_decodes_linktype_224(tmp_path: Path):
    frames = sample_frames()
    path = tmp_path / "fc2.pcap"
    with PcapWriter(path, linktype=LINKTYPE_FC_2) as w:
        for t, f in zip(TIMES, frames, strict=True):
            w.write(t, f)
    rows = tshark_fields(path, tmp_path)
    assert [(r["fc.s_id"].lower(), int(r["fc.seq_cnt"], 0), int(r["fc.ox_id"], 0))
            for r in rows] == [(ws_id(f.s_id), f.seq_cnt, f.ox_id) for f in frames]
    assert all(r["_ws.expert.message"] == "" for r in rows)
