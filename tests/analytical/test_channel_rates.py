"""Disk channels against closed forms: a SCSI bus shared by streaming disks
delivers its data rate less the standard's per-command phases; an ATA
channel serves one command at a time; a SCSI target that disconnects lets
another disk seek meanwhile."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.runner import run_scenario
from fcsim.storage.channel import Channel, priority
from fcsim.storage.channel_model import load_channel_model
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import load_disk_model
from fcsim.storage.disk import Disk
from fcsim.storage.local import ChannelConfig
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

KIB = 1024
MEDALIST = load_disk_model("seagate-medalist-pro-st39140w")
DESKSTAR = load_disk_model("ibm-deskstar-22gxp")
ULTRA = load_channel_model("ultra-scsi")
WIDE = load_channel_model("ultra-wide-scsi")
ATA = load_channel_model("ultra-ata-33")


def test_the_phases_follow_the_standards_timing() -> None:
    """Arbitration is the bus settle, bus free, arbitration, bus clear and bus
    settle delays of SCSI-2 (4.8 us); an uncontended read costs two tenures of
    phases besides its data; an ATA command seven register writes, a burst
    start and a status read."""
    bus = Channel(Simulation(1), "bus", ULTRA)
    arbitration = 0.4e-6 + 0.8e-6 + 2.4e-6 + 0.8e-6 + 0.4e-6
    selection = 4 * 45e-9 + 0.4e-6 + ULTRA.selection_response
    byte = ULTRA.async_byte_time
    assert bus.command_time == pytest.approx(arbitration + selection + 0.4e-6 + 3 * byte
                                             + 0.4e-6 + 10 * byte)
    read = (bus.command_time + 0.4e-6 + byte  # DISCONNECT
            + arbitration + selection + 0.4e-6 + 3 * byte  # reselection, IDENTIFY, tag
            + 0.4e-6  # to DATA IN
            + 2 * (0.4e-6 + byte))  # STATUS, COMMAND COMPLETE
    assert bus.overhead(write=False) == pytest.approx(read)
    ata = Channel(Simulation(1), "ide", ATA)
    assert ata.overhead(write=False) == pytest.approx(7 * 120e-9 + 1.7e-6 + 120e-9)


def test_arbitration_priority_is_7_to_0_then_15_to_8() -> None:
    order = sorted(range(16), key=priority, reverse=True)
    assert order == [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8]


def _local(channel: ChannelConfig, jobs: tuple[FioConfig, ...], duration: float,
           warmup: float = 0.0) -> dict:
    base = p2p(jobs, duration, warmup)
    nodes = tuple(dataclasses.replace(n, channels=(channel,)) if n.name == "a" else n
                  for n in base.nodes)
    return run_scenario(dataclasses.replace(base, nodes=nodes))["repetitions"][0]


def test_two_streaming_disks_share_an_ultra_scsi_bus() -> None:
    """Two drives whose media could give 30 MB/s together stream 64 KiB reads
    over a 20 MB/s bus: the bus binds, and each command's data costs L/R
    plus the phases of its two tenures."""
    channel = ChannelConfig("scsi0", ULTRA, (MEDALIST, MEDALIST), (0, 1))
    jobs = tuple(FioConfig(f"d{i}", "a", f"scsi0.{i}", FioOptions("read", 64 * KIB, iodepth=4))
                 for i in range(2))
    run = _local(channel, jobs, 0.6, warmup=0.1)
    moved = sum(j["bytes"] for j in run["storage"]["jobs"].values())
    bus = Channel(Simulation(1), "bus", ULTRA)
    per_command = 64 * KIB / ULTRA.data_rate + bus.overhead(write=False)
    assert moved / 0.5 == pytest.approx(64 * KIB / per_command, rel=0.01)
    assert run["storage"]["local"]["a"]["channels"]["scsi0"]["utilisation"] == pytest.approx(
        1.0, abs=0.005)
    low, high = (run["storage"]["jobs"][f"d{i}"]["bytes"] for i in range(2))
    assert 0 < low < high  # ID 1 wins every arbitration against ID 0: the larger share


def test_one_disk_on_ultra_wide_scsi_streams_at_its_media_rate() -> None:
    channel = ChannelConfig("scsi0", WIDE, (MEDALIST,), (0,))
    run = _local(channel, (FioConfig("d", "a", "scsi0.0", FioOptions("read", 64 * KIB,
                                                                      iodepth=2)),), 0.6, 0.1)
    assert run["storage"]["jobs"]["d"]["throughput_bytes_per_s"] == pytest.approx(
        MEDALIST.outer_rate, rel=0.01)


def _two_random_reads(model_name: str) -> tuple[float, float, float]:
    """Completion times of one read on each of two drives sent at once, and of
    one read alone; each read seeks to the middle of its drive."""
    def run(disks: int) -> list[float]:
        sim = Simulation(1)
        channel = Channel(sim, "c", load_channel_model(model_name))
        ends: list[float] = []
        for i in range(disks):
            disk = Disk(sim, f"d{i}", DESKSTAR)
            channel.command(i, disk, False, DESKSTAR.capacity // 2, 4 * KIB,
                            lambda _s: ends.append(sim.now))
        sim.run(1.0)
        return sorted(ends)
    alone, = run(1)
    first, second = run(2)
    return alone, first, second


def test_disconnect_lets_a_second_disk_seek_meanwhile() -> None:
    alone, first, second = _two_random_reads("ultra-scsi")
    assert second - first < 0.1 * alone  # the seeks overlapped: only a transfer apart
    alone, first, second = _two_random_reads("ultra-ata-33")
    assert second - first == pytest.approx(alone, rel=0.05)  # one after the other


def test_ata_master_and_slave_take_turns() -> None:
    """Random reads on both drives of an ATA channel: one tenure per command,
    never two at once, and each holds the channel for the drive's whole work,
    so the two drives' service times add up."""
    sim = Simulation(1)
    channel = Channel(sim, "ide0", ATA)
    channel.log = []
    disks = [Disk(sim, f"d{i}", DESKSTAR) for i in range(2)]
    rng = sim.rng("offsets")
    done: list[float] = []  # each command's channel time
    for k in range(20):
        channel.command(k % 2, disks[k % 2], False, rng.randrange(DESKSTAR.capacity // 512)
                        * 512 // 2, 16 * KIB, done.append)
    sim.run(2.0)
    assert len(done) == len(channel.log) == 20
    spans = sorted(channel.log)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
    held = sum(end - start for start, end, _ in spans)
    drives = sum(d.stats.busy for d in disks)
    phases = channel.overhead(write=False) + 16 * KIB / ATA.data_rate
    assert held == pytest.approx(drives + 20 * phases, rel=1e-9)  # each drive's work inside
    assert spans[-1][1] == pytest.approx(held, rel=1e-9)  # back to back from t = 0
