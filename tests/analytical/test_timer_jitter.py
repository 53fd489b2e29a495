"""Host timer jitter against the phase effects of periodic senders (Floyd and
Jacobson, "On Traffic Phase Effects in Packet-Switched Gateways", 1992).

Seven identical iperf UDP senders paced at the same rate into one Gigabit
switch output: with exactly periodic senders started together, tail drop
picks the same losers every period and locks them out; with each paced wait
ending a random time late (the host model's *timer_jitter*), the order of
arrivals at the full output changes every period, so every flow loses about
the same share. The fair share and its spread come from the model's own
values: the output carries C = line rate x datagram / wire bytes, each flow
offers r, so a datagram is lost with probability p = 1 - C / (n r); a flow
sending N datagrams then loses about N p of them, give or take the binomial
spread sqrt(N p (1 - p)).
"""

from __future__ import annotations

import dataclasses
import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.apps.iperf import IperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.ethernet.frame import GAP, frame_chars
from fcsim.ethernet.switch import load_ethernet_switch_model
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.host.host_model import HostModel, load_host_model
from fcsim.host.timer_jitter import TimerJitter
from fcsim.runner import run_scenario
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario, SwitchConfig
from fcsim.scenario.workload_model import IperfConfig

GIGE = speed_named("1000BASE-X")
SENDERS = 7
RATE = 200e6  # bit/s offered by each sender (iperf -b)
DATAGRAM = 1470  # iperf 2's UDP -l default
UDP_IP = 8 + 20  # UDP and IP headers, bytes
TEST = 0.1  # s of iperf -t


def _seven_into_one(host: HostModel) -> dict:
    switch = SwitchConfig("sw", load_ethernet_switch_model("gigabit-workgroup"))
    nodes = tuple(NodeConfig(f"h{i}", host=host, mtu=1500) for i in range(SENDERS + 1))
    links = tuple(LinkConfig(f"l{i}", (f"h{i}", f"sw:{i}"), GIGE, Cable(5.0))
                  for i in range(SENDERS + 1))
    mesh = IperfConfig("udp", "h1", "h0", IperfOptions(True, bandwidth=RATE, duration=TEST),
                       mesh_clients=tuple(f"h{i}" for i in range(1, SENDERS + 1)),
                       mesh_servers=("h0",))
    scenario = Scenario("seven", "ethernet", RunConfig(TEST + 0.02, 0.0), nodes, links,
                        (mesh,), switches=(switch,))
    return run_scenario(scenario)["repetitions"][0]["iperf"]["udp"]


def test_jittered_senders_share_the_loss_of_a_full_output() -> None:
    host = load_host_model("ideal")
    assert host.timer_jitter > 0
    runs = _seven_into_one(host)["runs"]
    sent = [run["datagrams_sent"] for run in runs.values()]
    lost = [run["datagrams_lost"] for run in runs.values()]
    wire = frame_chars(DATAGRAM + UDP_IP) + GAP  # bytes of line time per datagram
    capacity = GIGE.char_rate * 8 * DATAGRAM / wire  # bit/s of datagrams the output carries
    p = 1 - capacity / (SENDERS * RATE)
    n = statistics.mean(sent)
    assert sum(lost) / sum(sent) == pytest.approx(p, abs=0.01)  # less while the buffer fills
    spread = math.sqrt(n * p * (1 - p))
    mean_lost = sum(lost) / SENDERS
    for flow_lost in lost:
        assert abs(flow_lost - mean_lost) <= 4 * spread, (lost, spread)


def test_exactly_periodic_senders_lock_flows_out() -> None:
    """The phase effect itself, with no jitter: some flows get nearly nothing."""
    host = dataclasses.replace(load_host_model("ideal"), timer_jitter=0.0)
    runs = _seven_into_one(host)["runs"]
    shares = [run["datagrams_sent"] - run["datagrams_lost"] for run in runs.values()]
    assert min(shares) < 0.1 * max(shares)


@settings(max_examples=50, deadline=None)
@given(jitter=st.floats(0.0, 1e-3), seed=st.integers(1, 10**6))
def test_a_timed_wait_ends_late_by_at_most_the_jitter(jitter: float, seed: int) -> None:
    sim = Simulation(seed)
    timer = TimerJitter(sim, "h", jitter)
    late = [timer.lateness() for _ in range(200)]
    assert all(0.0 <= x <= jitter for x in late)
    if jitter == 0.0:
        assert not sim.drew_random()  # a jitter-free host draws nothing: runs stay identical


@pytest.mark.parametrize("jitter", [0.0, 10e-6, 50e-6])
def test_the_jitter_moves_datagrams_not_the_rate(jitter: float) -> None:
    """Due times stay a gap apart, however late each wait ends: a sender paced
    at r for T s has datagrams due at k x gap (gap = 8 x 1470 / r) and sends
    each one due before T, but for one due within the jitter of the end (its
    wait may end after T); with no queue they all arrive. Were the lateness
    to add up, it would send about T / (gap + jitter / 2)."""
    host = dataclasses.replace(load_host_model("ideal"), timer_jitter=jitter)
    nodes = tuple(NodeConfig(f"h{i}", host=host, mtu=1500) for i in (1, 2))
    link = LinkConfig("l", ("h1", "h2"), GIGE, Cable(5.0))
    rate = 300e6
    udp = IperfConfig("udp", "h1", "h2", IperfOptions(True, bandwidth=rate, duration=TEST))
    scenario = Scenario("pair", "ethernet", RunConfig(TEST + 0.01, 0.0), nodes, (link,), (udp,))
    run = run_scenario(scenario)["repetitions"][0]["iperf"]["udp"]
    gap = 8 * DATAGRAM / rate
    due = math.floor(TEST / gap * (1 + 1e-12)) + 1  # k x gap < T
    surely = math.ceil((TEST - jitter) / gap * (1 - 1e-12))  # k x gap + jitter < T
    assert surely <= run["datagrams_sent"] <= due
    assert run["datagrams_lost"] <= 1  # one still on its way when the test ends
