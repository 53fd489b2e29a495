"""Slow-drain devices and the congestion counters switches report, against
closed forms computed from the model's own parameters."""

from __future__ import annotations

import dataclasses
import math

import pytest

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.congestion import TXWAIT_UNIT, port_counters
from fcsim.fc2.frame import FRAMING_BYTES
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.receive_drain import DrainSpec
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric, p2p

SATURATING = (StreamConfig("w", "a", "b", 2112, cls=3, max_data_field=2112, outstanding=2),)


def _built(scenario):
    sim = Simulation(scenario.run.seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    build_workloads(sim, scenario, net)
    return sim, net


def test_stuck_receiver_stops_a_stream_after_its_credit() -> None:
    """From the moment a receiver stops returning R_RDY, its peer sends exactly
    the receiver's buffers' worth of frames more, then nothing until it ends."""
    buffers = 6
    stuck_at, stuck_for = 2e-3, 3e-3
    b = ServiceParameters(bb_credit=buffers, drain=DrainSpec(stuck_at=stuck_at,
                                                              stuck_for=stuck_for))
    sim, net = _built(p2p(SATURATING, duration=10e-3, a=ServiceParameters(), b=b))
    sender, receiver = net.nodes["a"].port, net.nodes["b"].port
    sim.run(stuck_at + stuck_for / 2)
    sent = sender.stats.frames_tx
    returned = receiver.stats.r_rdy_tx
    assert sender.current_credit() == 0
    assert sent == returned + buffers  # the closed form: credit's worth beyond the last R_RDY
    assert receiver.buffers_used == buffers
    sim.run(stuck_at + stuck_for * 0.99)
    assert sender.stats.frames_tx == sent  # nothing more while it is stuck
    sim.run(stuck_at + stuck_for + 1e-3)
    assert sender.stats.frames_tx > sent + buffers  # it sends again once it ends


@pytest.mark.parametrize("rate", [20e6, 45e6])
def test_receiver_draining_at_rate_caps_a_saturating_stream(rate: float) -> None:
    """A receive path moving r payload bytes/s holds a stream that would fill
    the link (about 103 MB/s at 1GFC) to r."""
    b = ServiceParameters(drain=DrainSpec(rate=rate))
    results = run_scenario(p2p(SATURATING, duration=60e-3, warmup=10e-3, b=b))
    got = results["summary"]["w"]["throughput_bytes_per_s"]["mean"]
    assert got == pytest.approx(rate, rel=0.01)


def test_frame_time_distribution_caps_at_its_mean() -> None:
    """rx_frame_time drawn from a distribution serves 1/mean frames/s."""
    from fcsim.workload.distributions import Uniform

    mean = 40e-6
    b = ServiceParameters(drain=DrainSpec(frame_time=Uniform(20e-6, 60e-6)))
    results = run_scenario(p2p(SATURATING, duration=0.2, warmup=0.02, b=b))
    got = results["summary"]["w"]["throughput_bytes_per_s"]["mean"]
    assert got == pytest.approx(2112 / mean, rel=0.02)


def test_constant_frame_time_is_the_same_rule_as_rx_frame_time() -> None:
    """A DrainSpec with only a constant frame time and the node's rx_frame_time
    give the same run, bit for bit."""
    plain = run_scenario(p2p(SATURATING, duration=5e-3,
                             b=ServiceParameters(rx_frame_time=30e-6)))
    drained = run_scenario(p2p(SATURATING, duration=5e-3,
                               b=ServiceParameters(drain=DrainSpec(frame_time=30e-6))))
    assert plain["repetitions"] == drained["repetitions"]


def test_txwait_of_a_switch_port_in_a_hand_computable_case() -> None:
    """One buffer at a receiver that frees it D after each frame arrives: the
    F_Port in front of it sends a frame, is free after the frame and its gap
    with a frame queued and no credit, and waits until the R_RDY is back:
    TxWait per frame = 2 x propagation + D + one word - gap."""
    delay = 50e-6
    scenario = fabric({"a": "sw:0", "b": "sw:1"}, SATURATING, duration=3e-3, length=100.0)
    nodes = tuple(dataclasses.replace(n, params=ServiceParameters(
        bb_credit=1, drain=DrainSpec(delay=delay))) if n.name == "b" else n
        for n in scenario.nodes)
    sim, net = _built(dataclasses.replace(scenario, nodes=nodes))
    out = net.switches["sw"].ports[1]
    port = out.port

    def completed() -> tuple[int, float, int, float]:
        """Waits and spells at zero credit ended so far and their time (an open
        one is not yet counted)."""
        assert out.queue.length > 0  # a frame is queued
        s = port.stats
        return (s.credit_stalls - (port._stall_since is not None), s.credit_wait,
                s.credit_zero - (port._zero_since is not None), s.credit_zero_time)

    sim.run(1e-3)  # past login and the stream's start
    stalls0, wait0, zeros0, zero_time0 = completed()
    sim.run(scenario.run.duration)
    stalls1, wait1, zeros1, zero_time1 = completed()
    per_frame = 2 * port.delay + delay + port.word_time - port.gap_time
    assert per_frame > 0
    assert stalls1 - stalls0 > 20
    assert wait1 - wait0 == pytest.approx((stalls1 - stalls0) * per_frame, rel=1e-9)
    # at zero credit from each frame's start until its R_RDY is back
    frame_time = (2112 + FRAMING_BYTES) * port.char_time
    assert zeros1 - zeros0 == stalls1 - stalls0
    assert zero_time1 - zero_time0 == pytest.approx(
        (zeros1 - zeros0) * (frame_time + 2 * port.delay + delay + port.word_time), rel=1e-9)
    port.close_stats()
    counted = port_counters(out, scenario.run.duration)["tx"]
    assert counted["txwait_s"] == port.stats.credit_wait
    assert counted["txwait_2_5us"] == int(port.stats.credit_wait / TXWAIT_UNIT)


def _example(drain: bool = True, slow_speed: str | None = None) -> dict:
    """The slow-drain example's first repetition and workloads' throughput,
    with or without its slow drain, "slow"'s link at *slow_speed* if given."""
    from fcsim.resources import DATA_ROOT
    from fcsim.scenario.loader import read_document, scenario_from_document

    path = DATA_ROOT / "scenarios" / "fabric-slow-drain.toml"
    doc = read_document(path)
    slow = next(n for n in doc["nodes"] if n["name"] == "slow")
    if not drain:
        del slow["rx_drain_rate"]
    if slow_speed is not None:
        next(link for link in doc["links"] if link["ends"][0] == "slow")["speed"] = slow_speed
    results = run_scenario(scenario_from_document(doc, str(path)))
    first = results["repetitions"][0]
    first["rates"] = {name: results["summary"][name]["throughput_bytes_per_s"]["mean"]
                      for name in first["workloads"]}
    return first


def test_example_names_the_culprit_and_its_victim() -> None:
    """In the example the F_Port to the slow host is the culprit; the stream to
    "fast", which shares the ISLs, is its victim and loses most of the rate it
    has without the slow drain; the stream that stays on edge1 does not."""
    slow = _example()
    view = slow["congestion"]
    assert [c["device"] for c in view["culprits"]] == ["slow"]
    culprit = view["culprits"][0]
    assert culprit["port"] == "edge2:0" and culprit["kind"] == "slow drain"
    assert [v["flow"] for v in culprit["victims"]] == ["array2->fast"]
    assert set(culprit["spreading"]) == {"edge1:30", "core:1"}
    port = slow["switches"]["edge2"]["ports"]["0"]["tx"]
    assert port["txwait_fraction"] > 0.5
    assert slow["rates"]["to-slow"] == pytest.approx(40e6, rel=0.02)
    free = _example(drain=False)
    assert free["congestion"]["culprits"] == []
    assert slow["rates"]["to-fast"] < 0.5 * free["rates"]["to-fast"]
    assert slow["rates"]["local"] == pytest.approx(free["rates"]["local"], rel=0.01)


def test_over_utilisation_is_named_as_such() -> None:
    """The example's slow host on a 1GFC link and no slow drain: its F_Port
    waits for its line, not credit, and the ISLs behind it hold back the
    stream to "fast"."""
    over = _example(drain=False, slow_speed="1GFC")
    culprits = over["congestion"]["culprits"]
    assert [(c["device"], c["kind"]) for c in culprits] == [("slow", "over-utilisation")]
    assert [v["flow"] for v in culprits[0]["victims"]] == ["array2->fast"]


_SLOW = 'rx_drain_rate = "40 MB/s"   # the device takes out 40 MB/s of payload'


@pytest.mark.parametrize(("edit", "key", "given", "allowed"), [
    ((_SLOW, 'rx_drain_rate = "0 MB/s"'), "nodes[3].rx_drain_rate", "given '0 MB/s'", "> 0"),
    ((_SLOW, 'rx_delay = "-1 us"'), "nodes[3].rx_delay", "given '-1 us'", ">= 0 s"),
    ((_SLOW, 'rx_stuck_at = "1 ms"'), "nodes[3].rx_stuck_at", "given '1 ms'",
     "given with rx_stuck_for"),
    ((_SLOW, 'rx_stuck_for = "0 s"\nrx_stuck_at = "1 ms"'), "nodes[3].rx_stuck_for",
     "given '0 s'", "> 0"),
    ((_SLOW, 'rx_delay = { distribution = "uniform", low = "5 us", high = "1 us" }'),
     "nodes[3].rx_delay.high", "given '1 us'", "not below low ('5 us')"),
])
def test_bad_slow_drain_keys_are_refused(tmp_path, edit, key, given, allowed) -> None:
    from fcsim.resources import DATA_ROOT
    from tests.builders import assert_refused

    base = (DATA_ROOT / "scenarios" / "fabric-slow-drain.toml").read_text(encoding="utf-8")
    assert_refused(tmp_path, base, edit, key, given, allowed)


def test_hold_time_removes_a_stuck_receivers_frames_a_buffer_load_per_hold_time() -> None:
    """Behind a receiver stuck for the whole run, every frame for it waits in
    the switch's input buffers until the hold time H removes it; each removal
    frees a buffer, the sender fills it again, and that frame waits H in turn:
    the input's buffers' worth of frames is removed per H (plus the few us each
    refill takes), all counted at the output to the stuck receiver."""
    from fcsim.fabric.switch_model import load_switch_model

    hold, stuck_at, end = 2e-3, 1e-3, 11e-3
    model = dataclasses.replace(load_switch_model("generic-nonblocking"), hold_time=hold)
    scenario = fabric({"a": "sw:0", "b": "sw:1"}, SATURATING, duration=end,
                      switches={"sw": model})
    nodes = tuple(dataclasses.replace(n, params=ServiceParameters(
        drain=DrainSpec(stuck_at=stuck_at, stuck_for=1.0))) if n.name == "b" else n
        for n in scenario.nodes)
    sim, net = _built(dataclasses.replace(scenario, nodes=nodes))
    sim.run(stuck_at)
    received = net.nodes["b"].port.stats.frames_rx
    sim.run(end)
    switch = net.switches["sw"]
    out = switch.ports[1]
    assert net.nodes["b"].port.stats.frames_rx - received <= net.nodes["b"].params.bb_credit
    assert out.timeouts == switch.stats.discarded  # every one of them, at that output
    assert switch.ports[0].timeouts == 0
    # whole hold times after the first frames queued: (end - stuck_at) / hold is
    # 5, less the refills' few us each, so 4 (the fifth ends after the run)
    generations = math.ceil((end - stuck_at) / hold) - 1
    assert out.timeouts == model.bb_credit * generations


@pytest.mark.parametrize("rate", [15e6, 40e6, 120e6])
def test_victim_on_a_shared_credit_pool_gets_the_culprits_rate(rate: float) -> None:
    """Head-of-line blocking on the shared credits of an ISL: in the example,
    frames for "slow" hold the buffers of the ISL into edge2 and each credit
    "slow"'s drain frees lets the core send the next frame of its one queue
    for that ISL, which the sources' round robin at edge1 fills one frame of
    each stream in turn; the victim's frame crosses at once and its credit
    comes straight back, so the next is the culprit's again. The victim gets
    one frame per frame the slow device drains: its drain rate r (frames of
    the same size), while 2 r is below what the ISL carries."""
    from fcsim.resources import DATA_ROOT
    from fcsim.scenario.loader import read_document, scenario_from_document

    path = DATA_ROOT / "scenarios" / "fabric-slow-drain.toml"
    doc = read_document(path)
    doc["run"].update(duration="40 ms", warmup="5 ms")
    for w in doc["workloads"]:
        w["size"] = "2112 B"  # one full frame a sequence: no partial sequence at the ends
    next(n for n in doc["nodes"] if n["name"] == "slow")["rx_drain_rate"] = f"{rate} B/s"
    scenario = scenario_from_document(doc, str(path))
    isl = next(link for link in scenario.links if link.name == "isl-core-edge2")
    line = isl.speed.baud / 10 * 2112 / (2112 + FRAMING_BYTES + 6 * 4)  # payload B/s, 8b/10b
    assert 2 * rate < line
    summary = run_scenario(scenario)["summary"]
    assert summary["to-slow"]["throughput_bytes_per_s"]["mean"] == pytest.approx(rate, rel=0.01)
    assert summary["to-fast"]["throughput_bytes_per_s"]["mean"] == pytest.approx(rate, rel=0.01)


def test_scenario_keys_become_the_drain(tmp_path) -> None:
    """The node keys as the loader reads them: a drawn rx_frame_time keeps its
    mean as the login parameter (the flow model's) and its draw in the drain;
    a node with none of the keys has no DrainSpec (it frees each buffer at once)."""
    from fcsim.resources import DATA_ROOT
    from fcsim.scenario.loader import load_scenario
    from fcsim.workload.distributions import Uniform

    text = (DATA_ROOT / "scenarios" / "fabric-slow-drain.toml").read_text(encoding="utf-8")
    path = tmp_path / "case.toml"
    path.write_text(text.replace(_SLOW, 'rx_frame_time = { distribution = "uniform", '
                                 'low = "10 us", high = "30 us" }\nrx_delay = "5 us"\n'
                                 'rx_stuck_at = "1 ms"\nrx_stuck_for = "2 ms"'), encoding="utf-8")
    nodes = {n.name: n for n in load_scenario(path).nodes}
    params = nodes["slow"].params
    assert params.rx_frame_time == pytest.approx(20e-6)
    assert params.drain == DrainSpec(Uniform(10e-6, 30e-6), 0.0, 5e-6, 1e-3, 2e-3)
    assert nodes["fast"].params.drain is None


@pytest.mark.parametrize(("hold", "frame_time"), [(1e-3, 400e-6), (2e-3, 1e-3),
                                                  (0.5e-3, 300e-6), (1e-3, 150e-6)])
def test_hold_time_discards_what_arrival_and_drain_rates_imply(hold: float,
                                                               frame_time: float) -> None:
    """A saturating sender behind a switch whose output drains at r = 1 /
    frame_time frames/s: the switch input's B buffers stay full, every frame
    in them leaves at the latest H after it queued, and each departure lets
    the next frame in. By Little's law B = d W_d + r W_s, the discarded
    frames waiting W_d = H and the served ones W_s <= H at the head of the
    FIFO (at least H less the time between two frames' entries, about H / B):
    the discards per second d lie between B / H - r and B / H - r (1 - 1 / B)."""
    from fcsim.fabric.switch_model import load_switch_model

    model = dataclasses.replace(load_switch_model("generic-nonblocking"), hold_time=hold)
    scenario = fabric({"a": "sw:0", "b": "sw:1"}, SATURATING, duration=60e-3,
                      switches={"sw": model})
    nodes = tuple(dataclasses.replace(n, params=ServiceParameters(
        drain=DrainSpec(frame_time=frame_time))) if n.name == "b" else n
        for n in scenario.nodes)
    sim, net = _built(dataclasses.replace(scenario, nodes=nodes))
    out = net.switches["sw"].ports[1]
    start, end = 10e-3, 60e-3
    sim.run(start)
    removed, served = out.timeouts, net.nodes["b"].port.stats.frames_rx
    sim.run(end)
    removed, served = out.timeouts - removed, net.nodes["b"].port.stats.frames_rx - served
    window, buffers, rate = end - start, model.bb_credit, 1 / frame_time
    assert served == pytest.approx(rate * window, abs=1)  # the drain sets what is delivered
    assert (buffers / hold - rate) * window - 1 <= removed
    assert removed <= (buffers / hold - rate * (1 - 1 / buffers)) * window + 1
