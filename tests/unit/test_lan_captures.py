"""Ethernet captures of the LAN options: tshark reads the RFC 1323 timestamps
option of every segment and the 802.1Q tag of every frame on a trunk as the
simulation sent them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fcsim.fc4.ip_header import TIMESTAMP_TICK
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario
from fcsim.trace.capture import PcapSink
from fcsim.trace.pcap import LINKTYPE_ETHERNET, PcapWriter
from fcsim.transport.segment import Segment
from tests.tshark import needs_tshark, tshark_rows

ROOT = Path(__file__).resolve().parents[2]

GIGE_RR = """\
topology = "ethernet"
[run]
duration = "20 ms"
[[nodes]]
name = "h1"
host = "ideal"
tcp_timestamps = true
[[nodes]]
name = "h2"
host = "ideal"
tcp_timestamps = true
[[links]]
ends = ["h1", "h2"]
speed = "1000BASE-X"
[[workloads]]
name = "stream"
type = "netperf"
from = "h1"
to = "h2"
test = "TCP_RR"
request = "1000 B"
response = "1000 B"
nodelay = true
socket = "64 KiB"
length = "15 ms"
start = "1 ms"
"""


class _Sent:
    """Trace sink keeping what each frame carries, in the order sent."""

    def __init__(self) -> None:
        self.frames: list[Any] = []
        self.cables: list[tuple[str, str]] = []  # (sending port, receiving port)

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        self.frames.append(frame)
        self.cables.append((port.name, port.peer.name))

    def primitive(self, time: float, port: object, name: str, start: float) -> None:
        """No primitives on Ethernet."""


@needs_tshark
def test_tshark_reads_tsval_and_tsecr_of_every_segment(tmp_path: Path) -> None:
    path = tmp_path / "ts.toml"
    path.write_text(GIGE_RR)
    capture, sent = tmp_path / "ts.pcap", _Sent()
    with PcapWriter(capture, LINKTYPE_ETHERNET) as writer:
        run_once(load_scenario(path), 1, [PcapSink(writer), sent])
    segments = [f.ulp for f in sent.frames if isinstance(f.ulp, Segment)]
    rows = tshark_rows(capture, tmp_path, "tcp.options.timestamp.tsval",
                   "tcp.options.timestamp.tsecr", "tcp.len", "ip.len", where="tcp")
    assert len(rows) == len(segments) > 100
    for row, segment in zip(rows, segments, strict=True):
        assert segment.tsval is not None  # both SYNs asked: every segment has it
        assert int(row[0]) == round(segment.tsval / TIMESTAMP_TICK)
        assert int(row[1]) == round(segment.tsecr / TIMESTAMP_TICK)
        assert int(row[2]) == segment.length and int(row[3]) == segment.wire_bytes
    assert {s.wire_bytes for s in segments if s.length} == {1000 + 40 + 12}
    assert tshark_rows(capture, tmp_path, "frame.number",
                   where="_ws.malformed || _ws.expert.severity >= 6291456") == []


@needs_tshark
def test_tshark_reads_the_8021q_tag_of_each_frame_on_a_trunk(tmp_path: Path) -> None:
    """The trunk example's trunk cable, with UDP in both VLANs: every frame
    carries its tag (TPID 0x8100, the VLAN ID) before the EtherType; tshark
    reads the VLAN each frame was in and finds nothing malformed."""
    from fcsim.api import Study

    study = Study(ROOT / "scenarios" / "vlan-trunk.toml")
    for i in (0, 1):  # UDP at 400 Mbit/s in each VLAN: no slow start in 4 ms
        study.set(f"workloads[{i}].protocol", "udp").set(f"workloads[{i}].bandwidth",
                                                         "400 Mbit/s")
        study.set(f"workloads[{i}].duration", "4 ms")
    study.set("run.warmup", "0 s").set("run.duration", "5 ms")
    capture, sent = tmp_path / "trunk.pcap", _Sent()
    with PcapWriter(capture, LINKTYPE_ETHERNET) as writer:
        run_once(study.scenario, 1, [PcapSink(writer, frozenset({"sw1:47"})), sent])
    on_trunk = [f for f, cable in zip(sent.frames, sent.cables, strict=True)
                if "sw1:47" in cable]
    rows = tshark_rows(capture, tmp_path, "vlan.id", "vlan.etype", "ip.len")
    assert len(rows) == len(on_trunk) > 100
    for row, frame in zip(rows, on_trunk, strict=True):
        assert frame.tagged and int(row[0]) == frame.vlan and int(row[1], 16) == 0x0800
        assert int(row[2]) == frame.payload
    assert {int(row[0]) for row in rows} == {10, 20}
    assert tshark_rows(capture, tmp_path, "frame.number",
                   where="_ws.malformed || _ws.expert.severity >= 6291456") == []
