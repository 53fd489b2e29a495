"""PCI Express links: peak rates from the specification's transfer rates and
codes, and each DMA transfer's packets with their TLP overhead."""

from __future__ import annotations

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.host.bus import BUS_TYPES, PcieBus, pcie_goodput
from fcsim.host.host_model import HostModel


@pytest.mark.parametrize(("name", "gigabytes"), [
    ("PCIe-1-x1", 2.5 * 8 / 10 / 8), ("PCIe-2-x4", 4 * 5 * 8 / 10 / 8),
    ("PCIe-3-x8", 8 * 8 * 128 / 130 / 8), ("PCIe-4-x16", 16 * 16 * 128 / 130 / 8),
    ("PCIe-5-x8", 8 * 32 * 128 / 130 / 8)])
def test_peak_is_lanes_times_rate_times_code(name: str, gigabytes: float) -> None:
    assert BUS_TYPES[name].peak == pytest.approx(gigabytes * 1e9)
    assert BUS_TYPES[name].tlp_overhead == 24  # 64-bit address memory write, every generation


@pytest.mark.parametrize(("size", "payload"), [(4096, 256), (4096, 128), (1000, 256), (64, 256)])
def test_a_transfer_travels_as_packets_each_with_its_overhead(size: int, payload: int) -> None:
    sim = Simulation(1)
    kind = BUS_TYPES["PCIe-3-x8"]
    bus = PcieBus(sim, "bus", kind, 7e9, 1e-7, payload)
    done: list[float] = []
    bus.transfer(size, lambda: done.append(sim.now))
    sim.run(1.0)
    packets = -(-size // payload)
    assert done == [pytest.approx(1e-7 + (size + 24 * packets) / 7e9, rel=1e-12)]


def test_goodput_of_full_packets() -> None:
    kind = BUS_TYPES["PCIe-3-x8"]
    assert pcie_goodput(kind, 7e9, 256) == pytest.approx(7e9 * 256 / 280)
    assert pcie_goodput(kind, 7e9, 128) == pytest.approx(7e9 * 128 / 152)


def test_bad_max_payload_is_refused() -> None:
    with pytest.raises(ValueError, match="bus_max_payload"):
        HostModel("h", bus="PCIe-3-x8", bus_bandwidth=7e9, bus_max_payload=300)
