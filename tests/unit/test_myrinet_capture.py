"""A capture of a Myrinet scenario holds the IP packet of each Myrinet packet as
raw IP (LINKTYPE_RAW), and tshark reads the TCP it carries."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario
from fcsim.trace.capture import PcapSink
from fcsim.trace.pcap import LINKTYPE_RAW, PcapWriter

ROOT = Path(__file__).resolve().parents[2]


def _capture(tmp_path: Path) -> Path:
    """The example, cut to 3 ms, captured on h1's cable."""
    text = (ROOT / "scenarios" / "myrinet-two-hosts.toml").read_text(encoding="utf-8")
    for old, new in (('"1.2 s"', '"3 ms"'), ('length = "1 s"', 'length = "2 ms"'),
                     ('start = "100 ms"', 'start = "0.1 ms"')):
        text = text.replace(old, new)
    path = tmp_path / "short.toml"
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    capture = tmp_path / "m.pcap"
    with PcapWriter(capture, linktype=LINKTYPE_RAW) as writer:
        run_once(scenario, 1, [PcapSink(writer, frozenset({"h1"}))])
    return capture


def test_each_record_is_an_ipv4_packet_of_its_own_length(tmp_path: Path) -> None:
    data = _capture(tmp_path).read_bytes()
    assert struct.unpack_from("<I", data, 20)[0] == LINKTYPE_RAW
    offset, records, sizes = 24, 0, set()
    while offset < len(data):
        _, _, incl, orig = struct.unpack_from("<IIII", data, offset)
        packet = data[offset + 16:offset + 16 + incl]
        assert incl == orig and packet[0] == 0x45  # IPv4, 20-byte header
        assert struct.unpack_from(">H", packet, 2)[0] == incl  # its total length
        assert packet[9] == 6  # TCP
        sizes.add(incl)
        offset += 16 + incl
        records += 1
    assert records > 4 and 8232 in sizes  # handshake, ACKs, full 9000-byte-MTU segments


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_tshark_reads_ip_and_tcp(tmp_path: Path) -> None:
    capture = _capture(tmp_path)
    out = subprocess.run(["tshark", "-r", str(capture), "-T", "fields", "-e", "ip.src",
                          "-e", "ip.dst", "-e", "tcp.len"], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout.split("\n")
    rows = [line.split("\t") for line in out if line]
    assert ["10.0.0.1", "10.0.0.2", "8192"] in rows and ["10.0.0.2", "10.0.0.1", "0"] in rows
