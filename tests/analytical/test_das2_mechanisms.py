"""The mechanisms the DAS-2 claims rest on, against closed forms: receive
interrupts throttled to one per interval (e1000 InterruptThrottleRate), a
two-processor host, iperf UDP flows in parallel, the per-run medians of an
iperf mesh, and Linux 2.4's window on a single flow."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.apps.iperf import IperfOptions
from fcsim.apps.netperf import NetperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.host.cpu import INTERRUPT, PROCESS, Cpu
from fcsim.host.host_model import load_host_model
from fcsim.runner import run_scenario
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario
from fcsim.scenario.workload_model import IperfConfig, NetperfConfig

GIGE = speed_named("1000BASE-X")
IDEAL = load_host_model("ideal")
LINK = LinkConfig("l", ("h1", "h2"), GIGE, Cable(10.0))


def _run(nodes, workloads, duration: float) -> dict:
    scenario = Scenario("eth", "ethernet", RunConfig(duration, 0.0), nodes, (LINK,), workloads)
    return run_scenario(scenario)["repetitions"][0]


def test_a_throttled_receiver_takes_one_interrupt_per_interval() -> None:
    """950 Mbit/s of datagrams, a frame every 12.3 us: with at most one interrupt
    per 125 us the receiver takes 0.2 s / 125 us = 1600 interrupts, each with
    the frames that arrived meanwhile, all delivered."""
    rx = dataclasses.replace(IDEAL, name="rx", interrupt=10e-6, tcp_input_per_packet=1e-6,
                             rx_interrupt_interval=125e-6)
    test = IperfConfig("udp", "h1", "h2", IperfOptions(True, bandwidth=950e6, duration=0.2))
    rep = _run((NodeConfig("h1", host=IDEAL), NodeConfig("h2", host=rx)), (test,), 0.21)
    assert rep["iperf"]["udp"]["throughput_mbit_s"] == pytest.approx(950, rel=0.005)
    frames = rep["nodes"]["h2"]["frames_rx"]
    interrupts = (rep["hosts"]["h2"]["cpu_utilisation"] * 0.21 - frames * 1e-6) / 10e-6
    assert interrupts == pytest.approx(0.2 / 125e-6, rel=0.01)


def test_throttling_sets_the_pace_of_a_ping_pong() -> None:
    """1-byte TCP_RR between ideal hosts: each side's interrupt comes at most
    once per interval, so a transaction (one interrupt on each side, the wire
    in between far shorter) takes one interval."""
    host = dataclasses.replace(IDEAL, name="t", rx_interrupt_interval=125e-6)
    test = NetperfConfig("rr", "h1", "h2", NetperfOptions("TCP_RR", length=0.1),
                         send_sizes=(1,), sockets=(65536,))
    rep = _run((NodeConfig("h1", host=host), NodeConfig("h2", host=host)), (test,), 0.11)
    assert rep["netperf"]["rr"]["round_trip_s"] == pytest.approx(125e-6, rel=0.01)


def test_a_second_processor_takes_process_work_but_not_interrupts() -> None:
    sim = Simulation(1)
    cpu = Cpu(sim, "cpu", processors=2)
    done: list[tuple[str, float]] = []
    cpu.run(2e-3, lambda: done.append(("irq1", sim.now)), INTERRUPT)
    cpu.run(1e-3, lambda: done.append(("irq2", sim.now)), INTERRUPT)
    cpu.run(1e-3, lambda: done.append(("copy1", sim.now)), PROCESS)
    cpu.run(1e-3, lambda: done.append(("copy2", sim.now)), PROCESS)
    sim.run(0.5e-3)
    assert cpu.served_by_now() == pytest.approx(1e-3)  # both processors half-way
    sim.run(1.0)
    ends = dict(done)  # the copies on either processor, the interrupts in order on the first
    assert ends == {"copy1": pytest.approx(1e-3), "copy2": pytest.approx(2e-3),
                    "irq1": pytest.approx(2e-3), "irq2": pytest.approx(3e-3)}
    assert cpu.busy_time == pytest.approx(5e-3)
    with pytest.raises(ValueError):
        Cpu(sim, "none", processors=0)


def test_parallel_udp_flows_each_send_at_the_shaping_rate() -> None:
    test = IperfConfig("udp", "h1", "h2", IperfOptions(True, parallel=3, bandwidth=100e6,
                                                      duration=0.2))
    rep = _run((NodeConfig("h1", host=IDEAL), NodeConfig("h2", host=IDEAL)), (test,), 0.21)
    udp = rep["iperf"]["udp"]
    assert udp["offered_mbit_s"] == pytest.approx(300.0)
    assert udp["throughput_mbit_s"] == pytest.approx(300.0, rel=0.005)
    assert udp["datagrams_lost"] <= 3  # one in flight per flow at the end


def test_a_mesh_sums_its_runs_medians() -> None:
    nodes = tuple(NodeConfig(n, host=IDEAL) for n in ("h1", "h2", "h3"))
    links = (LinkConfig("l1", ("h1", "sw:0"), GIGE, Cable(5.0)),
             LinkConfig("l2", ("h2", "sw:1"), GIGE, Cable(5.0)),
             LinkConfig("l3", ("h3", "sw:2"), GIGE, Cable(5.0)))
    from fcsim.ethernet.switch import load_ethernet_switch_model
    from fcsim.scenario.model import SwitchConfig
    switch = SwitchConfig("sw", load_ethernet_switch_model("force10-e-series-class"))
    test = IperfConfig("m", "h1", "h2", IperfOptions(True, bandwidth=100e6, duration=0.4,
                                                    interval=0.1),
                       mesh_clients=("h1",), mesh_servers=("h2", "h3"))
    scenario = Scenario("eth", "ethernet", RunConfig(0.45, 0.0), nodes, links, (test,),
                        switches=(switch,))
    mesh = run_scenario(scenario)["repetitions"][0]["iperf"]["m"]
    runs = list(mesh["runs"].values())
    assert all(len(r["intervals_mbit_s"]) == 4 for r in runs)
    assert mesh["sum_of_medians_mbit_s"] == pytest.approx(
        sum(r["median_mbit_s"] for r in runs))
    assert mesh["sum_of_medians_mbit_s"] == pytest.approx(200.0, rel=0.02)


@pytest.mark.parametrize("window", [32768, 131072])
def test_one_linux_flow_is_window_limited_only_with_a_small_window(window: int) -> None:
    """iperf -w between two DAS-2 nodes back to back at MTU 9000. With -w 32K
    Linux offers at most 3/4 of the doubled 64 KB less one segment reserved,
    in whole 8948-byte segments: four, less while one waits to be read, too
    few to cover the round trip of DMA, wire, interrupts and the ACK, so the
    flow stays well below the line. With -w 128K the window covers it and the
    flow runs at the line's TCP rate, 8948 data bytes per 9038 of line time
    (990.0 Mbit/s)."""
    das2 = load_host_model("das2-node")
    nodes = (NodeConfig("h1", host=das2, mtu=9000), NodeConfig("h2", host=das2, mtu=9000))
    test = IperfConfig("tcp", "h1", "h2", IperfOptions(window=window, duration=0.3,
                                                      interval=0.1))
    rate = _run(nodes, (test,), 0.31)["iperf"]["tcp"]["median_mbit_s"]
    line = 1e3 * 8948 / (9000 + 38)
    if window == 32768:
        assert rate < 0.9 * line
    else:
        assert rate == pytest.approx(line, rel=0.002)
