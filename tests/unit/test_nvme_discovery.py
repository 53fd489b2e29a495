"""Discovery of NVMe subsystems through the name server: on a fabric an
FC-NVMe controller registers its FC-4 TYPEs (RFT_ID: FCP's 0x08 and FC-NVMe's
0x28) right after the name server's login; the host asks GID_FT for TYPE 0x28
and creates an association only with a target listed; zoned away, a target is
not listed and never connected to. The RFT_ID and GID_FT bytes decode in
tshark as FC-GS lays them out."""

from __future__ import annotations

import dataclasses
import io
import shutil
import subprocess
from pathlib import Path

import pytest

from fcsim.fc2 import els
from fcsim.fc2.els_payload import gid_ft_request, gid_ft_type, rft_id_request, rft_id_types
from fcsim.fc2.header import TYPE_FCP
from fcsim.fc4.nvme import TYPE_NVME
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario
from fcsim.trace.capture import PcapSink
from fcsim.trace.pcap import PcapWriter
from fcsim.trace.timeline import Timeline

FABRIC = """
name = "t"
description = "t"
topology = "fabric"
[run]
duration = "{duration}"
[[switches]]
name = "sw"
model = "generic-nonblocking"
[[nodes]]
name = "host"
[[nodes]]
name = "ssd"
target = "mqsim-mlc-8ch"
[[nodes]]
name = "other"
[[links]]
ends = ["host", "sw:0"]
speed = "16GFC"
[[links]]
ends = ["ssd", "sw:1"]
speed = "16GFC"
[[links]]
ends = ["other", "sw:2"]
speed = "16GFC"
[[workloads]]
name = "reads"
type = "fio"
protocol = "nvme"
from = "host"
to = "ssd"
rw = "randread"
bs = "4 KiB"
iodepth = 4
{extra}
"""


def _scenario(tmp_path: Path, extra: str = "", duration: str = "1 ms") -> Path:
    path = tmp_path / "s.toml"
    path.write_text(FABRIC.format(extra=extra, duration=duration))
    return path


def test_rft_id_carries_the_types_in_fc_gs_bitmap() -> None:
    """TYPE t is bit t mod 32 of word t div 32 (Linux struct fc_ns_fts)."""
    payload = rft_id_request(0x010100, (TYPE_FCP, TYPE_NVME))
    assert len(payload) == els.CT_PREAMBLE + 4 + els.FC4_TYPES_SIZE == 52
    assert payload[8:10] == els.CT_RFT_ID.to_bytes(2, "big")
    assert payload[16:20] == bytes([0, 0x01, 0x01, 0x00])
    assert payload[20:24] == (1 << 8).to_bytes(4, "big")  # FCP, 0x08: word 0 bit 8
    assert payload[24:28] == (1 << 8).to_bytes(4, "big")  # FC-NVMe, 0x28: word 1 bit 8
    assert payload[28:] == bytes(24)
    assert rft_id_types(payload) == (0x010100, frozenset({TYPE_FCP, TYPE_NVME}))
    assert gid_ft_type(gid_ft_request(TYPE_NVME)) == TYPE_NVME


def _labels(path: Path) -> list[str]:
    out = io.StringIO()
    run_once(load_scenario(path), 1, [Timeline(out)])
    return [" ".join(line.split()[1:2] + line.split()[4:5] + line.split()[12:])
            for line in out.getvalue().splitlines()[1:] if "R_RDY" not in line]


def test_the_controller_registers_and_the_host_finds_it_before_connecting(
        tmp_path: Path) -> None:
    rows = _labels(_scenario(tmp_path, duration="150 us"))
    target = [r for r in rows if r.startswith("ssd->")]
    assert [r.split()[-1] for r in target[:4]] == ["FLOGI", "PLOGI", "RFT_ID", "GID_FT"]
    host = [" ".join(r.split()[2:]) for r in rows if r.startswith("host->")]
    # its login (FLOGI, name server, GID_FT, the target's PLOGI), then the
    # discovery of NVMe subsystems, then the association
    assert host[:6] == ["FLOGI", "PLOGI", "GID_FT", "PLOGI", "GID_FT", "PRLI (NVMe)"]
    assert any(r.startswith("host->") and "Create Association" in r for r in rows)


def test_a_target_zoned_away_is_not_found_and_not_connected(tmp_path: Path) -> None:
    """The checks refuse a job across zones; built past them, the name server
    does not list the target to the host, which never connects to it."""
    scenario = load_scenario(_scenario(tmp_path))
    zoned = dataclasses.replace(scenario, zones=(("a", ("host", "other")),
                                                 ("b", ("ssd", "other"))))
    result = run_once(zoned, 1)
    storage = result["storage"]
    assert storage["jobs"]["reads"]["ios"] == 0
    assert storage["nvme_initiators"]["host"]["undiscovered"] == ["010100"]
    assert storage["nvme_initiators"]["host"]["connections"] == {"010100": []}


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_tshark_reads_rft_id_and_gid_ft(tmp_path: Path) -> None:
    capture = tmp_path / "d.pcap"
    with PcapWriter(capture) as writer:
        run_once(load_scenario(_scenario(tmp_path, duration="150 us")), 1, [PcapSink(writer)])

    def tshark(*fields: str, where: str) -> list[list[str]]:
        args = ["tshark", "-r", str(capture), "-T", "fields"]
        for field in fields:
            args += ["-e", field]
        out = subprocess.run([*args, "-Y", where], capture_output=True, text=True, check=True,
                             env={"HOME": str(tmp_path)}).stdout
        return [line.split("\t") for line in out.splitlines() if line]
    registered = tshark("fc.s_id", "fcdns.req.portid", "fcdns.fc4types.fcp",
                        where="fcdns.opcode == 0x0217")
    assert registered == [["01.01.00", "01.01.00", "1"]]  # Wireshark names no NVMe bit
    asked = tshark("fc.s_id", "fcdns.req.fc4type", where="fcdns.opcode == 0x0171")
    assert ["01.00.00", "0x28"] in asked and ["01.00.00", "0x05"] in asked
    assert tshark("frame.number", where="_ws.malformed") == []
