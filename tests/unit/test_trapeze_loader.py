"""Slice block I/O in Myrinet scenario files: the example and the Slice files
load into block servers and jobs; bad ones are refused in one line naming
the key; captures and traces show Trapeze packets as what they are."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from fcsim.myrinet.packet import MyrinetPacket
from fcsim.scenario.loader import load_scenario
from fcsim.trace.labels import upper_layer
from fcsim.trace.pcap import LINKTYPE_RAW, PcapWriter
from fcsim.trapeze.config import CLUSTER, READAHEAD, WRITE_BEHIND, SliceJobConfig
from fcsim.trapeze.message import Fragment, Message
from tests.builders import assert_refused

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "scenarios" / "myrinet-slice-storage.toml").read_text(encoding="utf-8")
SLICE = sorted((ROOT / "scenarios" / "slice").glob("*.toml"))


def test_the_example_loads_its_servers_and_job() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "myrinet-slice-storage.toml")
    servers = {n.name: n.block_server for n in scenario.nodes if n.block_server}
    assert set(servers) == {"s1", "s2"}
    assert servers["s1"].disks == ("ide0.0", "ide1.0") and servers["s1"].stripe == 32768
    assert servers["s1"].capacity == 22 * 10**9 // 32768 * 32768 * 2  # whole grains each
    (job,) = scenario.workloads
    assert isinstance(job, SliceJobConfig)
    assert (job.kind, job.source, job.servers, job.stripe) == ("dd", "client", ("s1", "s2"),
                                                               32768)
    assert (job.options.rw, job.options.bs, job.options.count) == ("read", 65536, 2000)
    assert (job.readahead, job.cluster, job.write_behind) == (READAHEAD, CLUSTER, WRITE_BEHIND)
    assert (READAHEAD, CLUSTER, WRITE_BEHIND) == (256 * 1024, 128 * 1024, 1024 * 1024)


@pytest.mark.parametrize("path", SLICE, ids=lambda p: p.stem)
def test_every_slice_file_loads(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.description and scenario.topology == "myrinet"


def test_a_fault_job_reads_pages_of_its_region_at_random() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "slice" / "fault-8k-page.toml")
    (job,) = scenario.workloads
    assert job.kind == "fault"
    assert (job.options.rw, job.options.bs, job.options.iodepth, job.options.size,
            job.options.count) == ("randread", 8192, 1, 2**20, 200)


SERVER_DISKS = 'disks = ["ide0.0", "ide1.0"]\nstripe = "32 KiB"'
JOB = 'to = ["s1", "s2"]\nstripe = "32 KiB"\ndirection = "read"'


@pytest.mark.parametrize(("edit", "key", "given", "allowed"), [
    ((SERVER_DISKS, 'disks = ["ide0.0", "ide2.0"]\nstripe = "32 KiB"'),
     "nodes[1].block_server.disks[1]", "given 'ide2.0'", "a disk of this node's channels"),
    ((SERVER_DISKS, 'disks = ["ide0.0", "ide1.0"]'), "nodes[1].block_server.stripe",
     "missing", "a stripe grain such as '32 KiB' over several disks"),
    ((SERVER_DISKS, SERVER_DISKS + '\nspeed = "fast"'), "nodes[1].block_server.speed",
     "unknown key", "allowed keys in [nodes.block_server]"),
    ((JOB, JOB.replace('"s2"', '"client"')), "workloads[0].to[1]", "given 'client'",
     "a node other than from"),
    ((JOB, 'to = ["s1", "s2"]\ndirection = "read"'), "workloads[0].stripe", "missing",
     "a stripe grain such as '32 KiB' over several servers"),
    ((JOB, JOB + '\ncluster = "48 KiB"'), "workloads[0].cluster", "given '48 KiB'",
     "a whole number of stripe grains ('32 KiB')"),
    ((JOB, JOB + '\nwrite_behind = "64 KiB"'), "workloads[0].write_behind",
     "given '64 KiB'", "at least cluster ('128 KiB')"),
    ((JOB, JOB + '\nclass = 2'), "workloads[0].class", "unknown key",
     "allowed keys with type = 'dd' on Myrinet"),
    (('bs = "64 KiB"', 'bs = "1000 B"'), "workloads[0].bs", "given '1000 B'",
     "a whole number of 512-byte blocks"),
])
def test_bad_slice_input_is_refused_in_one_line(tmp_path: Path, edit: tuple[str, str],
                                                key: str, given: str, allowed: str) -> None:
    assert_refused(tmp_path, EXAMPLE, edit, key, given, allowed)


def test_a_job_to_a_node_that_serves_nothing_is_refused(tmp_path: Path) -> None:
    text = EXAMPLE.replace('[nodes.block_server]\ndisks = ["ide0.0", "ide1.0"]\n'
                           'stripe = "32 KiB"\n\n[[nodes.channels]]\nname = "ide0"',
                           '[[nodes.channels]]\nname = "ide0"', 1)
    (tmp_path / "base.toml").write_text(text)
    assert_refused(tmp_path, text, (JOB, JOB), "workloads[0].to[0]", "given 's1'",
                   "a block server (a node with [nodes.block_server])")


@pytest.mark.parametrize(("edit", "key", "given", "allowed"), [
    (('page = "8 KiB"', 'page = "12 KiB"'), "workloads[0].page", "given '12 KiB'",
     "a size that divides the stripe grain"),
    (('region = "1 MiB"', 'region = "1 TiB"'), "workloads[0].region", "given '1 TiB'",
     "at least page and at most the file's"),
])
def test_bad_fault_input_is_refused_in_one_line(tmp_path: Path, edit: tuple[str, str],
                                                key: str, given: str, allowed: str) -> None:
    fault = EXAMPLE[:EXAMPLE.index("[[workloads]]")] + (
        '[[workloads]]\ntype = "fault"\nfrom = "client"\nto = ["s1", "s2"]\n'
        'stripe = "32 KiB"\npage = "8 KiB"\nregion = "1 MiB"\ncount = 10\n')
    assert_refused(tmp_path, fault, edit, key, given, allowed)


def test_captures_leave_out_trapeze_packets_and_traces_name_them() -> None:
    message = Message("client", "s1", 8192, "read xid 1")
    packet = MyrinetPacket(1, 2, (1,), 1536, Fragment(message, 0, 1408))
    out = io.BytesIO()
    writer = PcapWriter(out, LINKTYPE_RAW)
    header = out.tell()
    writer.write(1e-3, packet)  # type: ignore[arg-type]
    assert writer.frames == 0 and out.tell() == header
    assert upper_layer(packet) == ("TRAPEZE client->s1 'read xid 1' payload 8192 B "
                                   "(bytes 0-1408)")
