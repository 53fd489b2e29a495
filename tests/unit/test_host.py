"""Host parts: processor, background load, I/O bus, host adapter."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.host.adapter import AdapterModel, HostAdapter
from fcsim.host.bus import BUS_TYPES, IoBus
from fcsim.host.cpu import INTERRUPT, PROCESS, BackgroundLoad, Cpu
from fcsim.scenario.workload_model import StreamConfig
from fcsim.topology.point_to_point import build_point_to_point
from tests.builders import p2p


def test_cpu_serves_interrupt_level_first_and_scales_with_speed() -> None:
    sim = Simulation(1)
    cpu = Cpu(sim, "cpu", speed=2.0)
    done: list[tuple[str, float]] = []
    cpu.run(2e-3, lambda: done.append(("first", sim.now)))
    cpu.run(2e-3, lambda: done.append(("process", sim.now)), PROCESS)
    cpu.run(2e-3, lambda: done.append(("interrupt", sim.now)), INTERRUPT)
    sim.run(1.0)
    assert done == [("first", pytest.approx(1e-3)), ("interrupt", pytest.approx(2e-3)),
                    ("process", pytest.approx(3e-3))]
    assert cpu.busy_time == pytest.approx(3e-3)


def test_background_load_keeps_the_cpu_busy_the_stated_fraction() -> None:
    sim = Simulation(7)
    cpu = Cpu(sim, "cpu")
    BackgroundLoad(sim, cpu, utilisation=0.3, mean_job=1e-3, stream="bg")
    sim.run(20.0)
    assert cpu.busy_time / 20.0 == pytest.approx(0.3, rel=0.05)


def test_bus_transfer_time_and_turns() -> None:
    sim = Simulation(1)
    bus = IoBus(sim, "eisa", BUS_TYPES["EISA"], bandwidth=20e6, overhead=5e-6)
    ends: list[float] = []
    for _ in range(2):
        bus.transfer(2000, lambda: ends.append(sim.now))
    sim.run(1.0)
    assert ends == pytest.approx([105e-6, 210e-6])
    assert BUS_TYPES["EISA"].peak == pytest.approx(33.32e6)
    with pytest.raises(ValueError):
        IoBus(sim, "x", BUS_TYPES["ISA"], bandwidth=20e6, overhead=0)


def test_a_slow_bus_limits_the_link_through_receive_credit() -> None:
    scenario = p2p((StreamConfig("s", "a", "b", MAX_DATA_FIELD, outstanding=2),),
                   duration=0.05, warmup=0.005)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    bandwidth, overhead = 20e6, 10e-6
    bus = IoBus(sim, "bus", BUS_TYPES["EISA"], bandwidth, overhead)
    HostAdapter(sim, net.nodes["b"], bus, AdapterModel("hba"))
    build_workloads(sim, scenario, net)
    sim.run(0.005)
    start = net.nodes["b"].stats.payload_rx
    sim.run(0.05)
    rate = (net.nodes["b"].stats.payload_rx - start) / 0.045
    assert rate == pytest.approx(MAX_DATA_FIELD / (overhead + MAX_DATA_FIELD / bandwidth),
                                 rel=0.01)


def test_a_host_takes_bus_and_card_from_its_catalog_adapter(tmp_path: Path) -> None:
    from fcsim.host.host_model import load_host_model

    c110 = load_host_model("hp-c110")
    assert (c110.adapter, c110.bus) == ("eisa-fc-266", "EISA")
    assert 0 < c110.bus_bandwidth <= BUS_TYPES["EISA"].peak
    assert c110.sources["bus_bandwidth"].startswith("adapter eisa-fc-266: calibrated on claim")
    hosts, cards = tmp_path / "hosts", tmp_path / "adapters"
    hosts.mkdir()
    cards.mkdir()
    (cards / "card.toml").write_text('bus = { value = "EISA", source = "test" }\n'
                                     'bus_bandwidth = { value = 2e7, source = "test" }\n')
    (hosts / "twice.toml").write_text('adapter = { value = "card", source = "test" }\n'
                                      'bus = { value = "PCI-32/33", source = "test" }\n')
    with pytest.raises(ValueError, match="bus come from adapter 'card'; give them in one place"):
        load_host_model("twice", hosts)
    (hosts / "once.toml").write_text('adapter = { value = "card", source = "test" }\n')
    assert load_host_model("once", hosts).bus == "EISA"
