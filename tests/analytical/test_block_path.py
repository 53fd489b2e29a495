"""The host's block path: striping over targets, and what a read() or write()
costs the host's processor on top of the I/O."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.host.block import Volume
from fcsim.host.host_model import HostModel
from fcsim.runner import run_scenario
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import RamDiskModel
from fcsim.workload.fio import FioOptions
from tests.builders import fabric

KIB = 1024
RAM = RamDiskModel("ram", 2**30, 20e-6, 1e9)
HOST = HostModel("cpu-bound", syscall=20e-6, copy_per_byte=20e-9, interrupt=10e-6,
                 context_switch=15e-6, bus="PCI-64/66", bus_bandwidth=533e6)


def test_a_volume_stripes_round_robin_in_grains() -> None:
    volume = Volume(Simulation(1), (1, 2, 3, 4), 32 * KIB)  # type: ignore[arg-type]
    assert volume.pieces(0, 256 * KIB) == {t: (0, 64 * KIB) for t in range(4)}
    assert volume.pieces(48 * KIB, 64 * KIB) == {1: (16 * KIB, 16 * KIB),
                                                 2: (0, 32 * KIB), 3: (0, 16 * KIB)}
    assert volume.pieces(5 * 32 * KIB, 4 * KIB) == {1: (32 * KIB, 4 * KIB)}
    assert Volume(Simulation(1), (7,)).pieces(12345, 678) == {0: (12345, 678)}  # type: ignore


def _dd(write: bool, host: HostModel | None, targets: int = 4, count: int = 200) -> dict:
    names = {"client": "sw:0", **{f"t{i}": f"sw:{i + 1}" for i in range(targets)}}
    job = FioConfig("dd", "client", "t0", FioOptions("write" if write else "read", 64 * KIB,
                                                     count=count),
                    stripe_over=tuple(f"t{i}" for i in range(targets)) if targets > 1 else (),
                    stripe=32 * KIB, dd=True)
    base = fabric(names, (job,), 1.0, speed="2GFC", login=False)
    nodes = tuple(dataclasses.replace(n, target=RAM) if n.name != "client" else
                  dataclasses.replace(n, host=host) for n in base.nodes)
    return run_scenario(dataclasses.replace(base, nodes=nodes))["repetitions"][0]


@pytest.mark.parametrize("write", [False, True])
def test_each_call_costs_syscall_copy_interrupts_and_a_wakeup(write: bool) -> None:
    bare = _dd(write, None)["storage"]["jobs"]["dd"]
    run = _dd(write, HOST)
    job = run["storage"]["jobs"]["dd"]
    assert job["finished"] and bare["finished"]
    per_call = HOST.syscall + 64 * KIB * HOST.copy_per_byte + HOST.context_switch \
        + 2 * HOST.interrupt  # two commands: 64 KiB over 32 KiB grains
    assert job["bytes"] == 200 * 64 * KIB
    busy = run["hosts"]["client"]["cpu_utilisation"] * 1.0  # the whole 1 s run is measured
    assert busy == pytest.approx(200 * per_call, rel=1e-9)
    extra = (job["elapsed_s"] - bare["elapsed_s"]) / 200
    # the card's DMA of each call's last frame over PCI also adds a little
    assert extra == pytest.approx(per_call, rel=0.06)


def test_striping_overlaps_the_targets() -> None:
    one = _dd(False, None, targets=1)["storage"]["jobs"]["dd"]["elapsed_s"]
    four = _dd(False, None, targets=4)["storage"]["jobs"]["dd"]["elapsed_s"]
    assert four < one


@pytest.mark.parametrize("write", [False, True])
def test_the_data_of_reads_and_writes_cross_the_host_bus_once(write: bool) -> None:
    # a 40 MB/s bus under a 2GFC link: the card moves each data frame to memory
    # (a read) or fetches it from memory (a write) by DMA, and the bus sets the pace
    slow = dataclasses.replace(HOST, syscall=0.0, copy_per_byte=0.0, interrupt=0.0,
                               context_switch=0.0, bus="PCI-32/33", bus_bandwidth=40e6)
    run = _dd(write, slow, targets=1, count=100)
    job = run["storage"]["jobs"]["dd"]
    data = 100 * 64 * KIB
    assert job["finished"] and job["bytes"] == data
    # commands, transfer-readies and responses add a few dozen bytes each
    assert run["hosts"]["client"]["bus_utilisation"] * 1.0 == pytest.approx(data / 40e6,
                                                                            rel=0.002)
    assert 0.9 * 40e6 < data / job["elapsed_s"] <= 40e6


def test_raw_block_io_pins_pages_instead_of_copying() -> None:
    raw = dataclasses.replace(HOST, direct_block_io=True, page_remap=3e-6)
    run = _dd(False, raw)
    job = run["storage"]["jobs"]["dd"]
    assert job["finished"]
    per_call = (raw.syscall + (64 * KIB // 4096) * raw.page_remap + raw.context_switch
                + 2 * raw.interrupt)
    busy = run["hosts"]["client"]["cpu_utilisation"] * 1.0
    assert busy == pytest.approx(200 * per_call, rel=1e-9)
