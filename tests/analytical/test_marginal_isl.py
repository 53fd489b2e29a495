"""Fabric A's ISL turns marginal under a multipathed host (docs/multipath.md,
docs/fpin.md): the switches' Link Integrity FPIN reaches the host's fabric-A
N_Port naming a port its path matches, the path goes marginal within one
notification period, and its error count stops growing; when the first FPIN
is sent follows from the bit error rate, the frame rate and the threshold."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

import pytest

from fcsim.build import BUILDERS, install_marginal_paths
from fcsim.engine.simulation import Simulation
from fcsim.fabric.network import FabricNetwork
from fcsim.faults.injector import install as install_faults
from fcsim.fc2.els_payload import port_name as wwpn
from fcsim.scenario.loader import scenario_from_document
from fcsim.storage.build import Storage
from fcsim.storage.multipath import Multipath

EXAMPLE = Path(__file__).parents[2] / "scenarios" / "multipath-marginal-isl.toml"
T0, BER = 0.03, 1e-6
"""The fault's time, s, and the bit error rate (higher than the example's so that
the first window after the fault crosses the threshold all but surely)."""
FRAME_OVERHEAD = 36
"""Bytes of a frame beside its data field: SOF, header, CRC, EOF (FC-FS)."""


def built(direction: str, ber: float = BER) -> tuple[Simulation, FabricNetwork, Multipath,
                                                     dict[str, Any]]:
    """The example, 80 ms, its ISL's bit error rate rising to *ber* at T0 on the
    frames leaving *direction* (a port of islA), not yet run."""
    doc = tomllib.loads(EXAMPLE.read_text())
    doc["run"] = {"duration": "80 ms", "seed": 3}
    doc["faults"] = [{"at": f"{T0 * 1e3:g} ms", "kind": "bit-error-rate", "link": "islA",
                      "bit_error_rate": ber, "from": direction}]
    scenario = scenario_from_document(doc, "marginal-isl.toml")
    sim = Simulation(scenario.run.seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    storage = Storage(sim, scenario, net)
    install_faults(sim, scenario, net, {})
    install_marginal_paths(scenario, net, storage)
    (device,) = storage.multipaths.values()
    return sim, net, device, doc["fpin"]  # type: ignore[return-value]


def poisson_below(mean: float, k: int) -> float:
    """P(X < k) for X Poisson of *mean*."""
    return sum(math.exp(-mean) * mean ** i / math.factorial(i) for i in range(k))


def test_the_path_goes_marginal_within_one_notification_period() -> None:
    """Errors on the array -> host direction are detected by swA1's ISL port,
    whose Link Integrity FPIN names the array's port (the host's path's
    target port): the host's path through fabric A goes marginal when its
    N_Port receives it.

    Closed form: a read's data frame of 2048 bytes is n = (2048 + 36) x 10
    line bits (8b/10b), lost with probability q = 1 - (1 - p)^n; with F
    frames crossing in the window [T0, T0 + W), 4 in 5 of them data (an
    8 KiB read: 4 data frames and its response), the errors are at least
    Poisson(4/5 F q); when P(fewer than the threshold) is below 1e-4 the
    first FPIN goes out at the end of that window, T0 + W (windows end at
    multiples of W, and T0 is one), and the host marks the path marginal
    when it arrives, the switch's service time and the frame's trip later,
    within the next window: one notification period. From then on the path
    gets no new request, and the ISL's error count stops growing once the
    frames of the commands in flight have crossed it (in the window after
    the FPIN's): every later window counts 0."""
    sim, net, device, fpin = built("swA2:1")
    window = float(fpin["link_integrity_window"].split()[0]) * 1e-3
    threshold = fpin["link_integrity_threshold"]
    isl = net.switches["swA1"].ports[1].port
    sim.run(T0)
    frames_before = isl.stats.frames_rx + isl.stats.errors_rx
    sim.run(T0 + window)
    frames = isl.stats.frames_rx + isl.stats.errors_rx - frames_before
    q = 1 - (1 - BER) ** ((2048 + FRAME_OVERHEAD) * isl.line_bits)
    assert poisson_below(frames * 4 / 5 * q, threshold) < 1e-4, "the test needs a sure crossing"
    sim.run(0.0801)
    sent = [e for e in net.fpin.sent if e["to"] == "host"]
    assert sent and math.isclose(sent[0]["time_s"], T0 + window)
    received_at, descriptor = net.nodes["host"].fpin.log[0]
    assert descriptor.detecting == wwpn("swA1:1")
    assert descriptor.affected == (wwpn("array"),)
    path = next(p for p in device.paths if p.local == "host")
    marked = next(t for t, s, e in device.events if s == path.name and e.startswith("marginal"))
    assert marked == received_at  # the listener is told as the N_Port receives it
    assert T0 + window < marked < T0 + 2 * window  # within one notification period
    assert path.marginal
    counts = net.fpin.windows["swA1:1"]
    first = round(T0 / window)  # the window [T0, T0 + W)
    assert counts[first] >= threshold and all(c < threshold for c in counts[:first])
    assert len(counts) > first + 2 and all(c == 0 for c in counts[first + 2:])


def test_errors_towards_the_array_name_the_hosts_own_port() -> None:
    """Errors on the host -> array direction (its commands) are detected by
    swA2's ISL port, whose FPIN names the host's N_Port, reached through
    swA1: the path through that N_Port goes marginal as it arrives."""
    sim, net, device, _ = built("swA1:1", ber=2e-4)
    sim.run(0.06)
    received_at, descriptor = net.nodes["host"].fpin.log[0]
    assert descriptor.detecting == wwpn("swA2:1")
    assert descriptor.affected == (wwpn("host"),)
    path = next(p for p in device.paths if p.local == "host")
    assert path.marginal
    assert next(t for t, s, e in device.events if s == path.name
                and e.startswith("marginal")) == received_at


def test_the_marginal_path_gets_no_request_after_the_fpin() -> None:
    """The path's request count when it went marginal is its count at the end."""
    sim, _net, device, _ = built("swA2:1")
    path = next(p for p in device.paths if p.local == "host")
    at_marginal: list[int] = []
    while not path.marginal and sim.now < 0.06:
        sim.run(sim.now + 1e-4)
    at_marginal.append(path.ios)
    sim.run(0.06)
    other = next(p for p in device.paths if p.local != "host")
    assert path.ios == at_marginal[0] and other.ios > path.ios


def test_marginal_pathgroups_fpin_without_link_integrity_is_refused() -> None:
    """A multipath node asking for FPIN-driven marginal paths in a scenario
    whose fabric sends no Link Integrity FPIN gets one clear problem."""
    doc = tomllib.loads(EXAMPLE.read_text())
    del doc["fpin"]
    with pytest.raises(Exception, match=r"nodes\[0\]\.multipath\.marginal_pathgroups"):
        scenario_from_document(doc, "marginal-isl.toml")


def test_an_nvme_job_on_a_multipath_node_gets_an_nvme_multipath_namespace() -> None:
    """An FC-NVMe job from a multipath node goes to NVMe native multipath (a
    namespace head over every path, fcsim.storage.nvme_multipath), not to
    dm-multipath: the scenario loads with the host's default iopolicy."""
    doc = tomllib.loads(EXAMPLE.read_text())
    doc["workloads"][0]["protocol"] = "nvme"
    sc = scenario_from_document(doc, "marginal-isl.toml")
    assert sc.nodes[0].multipath.iopolicy == "numa"
